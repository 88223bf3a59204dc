import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';

// A model wrote this text (and the parameters it was given were free text): HTML in it is shown
// as text, never parsed (no rehype-raw; skipHtml false keeps it visible as the text it is), link
// targets pass react-markdown's safe-URL filter, and images are dropped so that opening a report
// makes the browser fetch nothing.
const DROPPED = ['img'];
const cell = { border: '1px solid #f0f0f0', padding: '4px 8px', textAlign: 'left' } as const;
const COMPONENTS: Components = {
  // A link leaves the report in a new tab rather than replacing the app.
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer" />,
  // antd's Typography styles headings and lists, not tables.
  table: ({ node: _node, ...props }) => (
    <div style={{ overflowX: 'auto', marginBottom: '1em' }}>
      <table {...props} style={{ borderCollapse: 'collapse' }} />
    </div>
  ),
  th: ({ node: _node, style, ...props }) => <th {...props} style={{ ...cell, ...style, background: '#fafafa' }} />,
  td: ({ node: _node, style, ...props }) => <td {...props} style={{ ...cell, ...style }} />,
};

/** A report's Markdown as elements: headings, lists, tables (GFM), emphasis, links. */
export default function ReportMarkdown({ text }: { text: string }) {
  return (
    <Markdown remarkPlugins={[remarkGfm]} disallowedElements={DROPPED} skipHtml={false} components={COMPONENTS}>
      {text}
    </Markdown>
  );
}
