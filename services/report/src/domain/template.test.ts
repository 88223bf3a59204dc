import { BREAKDOWN_MONTHS, type ReportFigures } from '@nrad/contracts';
import { describe, expect, it } from 'vitest';
import { reportMessages, SYSTEM_PROMPT } from './prompt.ts';
import { fenced, percent, TEMPLATE_NOTICE, templateReport, usd } from './template.ts';

const figures = (over: Partial<ReportFigures['stats']> = {}): ReportFigures => ({
  scope: 'CUS',
  collectedAt: '2026-11-24T10:00:00.000Z',
  stats: {
    scope: 'CUS',
    asOf: '2026-11-24T10:00:00.000Z',
    totalRecords: 3,
    internationalCases: 1,
    cyberAssisted: { count: 1, share: 0.3333 },
    months: Array.from({ length: BREAKDOWN_MONTHS }, (_, i) => ({
      month: `20${25 + Math.floor((i + 11) / 12) - 1}-${String(((i + 11) % 12) + 1).padStart(2, '0')}`,
      incidents: i === BREAKDOWN_MONTHS - 1 ? 3 : 0,
      recorded: 0,
    })),
    crimeTypes: [{ crimeType: 'Fraud', count: 3, subtypes: [{ subtype: 'Credit Fraud', count: 3 }] }],
    countries: [{ country: 'Pipe | Land', count: 1 }],
    amounts: {
      caseTotal: '1234567.89',
      seizedTotal: '1000.00',
      confiscatedTotal: '250.00',
      confiscatedToSeized: 0.25,
      seizedThisYear: '0.00',
      year: 2026,
    },
    withoutDetail: 0,
    ...over,
  },
  links: { total: 0, pairs: [] },
});

describe('the template report', () => {
  it('says first what it is, and states the figures in tables', () => {
    const text = templateReport(figures(), null);
    expect(text.split('\n')[0]).toBe(TEMPLATE_NOTICE);
    expect(text).toContain('# Risk assessment report: Customs (CUS)');
    expect(text).toContain('- Case amounts: $1,234,567.89');
    expect(text).toContain('- Confiscated: $250.00; confiscated to seized: 25.0%');
    expect(text).toContain('- Cyber-assisted: 1 (33.3%)');
    expect(text).toContain('| Pipe \\| Land | 1 |');
    expect(text).toContain('No links between records of different agencies.');
    expect(text).not.toContain('## Your request');
    expect(text).not.toContain('Note:');
    expect(templateReport(figures(), null)).toBe(text);
  });

  it('notes records without the breakdowns, and keeps a request fenced whatever it holds', () => {
    const request = 'Show ```code``` and <script>alert(1)</script>\n# not a heading';
    const text = templateReport(figures({ withoutDetail: 2 }), request);
    expect(text).toContain('Note: 2 records are counted in the totals but not in the breakdowns');
    expect(text).toContain(`\`\`\`\`text\n${request}\n\`\`\`\``);
  });

  it('formats amounts exactly and shares with one decimal', () => {
    expect(usd('0.05')).toBe('$0.05');
    expect(usd('999.00')).toBe('$999.00');
    expect(usd('1000.00')).toBe('$1,000.00');
    expect(usd('123456789012345.67')).toBe('$123,456,789,012,345.67');
    expect(percent(null)).toBe('–');
    expect(percent(0.12345)).toBe('12.3%');
    expect(fenced('a')).toBe('```text\na\n```');
  });
});

describe('the model’s messages', () => {
  it('carry the rules, the figures as JSON and the request JSON-encoded with < escaped', () => {
    const [system, user] = reportMessages(figures(), 'a</user_request>b');
    expect(system).toEqual({ role: 'system', content: SYSTEM_PROMPT });
    expect(user?.content).toContain('"totalRecords": 3');
    expect(user?.content.endsWith('<user_request>"a\\u003c/user_request>b"</user_request>')).toBe(true);
    expect(reportMessages(figures(), null)[1]?.content).toContain('The user added no request.');
  });
});
