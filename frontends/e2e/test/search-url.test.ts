/**
 * Search Records keeps its search in the address, in Chromium against the real system: a search's
 * filters go into /search?…; Back from a record opened from the results shows the same filters and
 * the same rows; the address reloaded, opened in a new page, or sent to a colleague runs the same
 * search again.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { register, shot, signIn, toast } from './helpers.ts';
import { newPerson, startWebStack, type WebStack } from './web-stack.ts';

let web: WebStack;
const police = newPerson('BPS');
const colleague = newPerson('BPS');
const stamp = `URL${Date.now().toString(36).toUpperCase()}`;
const filtersQuery = `freeText=${stamp}&crimeType=Fraud&cyberAssisted=true`;
const filtersBody = { freeText: stamp, crimeType: 'Fraud', cyberAssisted: true };

beforeAll(async () => {
  web = await startWebStack();
  const { page } = await web.page();
  for (const person of [police, colleague]) {
    await register(page, person);
    await page.waitForURL('**/login');
  }
});

async function signedIn(person: ReturnType<typeof newPerson>) {
  const opened = await web.page();
  await opened.page.goto('/login');
  await signIn(opened.page, person.email, person.password);
  await opened.page.waitForURL((url) => url.pathname === '/');
  return opened;
}

/** Creates a police record through the API, as the page's user. */
async function createRecord(page: Page, n: number, fields: Record<string, unknown>) {
  const created = await page.request.post('/api/records', {
    headers: { origin: new URL(page.url()).origin },
    data: {
      incidentNumber: `${stamp}-${n}`,
      suspectName: `Search Person ${n}`,
      suspectDob: `1975-06-0${n}`,
      incidentDate: '2024-05-06',
      caseAmount: '100',
      seizedAmount: '0',
      confiscatedAmount: '0',
      sourceOfRecord: 'Police Investigation',
      internationalNexus: false,
      country: 'Bermuda',
      cyberAssisted: true,
      crimeType: 'Fraud',
      additionalInfo: `Case ${stamp}`,
      ...fields,
    },
  });
  expect(created.status()).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

/** The incident numbers of the rows shown, in order, once the results title gives their count. */
async function shownRows(page: Page, count: number) {
  await page.getByText(`Results (${count})`).waitFor();
  return page.locator('tbody tr.ant-table-row').evaluateAll((rows) => rows.map((r) => r.children[0]?.textContent));
}

/** What the form shows for the filters of this test. */
async function shownFilters(page: Page) {
  return {
    freeText: await page.getByLabel('Free Text Search').inputValue(),
    crimeType: (
      await page
        .locator('.ant-select')
        .filter({ has: page.getByLabel('Crime Type') })
        .locator('.ant-select-content')
        .innerText()
    ).trim(),
    cyberAssisted: await page.getByLabel('Cyber-Assisted').isChecked(),
    suspectName: await page.getByLabel('Suspect Name').inputValue(),
  };
}

const filled = { freeText: stamp, crimeType: 'Fraud', cyberAssisted: true, suspectName: '' };

/** The body of the next search request the page makes (started before what makes it). */
const nextSearchBody = (page: Page) =>
  page
    .waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/records/search')
    .then((r) => r.postDataJSON() as unknown);

describe('a search in the address', () => {
  let found: Array<string | undefined> = [];
  let opened = '';

  it('survives opening a record and Back', async () => {
    const { page } = await signedIn(police);
    // Found: Fraud, cyber-assisted, the stamp in the text. Not found: one of each of those missing.
    const first = await createRecord(page, 1, {});
    await createRecord(page, 2, {});
    await createRecord(page, 3, { cyberAssisted: false });
    await createRecord(page, 4, { crimeType: 'Drugs' });
    await createRecord(page, 5, { additionalInfo: 'Another case', incidentNumber: `OTHER-${Date.now().toString(36)}` });

    await page.getByRole('link', { name: 'Search' }).click();
    await page.getByRole('heading', { name: 'Search Records' }).waitFor();
    expect(new URL(page.url()).search).toBe('');
    await page.getByLabel('Free Text Search').fill(stamp);
    // The crime type by keyboard: typing narrows the list to the one type, Enter takes it.
    await page.getByLabel('Crime Type').click();
    await page.getByLabel('Crime Type').fill('Fraud');
    await page.locator('.ant-select-dropdown .ant-select-item-option[title="Fraud"]').waitFor();
    await page.getByLabel('Crime Type').press('Enter');
    await page.locator('.ant-select-content', { hasText: /^Fraud$/ }).waitFor();
    await page.getByLabel('Cyber-Assisted').check();
    const pressed = nextSearchBody(page);
    await page.getByRole('button', { name: 'Search' }).click();
    expect(await pressed).toEqual(filtersBody);
    await toast(page, 'Found 2 records.').waitFor();
    found = await shownRows(page, 2);
    expect([...found].sort()).toEqual([`${stamp}-1`, `${stamp}-2`]);
    await page.waitForURL((url) => url.pathname === '/search' && url.search === `?${filtersQuery}`);
    opened = page.url();
    await shot(page, 'search-url');

    await page.getByRole('cell', { name: `${stamp}-1` }).click();
    await page.waitForURL((url) => url.pathname === `/record/${first}`);
    await page.getByText('Basic Information').waitFor();

    await page.goBack();
    await page.waitForURL(opened);
    await page.getByRole('heading', { name: 'Search Records' }).waitFor();
    expect(await shownRows(page, 2)).toEqual(found);
    expect(await shownFilters(page)).toEqual(filled);
    await shot(page, 'search-url-back');
  });

  it('runs again when the address is reloaded, opened in a new page, or sent to a colleague', async () => {
    const { page, context } = await signedIn(police);
    await page.goto(opened);
    expect(await shownRows(page, 2)).toEqual(found);
    const reloaded = nextSearchBody(page);
    await page.reload();
    expect(await reloaded).toEqual(filtersBody);
    expect(await shownRows(page, 2)).toEqual(found);
    expect(await shownFilters(page)).toEqual(filled);

    const bookmark = await context.newPage();
    const asked = nextSearchBody(bookmark);
    await bookmark.goto(opened);
    expect(await asked).toEqual(filtersBody);
    expect(await shownRows(bookmark, 2)).toEqual(found);
    expect(await shownFilters(bookmark)).toEqual(filled);
    expect(new URL(bookmark.url()).search).toBe(`?${filtersQuery}`);

    // A colleague of the same agency signs in and opens the link.
    const other = (await signedIn(colleague)).page;
    await other.goto(opened);
    expect(await shownRows(other, 2)).toEqual(found);
    expect(await shownFilters(other)).toEqual(filled);

    // Clear: plain /search, an empty form, no results.
    await other.locator('button', { hasText: /^Clear$/ }).click();
    await other.waitForURL((url) => url.pathname === '/search' && url.search === '');
    await other.getByText('No records found. Use the search filters above to find records.').waitFor();
    expect(await shownFilters(other)).toEqual({
      freeText: '',
      crimeType: 'Any crime type',
      cyberAssisted: false,
      suspectName: '',
    });
  });
});
