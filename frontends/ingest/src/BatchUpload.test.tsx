import type { CaseRecord } from '@nrad/contracts';
import { spawnStack } from '@nrad/gateway/spawn-stack';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import * as XLSX from 'xlsx';
import { incidentNumber } from '../../shared/test/records-api.ts';
import { openAt, renderScreen, signedInAs, toastText } from '../../shared/test/render.tsx';
import BatchUpload, { jobUrl, sizeInKb, TEMPLATE_URL, TEXTS } from './BatchUpload.tsx';

beforeAll(async () => {
  const { url } = await spawnStack();
  openAt(`${url}/batch-upload`);
  await signedInAs('BPS');
});

/** The template's header (Records sheet, row 1), read from the gateway as the page's user. */
async function templateHeader(): Promise<string[]> {
  const response = await fetch(TEMPLATE_URL, { credentials: 'include' });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-disposition')).toBe('attachment; filename="nrad-records-template.xlsx"');
  const book = XLSX.read(new Uint8Array(await response.arrayBuffer()), { type: 'array' });
  const sheet = book.Sheets[book.SheetNames[0] as string] as XLSX.WorkSheet;
  return (XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1 })[0] ?? []) as string[];
}

/** A valid row by the template's titles; `fields` override some. */
function row(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'Incident Number': incidentNumber('UPL'),
    'Suspect Name': 'Ulla Uploaded',
    'Suspect Date of Birth': '1979-04-05',
    'Incident Date': '2024-03-02',
    'Case Amount': 2500,
    'Seized Amount': 0,
    'Confiscated Amount': 0,
    'Source of Record': 'Police Investigation',
    'International Nexus': 'No',
    'Cyber-Assisted': 'No',
    Country: 'Bermuda',
    ...fields,
  };
}

/** An .xlsx File of these rows under the template's header. */
function workbookFile(header: string[], rows: Array<Record<string, unknown>>, name = 'incidents.xlsx'): File {
  const book = XLSX.utils.book_new();
  const sheet = XLSX.utils.aoa_to_sheet([header, ...rows.map((r) => header.map((h) => r[h] ?? ''))]);
  XLSX.utils.book_append_sheet(book, sheet, 'Records');
  const bytes = XLSX.write(book, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer;
  return new File([bytes], name, { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' });
}

/**
 * Watches the page's calls (method and path with query), holding those `held` names until
 * released; the calls themselves go to the real gateway.
 */
function watchFetch(held?: (call: string) => boolean) {
  const original = globalThis.fetch;
  const calls: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input instanceof Request ? input.url : input), window.location.href);
    const call = `${init?.method ?? 'GET'} ${url.pathname}${url.search}`;
    calls.push(call);
    if (held?.(call)) await gate;
    return original(input, init);
  }) as typeof fetch;
  return {
    calls,
    release: () => release(),
    restore: () => {
      globalThis.fetch = original;
    },
  };
}

async function shown() {
  const user = userEvent.setup({ applyAccept: false });
  renderScreen(<BatchUpload />);
  await screen.findByRole('heading', { name: 'Batch Upload' });
  return user;
}

/** The toast with this title and description. */
const toastOf = (title: string, description: string) =>
  waitFor(() => {
    const notice = toastText(description);
    expect(notice?.textContent).toContain(title);
  });

/** Total Records, Successful and Errors as the results card shows them. */
const counts = () =>
  Object.fromEntries(
    ['Total Records', 'Successful', 'Errors'].map((label) => [
      label,
      within(screen.getByTestId(`count-${label}`)).getByRole('definition').textContent,
    ]),
  );

const rowLines = () => [...screen.getByTestId('row-errors').querySelectorAll('li')].map((li) => li.textContent);

async function found(number: string): Promise<CaseRecord[]> {
  const response = await fetch('/api/records/search', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ incidentNumber: number }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as CaseRecord[];
}

describe('Batch Upload', () => {
  it('offers the template, a labelled .xlsx/.xls picker and Upload Records', async () => {
    await shown();
    const template = screen.getByRole('link', { name: 'Download Template' });
    expect(template).toHaveAttribute('href', '/api/records/template');
    expect(template).toHaveAttribute('download', 'nrad-records-template.xlsx');
    // The link's target answers the template to the signed-in user (the session cookie goes along).
    expect(await templateHeader()).toEqual(expect.arrayContaining(['Incident Number', 'Suspect Date of Birth']));
    const picker = screen.getByLabelText('Excel File');
    expect(picker).toHaveAttribute('type', 'file');
    expect(picker).toHaveAttribute('accept', '.xlsx,.xls');
    expect(screen.getByRole('button', { name: 'Upload Records' })).toBeEnabled();
    expect(screen.queryByTestId('upload-results')).toBeNull();
  });

  it('says No File Selected when nothing is chosen, and sends nothing', async () => {
    const user = await shown();
    const watch = watchFetch();
    try {
      await user.click(screen.getByRole('button', { name: 'Upload Records' }));
      await toastOf(...TEXTS.noFile);
    } finally {
      watch.restore();
    }
    expect(watch.calls).toEqual([]);
  });

  it('refuses a file that is not .xlsx or .xls: Invalid File Type, and nothing is chosen', async () => {
    const user = await shown();
    const watch = watchFetch();
    try {
      await user.upload(screen.getByLabelText('Excel File'), new File(['a,b\n1,2'], 'incidents.csv'));
      await toastOf('Invalid File Type', 'Please select an Excel file (.xlsx or .xls)');
      expect(screen.queryByTestId('chosen-file')).toBeNull();
      await user.click(screen.getByRole('button', { name: 'Upload Records' }));
      await toastOf(...TEXTS.noFile);
    } finally {
      watch.restore();
    }
    expect(watch.calls).toEqual([]);
  });

  it('uploads three rows, one bad: processing with its progress bar, then 3 / 2 / 1, the row and the toast', async () => {
    const user = await shown();
    const header = await templateHeader();
    const [first, second] = [row(), row({ 'Suspect Name': 'Vera Uploaded' })];
    const bad = row({ 'Suspect Date of Birth': '2024-06-01' }); // after its incident date
    const file = workbookFile(header, [first, bad, second]);

    await user.upload(screen.getByLabelText('Excel File'), file);
    expect(screen.getByTestId('chosen-file')).toHaveTextContent(`Selected: incidents.xlsx (${sizeInKb(file.size)})`);
    expect(sizeInKb(file.size)).toMatch(/^\d+\.\d\d KB$/);

    const watch = watchFetch((call) => call.startsWith('POST '));
    try {
      await user.click(screen.getByRole('button', { name: 'Upload Records' }));
      // The upload is held at the page's fetch: the screen is busy meanwhile.
      const status = await screen.findByRole('status');
      expect(status).toHaveTextContent(TEXTS.processing);
      expect(within(status).getByRole('progressbar', { name: 'Rows processed' })).toBeInTheDocument();
      expect(screen.getByLabelText('Excel File')).toBeDisabled();
      watch.release();
      await toastOf('Upload Complete', 'Successfully uploaded 2 of 3 records.');
    } finally {
      watch.restore();
    }
    expect(screen.queryByText(TEXTS.processing)).toBeNull();
    // One upload (answered at once with a job), then the job read until it ended.
    const [post, ...reads] = watch.calls;
    expect(post).toBe('POST /api/records/batch-upload?async=1');
    expect(reads.length).toBeGreaterThan(0);
    const jobPath = reads[0] as string;
    expect(jobPath).toMatch(/^GET \/api\/ingest\/jobs\/[^/?]+$/);
    expect(reads.every((c) => c === jobPath)).toBe(true);

    const results = screen.getByTestId('upload-results');
    expect(counts()).toEqual({ 'Total Records': '3', Successful: '2', Errors: '1' });
    expect(rowLines()).toEqual(['Row 3, suspectDob: must be before the incident date']);
    const list = screen.getByTestId('row-errors');
    expect(list.style.maxHeight).toBe('15rem');
    expect(list.style.overflow).toBe('auto');
    expect(within(results).getByRole('alert')).toHaveTextContent('Successfully uploaded 2 of 3 records.');

    // The two good rows are records of the agency now; the bad one is not.
    for (const r of [first, second]) {
      const records = await found(r['Incident Number'] as string);
      expect(records.map((x) => [x.suspectName, x.organization])).toEqual([[r['Suspect Name'], 'BPS']]);
    }
    expect(await found(bad['Incident Number'] as string)).toEqual([]);

    // The job the screen read answers the same result.
    const job = await (await fetch(jobUrl(jobPath.split('/').pop() as string))).json();
    expect(job).toMatchObject({ state: 'completed', processedRows: 3, totalRows: 3 });
  });

  it('says Upload Failed with the errors when no row could be added, and the reason in the card', async () => {
    const user = await shown();
    const header = await templateHeader();
    const taken = row();
    const file = workbookFile(header, [
      taken,
      row({ 'Incident Number': taken['Incident Number'], 'Case Amount': 'x' }),
    ]);
    // The first row is added by an earlier upload: the same file again adds nothing.
    await user.upload(screen.getByLabelText('Excel File'), file);
    await user.click(screen.getByRole('button', { name: 'Upload Records' }));
    await toastOf('Upload Complete', 'Successfully uploaded 1 of 2 records.');
    await user.click(screen.getByRole('button', { name: 'Upload Records' }));
    await toastOf(...TEXTS.failedRows);
    expect(counts()).toEqual({ 'Total Records': '2', Successful: '0', Errors: '2' });
    expect(rowLines()).toContain('Row 2, incidentNumber: Incident number already exists');
    expect(rowLines().filter((l) => l?.startsWith('Row 3, '))).not.toEqual([]);
    const note = within(screen.getByTestId('upload-results')).getByRole('alert');
    expect(note).toHaveTextContent('No records were uploaded: every row has errors.');
    expect(note).not.toHaveTextContent('Successfully uploaded');
  });

  it('shows a refusal of the server as Upload Failed / its message', async () => {
    const user = await shown();
    await user.upload(screen.getByLabelText('Excel File'), new File(['not a workbook'], 'looks-right.xlsx'));
    await user.click(screen.getByRole('button', { name: 'Upload Records' }));
    await toastOf('Upload Failed', 'The file is named .xlsx but its content is not an Excel .xlsx workbook.');
    expect(screen.queryByTestId('upload-results')).toBeNull();
    expect(screen.queryByText(TEXTS.processing)).toBeNull();
    expect(screen.getByRole('button', { name: 'Upload Records' })).toBeEnabled();
  });
});
