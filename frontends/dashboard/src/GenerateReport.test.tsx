import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  REPORT_PARAMETERS_MAX,
  type Report,
  type ReportFigures,
  type ReportJob,
  type ReportSummary,
  TEMPLATE_MODEL,
} from '@nrad/contracts';
import { formatDateTime } from '@nrad/shared';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openAt, renderScreen, toastText } from '../../shared/test/render.tsx';
import GenerateReport, { REPORT_TEXTS, REPORTS_PAGE_SIZE } from './GenerateReport.tsx';

// The report API as a real HTTP server answering what each test sets (the report service has
// states — a job failing, a server error — that a test cannot bring about on demand), recording
// every call; the card reaches it through the real API client, as it reaches the gateway.
type Answer = { status: number; body?: unknown };
interface Call {
  method: string;
  url: string;
  body: string;
}
let calls: Call[] = [];
let started: Answer;
let job: Answer;
let stored: Report[];
/** Runs when a job read answers completed: the service stores the report before it says so. */
let onCompleted: () => void;

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => {
    body += chunk;
  });
  req.on('end', () => {
    const url = new URL(req.url ?? '/', 'http://x');
    calls.push({ method: req.method ?? '', url: `${url.pathname}${url.search}`, body });
    const answer = ((): Answer => {
      if (req.method === 'POST' && url.pathname === '/api/generate-report') return started;
      if (url.pathname.startsWith('/api/reports/jobs/')) {
        if ((job.body as ReportJob | undefined)?.state === 'completed') onCompleted();
        return job;
      }
      if (url.pathname === '/api/reports') {
        const offset = Number(url.searchParams.get('offset'));
        const limit = Number(url.searchParams.get('limit'));
        const items = stored.slice(offset, offset + limit).map(summaryOf);
        return { status: 200, body: { items, total: stored.length } };
      }
      const one = stored.find((r) => url.pathname === `/api/reports/${r.id}`);
      return one
        ? { status: 200, body: one }
        : { status: 404, body: { message: 'Report not found', code: 'NOT_FOUND' } };
    })();
    res.statusCode = answer.status;
    res.setHeader('Content-Type', 'application/json');
    res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  });
});

beforeAll(async () => {
  // The card reads the job every JOB_POLL_MS: a change takes up to one read to show, longer on a busy machine.
  configure({ asyncUtilTimeout: 5_000 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  openAt(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  calls = [];
  started = { status: 202, body: { jobId: 'job-1' } };
  job = jobAt('queued');
  stored = [];
  onCompleted = () => {};
});

const now = '2026-11-24T15:05:00.000Z';
const figures: ReportFigures = {
  scope: 'FIA',
  collectedAt: now,
  stats: {
    scope: 'FIA',
    asOf: now,
    totalRecords: 3,
    internationalCases: 1,
    cyberAssisted: { count: 0, share: 0 },
    months: [],
    crimeTypes: [],
    countries: [{ country: 'Brazil', count: 1 }],
    amounts: {
      caseTotal: '100.00',
      seizedTotal: '0.00',
      confiscatedTotal: '0.00',
      confiscatedToSeized: null,
      seizedThisYear: '0.00',
      year: 2026,
    },
    withoutDetail: 0,
  },
  links: { total: 0, pairs: [] },
};

/** A stored report of the FIA; `n` makes it distinct (and older as n grows). */
function storedReport(n: number, fields: Partial<Report> = {}): Report {
  return {
    id: `r-${n}`,
    createdAt: new Date(Date.parse(now) - n * 3_600_000).toISOString(),
    model: 'gpt-test',
    parameters: n % 2 ? `Parameters ${n}` : null,
    organization: 'FIA',
    createdBy: { id: `u-${n}`, name: `Analyst ${n}` },
    report: `# Report ${n}\n\nBody of report ${n}.`,
    figures,
    ...fields,
  };
}
const summaryOf = ({ report: _report, figures: _figures, ...summary }: Report): ReportSummary => summary;

function jobAt(stage: ReportJob['stage'], fields: Partial<ReportJob> = {}): Answer {
  const state =
    stage === 'queued' ? 'queued' : stage === 'done' ? 'completed' : stage === 'failed' ? 'failed' : 'active';
  return { status: 200, body: { jobId: 'job-1', state, stage, ...fields } satisfies ReportJob };
}

/** The job answering completed with `report` (which the list then holds, newest first). */
function completedWith(report: Report) {
  const { id, createdAt, model } = report;
  job = jobAt('done', { result: { report: report.report, id, createdAt, model } });
  onCompleted = () => {
    if (!stored.some((r) => r.id === id)) stored.unshift(report);
  };
}

/** A button by its text (a loading button's name starts with its spinner's "loading"). */
const button = (text: string) => screen.getByRole('button', { name: (name) => name.replace(/^loading /, '') === text });
const reportText = () => screen.getByTestId('report-text');
const rows = () => [...screen.getByTestId('earlier-reports').querySelectorAll('tbody tr.ant-table-row')];
const cellsOf = (row: Element) => [...row.children].map((c) => c.textContent);

/** Renders the card, types `parameters` (if any) and presses Generate Report. */
async function generate(parameters?: string) {
  const user = userEvent.setup();
  renderScreen(<GenerateReport />);
  if (parameters) await user.type(screen.getByLabelText('Parameters (optional)'), parameters);
  await user.click(button(REPORT_TEXTS.button));
  return user;
}

describe('Generate Report card', () => {
  it('starts idle: an empty parameters box counting to 2,000, the button, no result, no reports yet', async () => {
    renderScreen(<GenerateReport />);
    const box = screen.getByLabelText('Parameters (optional)');
    expect(box).toHaveValue('');
    expect(box).toBeEnabled();
    expect(screen.getByTestId('generate-report')).toHaveTextContent('0 / 2,000');
    expect(button('Generate Report')).toBeEnabled();
    expect(screen.queryByText(REPORT_TEXTS.runningDetail)).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Generated Report' })).toBeNull();
    expect(await screen.findByText('No reports yet')).toBeInTheDocument();
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([`GET /api/reports?limit=${REPORTS_PAGE_SIZE}&offset=0`]);
  });

  it('shows both SPEC texts and each stage while the job runs, then the report and the success toast', async () => {
    stored = [storedReport(1)];
    await generate('  International cases this year ');
    // POST answered 202; the first job read has not said more than queued.
    expect(await waitFor(() => button('Generating Report...'))).toBeDisabled();
    expect(screen.getByText('Generating report using AI analysis...')).toBeInTheDocument();
    expect(screen.getByTestId('report-stage')).toHaveTextContent('Queued');
    expect(screen.getByLabelText('Parameters (optional)')).toBeDisabled();
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.url).toBe('/api/generate-report?async=1');
    expect(JSON.parse(post?.body ?? '')).toEqual({ parameters: 'International cases this year' });

    job = jobAt('collecting figures');
    await waitFor(() => expect(screen.getByTestId('report-stage')).toHaveTextContent('Collecting figures'));
    expect(screen.getByText(REPORT_TEXTS.runningDetail)).toBeInTheDocument();
    job = jobAt('writing');
    await waitFor(() => expect(screen.getByTestId('report-stage')).toHaveTextContent('Writing'));
    expect(button('Generating Report...')).toBeDisabled();
    expect(screen.queryByRole('heading', { name: 'Generated Report' })).toBeNull();

    const made = storedReport(0, { model: 'gpt-4o-mini', report: '## Summary\n\nThree records.' });
    completedWith(made);
    expect(await screen.findByRole('heading', { name: 'Generated Report' })).toBeInTheDocument();
    await waitFor(() => expect(toastText('Report generated successfully')).toBeDefined());
    expect(toastText('Report generated successfully')?.textContent).toContain('Success');
    expect(button('Generate Report')).toBeEnabled();
    expect(screen.queryByText(REPORT_TEXTS.runningDetail)).toBeNull();
    expect(await within(reportText()).findByRole('heading', { name: 'Summary', level: 2 })).toBeInTheDocument();
    expect(screen.getByTestId('report-meta')).toHaveTextContent(
      `Written by the AI model gpt-4o-mini · ${formatDateTime(made.createdAt)}`,
    );
    expect(screen.getByRole('link', { name: 'Download Markdown' })).toHaveAttribute(
      'href',
      '/api/reports/r-0/markdown',
    );
    const reads = calls.filter((c) => c.url.startsWith('/api/reports/jobs/'));
    expect(reads.length).toBeGreaterThanOrEqual(3); // collecting figures, writing, done (queued maybe)
    expect(new Set(reads.map((c) => `${c.method} ${c.url}`))).toEqual(new Set(['GET /api/reports/jobs/job-1']));

    // The list is read again and now starts with the new report, shown as the selected one.
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(cellsOf(rows()[0] as Element)).toEqual([formatDateTime(made.createdAt), 'Analyst 0', 'gpt-4o-mini', '—']);
    expect(rows()[0]).toHaveClass('ant-table-row-selected');
  });

  it('renders the report as Markdown and never turns HTML in it into elements', async () => {
    const text = [
      '# Quarterly Overview',
      '',
      '- 3 records',
      '- 1 international case',
      '',
      '| Agency | Links |',
      '| --- | ---: |',
      '| FIA | 2 |',
      '',
      '<img src=x onerror="window.__xss = 1">',
      '',
      'Inline <script>window.__xss = 2</script> script and [a link](javascript:alert(1)).',
      '',
      '<div onclick="window.__xss = 3">a block</div>',
      '',
      '![a tracking pixel](https://tracker.example/pixel.png)',
    ].join('\n');
    completedWith(storedReport(0, { report: text }));
    await generate();
    expect(await screen.findByRole('heading', { name: 'Generated Report' })).toBeInTheDocument();
    const body = reportText();
    expect(await within(body).findByRole('heading', { name: 'Quarterly Overview', level: 1 })).toBeInTheDocument();
    expect(
      within(body)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['3 records', '1 international case']);
    expect(within(body).getByRole('table')).toBeInTheDocument();
    expect(within(body).getByRole('cell', { name: '2' })).toBeInTheDocument();
    // The HTML stays text: visible as written, no element made of it.
    expect(body.querySelector('img, script, div[onclick], [onerror]')).toBeNull();
    expect(body).toHaveTextContent('<img src=x onerror="window.__xss = 1">');
    expect(body).toHaveTextContent('<script>window.__xss = 2</script>');
    expect(body).toHaveTextContent('<div onclick="window.__xss = 3">a block</div>');
    expect((window as unknown as { __xss?: number }).__xss).toBeUndefined();
    // A javascript: link loses its target.
    const link = within(body).getByText('a link').closest('a');
    expect(link?.getAttribute('href') ?? '').not.toMatch(/javascript/i);
  });

  it('says plainly when the report was written from a template, no AI model configured', async () => {
    const made = storedReport(0, {
      model: TEMPLATE_MODEL,
      report: 'Written from a template: no AI model is configured.\n\n## Figures',
    });
    completedWith(made);
    await generate();
    expect(await screen.findByTestId('report-meta')).toHaveTextContent(
      `Written from a template (no AI model is configured) · ${formatDateTime(made.createdAt)}`,
    );
    expect(screen.getByTestId('report-meta')).not.toHaveTextContent('AI model template');
  });

  it('shows the failure toast when the job fails, with the reason, and no report', async () => {
    job = jobAt('failed', { error: 'The figures could not be collected.' });
    await generate();
    await waitFor(() => expect(toastText('Failed to generate report')).toBeDefined());
    expect(toastText('Failed to generate report')?.textContent).toContain('Error');
    expect(await screen.findByText('The figures could not be collected.')).toBeInTheDocument();
    expect(toastText('Report generated successfully')).toBeUndefined();
    expect(screen.queryByRole('heading', { name: 'Generated Report' })).toBeNull();
    expect(button('Generate Report')).toBeEnabled();
    expect(screen.queryByText(REPORT_TEXTS.runningDetail)).toBeNull();
  });

  it('shows the failure toast when the request answers 500, and asks about no job', async () => {
    started = { status: 500, body: { message: 'Internal error', code: 'INTERNAL' } };
    await generate();
    await waitFor(() => expect(toastText('Failed to generate report')).toBeDefined());
    expect(toastText('Failed to generate report')?.textContent).toContain('Error');
    expect(button('Generate Report')).toBeEnabled();
    expect(calls.some((c) => c.url.startsWith('/api/reports/jobs/'))).toBe(false);
    expect(screen.queryByRole('heading', { name: 'Generated Report' })).toBeNull();
  });

  it('shows the failure toast when the job cannot be read (404)', async () => {
    job = { status: 404, body: { message: 'Job not found', code: 'NOT_FOUND' } };
    await generate();
    await waitFor(() => expect(toastText('Failed to generate report')).toBeDefined());
    expect(calls.filter((c) => c.url === '/api/reports/jobs/job-1')).toHaveLength(1); // a refusal is not retried
    expect(button('Generate Report')).toBeEnabled();
  });

  it('takes at most 2,000 characters of parameters', async () => {
    completedWith(storedReport(0));
    const user = userEvent.setup();
    renderScreen(<GenerateReport />);
    const box = screen.getByLabelText('Parameters (optional)');
    await user.click(box);
    await user.paste('a'.repeat(REPORT_PARAMETERS_MAX - 1));
    await user.type(box, 'bcd');
    expect((box as HTMLTextAreaElement).value).toHaveLength(REPORT_PARAMETERS_MAX);
    expect((box as HTMLTextAreaElement).value.endsWith('ab')).toBe(true);
    expect(screen.getByTestId('generate-report')).toHaveTextContent('2,000 / 2,000');
    await user.click(button('Generate Report'));
    await waitFor(() => expect(toastText('Report generated successfully')).toBeDefined());
    const sent = JSON.parse(calls.find((c) => c.method === 'POST')?.body ?? '') as { parameters: string };
    expect(sent.parameters).toHaveLength(REPORT_PARAMETERS_MAX);
  });

  it('lists the agency’s earlier reports newest first, by page, and opens one when clicked', async () => {
    stored = Array.from({ length: 12 }, (_, i) => storedReport(i + 1));
    const user = userEvent.setup();
    renderScreen(<GenerateReport />);
    await waitFor(() => expect(rows()).toHaveLength(REPORTS_PAGE_SIZE));
    expect(cellsOf(rows()[0] as Element)).toEqual([
      formatDateTime(stored[0]?.createdAt),
      'Analyst 1',
      'gpt-test',
      'Parameters 1',
    ]);
    expect(rows().map((r) => r.children[1]?.textContent)).toEqual(stored.slice(0, 10).map((r) => r.createdBy.name));

    await user.click(screen.getByTitle('2'));
    await waitFor(() => expect(rows().map((r) => r.children[1]?.textContent)).toEqual(['Analyst 11', 'Analyst 12']));
    expect(calls.map((c) => c.url)).toContain(`/api/reports?limit=${REPORTS_PAGE_SIZE}&offset=10`);

    await user.click(within(rows()[0] as HTMLElement).getByText('Analyst 11'));
    expect(
      await within(await screen.findByTestId('report-text')).findByRole('heading', { name: 'Report 11', level: 1 }),
    ).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Generated Report' })).toBeInTheDocument();
    expect(reportText()).toHaveTextContent('Body of report 11.');
    expect(screen.getByTestId('report-meta')).toHaveTextContent(
      `Written by the AI model gpt-test · ${formatDateTime(stored[10]?.createdAt)} · Requested by Analyst 11`,
    );
    expect(screen.getByTestId('report-parameters')).toHaveTextContent('Parameters: Parameters 11');
    expect(screen.getByRole('link', { name: 'Download Markdown' })).toHaveAttribute(
      'href',
      '/api/reports/r-11/markdown',
    );
    expect(calls.map((c) => `${c.method} ${c.url}`)).toContain('GET /api/reports/r-11');
    expect(rows()[0]).toHaveClass('ant-table-row-selected');

    await user.click(within(rows()[1] as HTMLElement).getByText('Analyst 12'));
    expect(
      await within(await screen.findByTestId('report-text')).findByRole('heading', { name: 'Report 12', level: 1 }),
    ).toBeInTheDocument();
    expect(screen.queryByTestId('report-parameters')).toBeNull();
  });
});
