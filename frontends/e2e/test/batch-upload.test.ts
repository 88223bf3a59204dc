/**
 * Batch Upload in Chromium against the real system (issue 17): FIA has recorded a suspect; a police
 * user downloads the template through Download Template, fills three rows into it with SheetJS (one
 * bad, one about FIA's suspect), uploads it through the file chooser, watches "Processing your
 * file..." and the results card (3 / 2 / 1 and the bad row), finds the two new records in Search,
 * and the one about FIA's suspect is linked to FIA's record across agencies.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as XLSX from 'xlsx';
import { hold, registerAll, shot, signedIn as signedInAs, toast } from './helpers.ts';
import { newPerson, startWebStack, type WebStack } from './web-stack.ts';

let web: WebStack;
const police = newPerson('BPS');
const intelligence = newPerson('FIA');
const stamp = Date.now().toString(36).toUpperCase();
const files = mkdtempSync(path.join(tmpdir(), 'nrad-batch-upload-'));
afterAll(() => rmSync(files, { recursive: true, force: true }));

/** The suspect both agencies record: the same name, date of birth, incident date and amount. */
const suspect = {
  suspectName: 'Philippa Wadson-Outerbridge',
  suspectDob: '1969-11-23',
  incidentDate: '2025-02-17',
  caseAmount: '48250',
};

beforeAll(async () => {
  web = await startWebStack();
  await registerAll(web, [police, intelligence]);
});

const signedIn = (person: ReturnType<typeof newPerson>) => signedInAs(web, person);

/** The page user's records whose incident number starts with `prefix`, through the API. */
async function recordsFound(page: Page, prefix: string) {
  const response = await page.request.post('/api/records/search', {
    headers: { origin: new URL(page.url()).origin },
    data: { incidentNumber: prefix },
  });
  expect(response.status()).toBe(200);
  return (await response.json()) as Array<{ id: string; incidentNumber: string; linked: boolean }>;
}

describe('batch upload', () => {
  it('downloads the template, uploads three rows (one bad), finds the two records in Search, one linked to FIA', async () => {
    // FIA's record of the suspect, made before the upload.
    const fia = await signedIn(intelligence);
    const created = await fia.request.post('/api/records', {
      headers: { origin: new URL(fia.url()).origin },
      data: {
        ...suspect,
        incidentNumber: `FIA-${stamp}-1`,
        seizedAmount: '0',
        confiscatedAmount: '0',
        sourceOfRecord: 'Police Investigation',
        internationalNexus: false,
        cyberAssisted: false,
        country: 'Bermuda',
        crimeType: 'Fraud',
        additionalInfo: 'Reported by the bank.',
      },
    });
    expect(created.status()).toBe(201);

    const page = await signedIn(police);
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Batch Upload' }).click();
    await page.getByRole('heading', { name: 'Batch Upload' }).waitFor();

    // Download Template: the browser downloads the workbook with the user's session.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download Template' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('nrad-records-template.xlsx');
    const template = XLSX.read(readFileSync(await download.path()), { type: 'buffer' });
    expect(template.SheetNames).toEqual(['Records', 'Allowed Values']);
    const records = template.Sheets.Records as XLSX.WorkSheet;
    const [header, example] = XLSX.utils.sheet_to_json<unknown[]>(records, { header: 1, raw: true }) as unknown[][];
    const titles = header as string[];

    // Three rows from the template's own example row: FIA's suspect, another suspect, and a bad row
    // (its date of birth after its incident date) between them — spreadsheet row 3.
    const fill = (fields: Record<string, unknown>) =>
      titles.map((title, c) => (title in fields ? fields[title] : (example as unknown[])[c]));
    const rows = [
      fill({
        'Incident Number': `BATCH-${stamp}-1`,
        'Suspect Name': suspect.suspectName,
        'Suspect Date of Birth': suspect.suspectDob,
        'Incident Date': suspect.incidentDate,
        'Case Amount': Number(suspect.caseAmount),
        'Additional Information': 'Uploaded from a spreadsheet.',
      }),
      fill({
        'Incident Number': `BATCH-${stamp}-2`,
        'Suspect Name': 'Bad Row Person',
        'Suspect Date of Birth': '2025-03-01',
        'Incident Date': '2025-01-15',
      }),
      fill({ 'Incident Number': `BATCH-${stamp}-3`, 'Suspect Name': 'Cornelius Spreadsheet' }),
    ];
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([titles, ...rows]), 'Records');
    const file = path.join(files, 'police-incidents.xlsx');
    writeFileSync(file, XLSX.write(book, { type: 'buffer', bookType: 'xlsx' }) as Buffer);

    // Choose it through the file chooser: its name and size show.
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByLabel('Excel File').click()]);
    expect(chooser.isMultiple()).toBe(false);
    await chooser.setFiles(file);
    const kb = `${(readFileSync(file).length / 1024).toFixed(2)} KB`;
    await page.getByText(`Selected: police-incidents.xlsx (${kb})`).waitFor();

    // Upload: held at the browser until "Processing your file..." and its bar are seen.
    const upload = await hold(page, '**/api/records/batch-upload*');
    await page.getByRole('button', { name: 'Upload Records' }).click();
    const status = page.getByRole('status').filter({ hasText: 'Processing your file...' });
    await status.waitFor();
    await status.getByRole('progressbar', { name: 'Rows processed' }).waitFor();
    await upload.release();

    await toast(page, 'Successfully uploaded 2 of 3 records.').waitFor();
    expect(await toast(page, 'Successfully uploaded 2 of 3 records.').textContent()).toContain('Upload Complete');
    const results = page.getByTestId('upload-results');
    await results.waitFor();
    const count = (label: string) => results.getByTestId(`count-${label}`).locator('dd').textContent();
    expect([await count('Total Records'), await count('Successful'), await count('Errors')]).toEqual(['3', '2', '1']);
    expect(await results.getByTestId('row-errors').locator('li').allTextContents()).toEqual([
      'Row 3, suspectDob: must be before the incident date',
    ]);
    expect(await page.getByText('Processing your file...').count()).toBe(0);
    await shot(page, 'batch-upload-results');

    // NRAD links the uploaded record about FIA's suspect by itself: wait until the record says so.
    const until = Date.now() + 30_000;
    for (;;) {
      const linked = (await recordsFound(page, `BATCH-${stamp}-1`))[0]?.linked;
      if (linked) break;
      if (Date.now() > until) throw new Error(`BATCH-${stamp}-1 was not linked within 30 s`);
      await page.waitForTimeout(250);
    }

    // Search finds the two records made, not the bad row; the one about FIA's suspect is Linked.
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Search' }).click();
    await page.getByRole('heading', { name: 'Search Records' }).waitFor();
    await page.getByLabel('Incident Number').fill(`BATCH-${stamp}`);
    await page.getByRole('button', { name: 'Search' }).click();
    await toast(page, 'Found 2 records.').waitFor();
    await page.getByText('Results (2)').waitFor();
    const numbers = await page
      .locator('tbody tr.ant-table-row')
      .evaluateAll((trs) => trs.map((tr) => tr.children[0]?.textContent));
    expect([...numbers].sort()).toEqual([`BATCH-${stamp}-1`, `BATCH-${stamp}-3`]);
    const linkedRow = page.getByRole('row').filter({ hasText: `BATCH-${stamp}-1` });
    await linkedRow.getByText('Linked').waitFor();
    const otherRow = page.getByRole('row').filter({ hasText: `BATCH-${stamp}-3` });
    expect(await otherRow.locator('td').nth(7).textContent()).toBe('No');
    await shot(page, 'batch-upload-search');

    // Its details name the agency it is linked with, and the journey shows FIA's record.
    await linkedRow.getByText(suspect.suspectName).click();
    await page.waitForURL('**/record/*');
    await page.getByTestId('linked-organizations').getByText('FIA').waitFor();
    const journey = page.getByTestId('record-journey');
    await journey.waitFor();
    expect(await journey.getByTitle('Financial Intelligence Agency').count()).toBe(1);
  });
});
