/**
 * The record screens in Chromium against the real system, two agencies side by side (issue 6):
 * BPS records an incident; FIA records the same suspect (a typo in the name) as a NAMLC referral,
 * checks for matches in the Bermuda Police Service, sees the match and why, saves, sees the match
 * Linked by NRAD itself (nothing left for Link Records, no false success), and the Record Journey
 * shows both agencies, the police record as text FIA may not open; edit; delete; Deleted Records;
 * restore; search; another agency's record is Record Not Found; dates are the same day in every
 * time zone; FIA rejects the link with a reason, the police no longer see it, ADMIN sees why and
 * restores it (issue 34).
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { register, shot, signIn, toast } from './helpers.ts';
import { ADMIN, newPerson, startWebStack, type WebStack } from './web-stack.ts';

let web: WebStack;
const bps = newPerson('BPS');
const fia = newPerson('FIA');
const cus = newPerson('CUS');
const stamp = Date.now().toString(36).toUpperCase();

beforeAll(async () => {
  web = await startWebStack();
  const { page } = await web.page();
  for (const person of [bps, fia, cus]) {
    await register(page, person);
    await page.waitForURL('**/login');
  }
});

async function signedIn(
  person: Pick<ReturnType<typeof newPerson>, 'email' | 'password'>,
  options: { timezoneId?: string } = {},
): Promise<Page> {
  const { page } = await web.page(options);
  await page.goto('/login');
  await signIn(page, person.email, person.password);
  await page.waitForURL((url) => url.pathname === '/');
  return page;
}

/**
 * Chooses an option of an antd Select by its label, and makes sure it took: the list may still be
 * opening (or its options loading) when the option is first clicked.
 */
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Waits for the page's finite animations to end or be cancelled (a spinner's never end): a click on a dialog's
 * button while the dialog is still zooming in can be lost on a loaded machine (CI lost a Restore).
 */
async function animationsDone(page: Page) {
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a.effect?.getTiming().iterations !== Number.POSITIVE_INFINITY)
        // A cancelled animation (its element gone, or its style changed) has ended too: its
        // `finished` rejects with an AbortError.
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
}

async function choose(page: Page, label: string, option: string) {
  const box = page.getByLabel(label, { exact: true });
  const select = page.locator('.ant-select').filter({ has: box });
  for (let attempt = 0; attempt < 5; attempt++) {
    await box.click();
    // The list is virtual (only what is in view exists): narrow it to the option first.
    if (await box.isEditable()) await box.fill(option);
    const item = page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: option });
    await item.first().waitFor();
    await page.waitForTimeout(150); // the opening animation
    await item.first().click();
    // What the closed select shows (antd 6: the chosen label is the text of `.ant-select-content`).
    const shown = select.locator('.ant-select-content', { hasText: new RegExp(`^${escapeRegExp(option)}$`) });
    if (
      await shown.waitFor({ timeout: 2_000 }).then(
        () => true,
        () => false,
      )
    )
      return;
  }
  throw new Error(`could not choose ${option} in ${label}`);
}

async function fillRecord(
  page: Page,
  r: { incidentNumber: string; suspectName: string; dob: string; incidentDate: string; caseAmount: string },
) {
  await page.getByLabel('Incident Number').fill(r.incidentNumber);
  await page.getByLabel('Suspect Name').fill(r.suspectName);
  await page.getByLabel('Suspect Date of Birth').fill(r.dob);
  await page.getByLabel('Incident Date').fill(r.incidentDate);
  await page.getByLabel('Case Amount').fill(r.caseAmount);
}

describe('records in two agencies', () => {
  let bpsRecordUrl = '';
  let fiaRecordUrl = '';

  it('BPS records an incident', async () => {
    const page = await signedIn(bps);
    await page.getByRole('link', { name: 'Add Record' }).click();
    await page.getByRole('heading', { name: 'Add New Record' }).waitFor();
    await shot(page, 'add-record');
    await fillRecord(page, {
      incidentNumber: `BPS-${stamp}-1`,
      suspectName: 'Desmond Outerbridge',
      dob: '1977-08-21',
      incidentDate: '2025-02-14',
      caseAmount: '12500',
    });
    await page.getByLabel('Seized Amount').fill('2000.5');
    await choose(page, 'Source of Record', 'Police Investigation');
    await page.getByRole('radio', { name: 'Fraud' }).check();
    await choose(page, 'Crime Subtype', 'Investment Fraud/Scams');
    await page.getByLabel('Case Information').fill('Funds moved through three shell companies.');
    await page.getByRole('button', { name: 'Save Record' }).click();
    await toast(page, 'Record created successfully').waitFor();
    // No matches were checked: the form starts again.
    expect(await page.getByLabel('Incident Number').inputValue()).toBe('');
  });

  it('FIA finds the same suspect in the police records, saves, sees it Linked, and the journey as text', async () => {
    const page = await signedIn(fia);
    await page.goto('/records');
    await page.getByRole('heading', { name: 'Add New Record' }).waitFor();
    await fillRecord(page, {
      incidentNumber: `FIA-${stamp}-1`,
      suspectName: 'OUTERBRIDGE, Desmund',
      dob: '1977-08-21',
      incidentDate: '2025-02-15',
      caseAmount: '12500',
    });
    await choose(page, 'Source of Record', 'Referral from NAMLC organization');
    await page.getByRole('button', { name: 'Check for Potential Matches' }).click();
    await toast(
      page,
      'Please fill in NAMLC Organization, Suspect Name, Suspect DOB, Incident Date, and Case Amount to check for matches',
    ).waitFor();
    await choose(page, 'NAMLC Organization', 'Bermuda Police Service');
    await page.getByRole('button', { name: 'Check for Potential Matches' }).click();
    await toast(page, 'Found 1 potential matching record(s) in Bermuda Police Service').waitFor();
    const panel = page.getByTestId('match-panel');
    await panel.getByText('Found 1 Potential Match(es)').waitFor();
    await panel.getByText(`BPS-${stamp}-1`).waitFor();
    await panel.getByText('Desmond Outerbridge').waitFor();
    await panel.getByText('08/21/1977').waitFor();
    await panel.getByText('$12,500.00').waitFor();
    await panel.getByText(/% match$/).waitFor();
    await panel.getByText('Create record first to enable linking').waitFor();
    await panel.getByRole('button', { name: 'Why?' }).click();
    await panel.getByText('Suspect name').waitFor();
    await shot(page, 'add-record-matches');

    await page.getByRole('button', { name: 'Save Record' }).click();
    await toast(page, 'Record created successfully').waitFor();
    // Matches present: the form stays. NRAD links the look-alike suspects of the two agencies by
    // itself: the card says Linked, Link Records has nothing left to do, and no toast claims a link.
    expect(await page.getByLabel('Incident Number').inputValue()).toBe(`FIA-${stamp}-1`);
    await panel.getByTestId('match').getByText('Linked', { exact: true }).waitFor({ timeout: 15_000 });
    expect(await panel.getByRole('button', { name: 'Link Records' }).isDisabled()).toBe(true);
    await panel.getByText('Already linked', { exact: true }).waitFor();
    await panel.getByText(`BPS-${stamp}-1 was already linked to FIA-${stamp}-1`, { exact: false }).waitFor();
    expect(await toast(page, 'Records linked successfully').count()).toBe(0);
    await shot(page, 'add-record-linked');

    // Find it and open its details.
    await page.goto('/search');
    await page.getByLabel('Incident Number').fill(`FIA-${stamp}-1`);
    await page.getByRole('button', { name: 'Search' }).click();
    await toast(page, 'Found 1 records.').waitFor();
    await page.getByRole('cell', { name: `FIA-${stamp}-1` }).click();
    await page.waitForURL('**/record/*');
    await page.getByText('Basic Information').waitFor();
    const journey = page.getByTestId('record-journey');
    await journey.waitFor();
    expect(await journey.getByTitle('Financial Intelligence Agency').count()).toBe(1);
    expect(await journey.getByTitle('Bermuda Police Service').count()).toBe(1);
    await journey.getByText(/% match$/).waitFor();
    await journey.getByText('Fraud').waitFor();
    await page.getByTestId('linked-organizations').getByText('BPS').waitFor();
    // The police record is not FIA's to open: what the link discloses, as text, and no link.
    const police = journey.getByTestId('journey-link');
    await police.getByText(`BPS-${stamp}-1`, { exact: true }).waitFor();
    await police.getByText('Only Bermuda Police Service can open this record', { exact: false }).waitFor();
    for (const text of ['02/14/2025', '$12,500.00', '$2,000.50', 'Fraud']) {
      await police.getByText(text, { exact: true }).waitFor();
    }
    expect(await police.locator('a').count()).toBe(0);
    // Clicking the number goes nowhere (no Record Not Found behind it).
    const fiaUrl = new URL(page.url()).pathname;
    fiaRecordUrl = fiaUrl;
    await police.getByText(`BPS-${stamp}-1`, { exact: true }).click();
    await page.waitForTimeout(300);
    expect(new URL(page.url()).pathname).toBe(fiaUrl);
    expect(await page.getByText('Record Not Found').count()).toBe(0);
    await shot(page, 'record-details');
    // The police record's address, for the police user's steps below: the link names its id.
    bpsRecordUrl = await page.evaluate(async (path) => {
      const links = (await (await fetch(`/api${path.replace('/record/', '/records/')}/links`)).json()) as Array<{
        linkedRecord: { id: string };
      }>;
      return `/record/${links[0]?.linkedRecord.id}`;
    }, fiaUrl);
    expect(bpsRecordUrl).toMatch(/^\/record\/[0-9a-f]{24}$/);
  });

  it('edits a record, and refuses to overwrite a change made meanwhile', async () => {
    const page = await signedIn(bps);
    await page.goto(`${bpsRecordUrl}/edit`);
    await page.getByRole('heading', { name: 'Edit Record' }).waitFor();
    expect(await page.getByLabel('Incident Number').inputValue()).toBe(`BPS-${stamp}-1`);
    expect(await page.getByLabel('Suspect Date of Birth').inputValue()).toBe('1977-08-21');
    // Required marks of SPEC §2.
    for (const label of [
      'Incident Number',
      'Suspect Name',
      'Suspect Date of Birth',
      'Incident Date',
      'Source of Record',
    ]) {
      const item = page.locator('.ant-form-item').filter({ has: page.getByLabel(label, { exact: true }) });
      expect(await item.locator('.ant-form-item-required').count(), label).toBe(1);
    }
    await page.getByRole('radio', { name: 'Yes' }).check();
    await choose(page, 'Country', 'Jamaica');
    await shot(page, 'edit-record');

    // Meanwhile a colleague changes the record in another window.
    const other = await signedIn(bps);
    await other.goto(`${bpsRecordUrl}/edit`);
    await other.getByLabel('Suspect Name').fill('Desmond A. Outerbridge');
    await other.getByRole('button', { name: 'Update Record' }).click();
    await toast(other, 'Record updated successfully').waitFor();

    await page.getByRole('button', { name: 'Update Record' }).click();
    await toast(page, 'Failed to update record').waitFor();
    await page.getByText('This record was changed by someone else').waitFor();
    await shot(page, 'edit-record-changed-meanwhile');
    await page.getByRole('button', { name: 'Reload the record' }).click();
    await page.waitForFunction(
      () => (document.getElementById('suspectName') as HTMLInputElement | null)?.value === 'Desmond A. Outerbridge',
    );
    await page.getByRole('radio', { name: 'Yes' }).check();
    await choose(page, 'Country', 'Jamaica');
    await page.getByRole('button', { name: 'Update Record' }).click();
    await toast(page, 'Record updated successfully').waitFor();
    await page.waitForURL((url) => url.pathname === bpsRecordUrl);
    await page.getByText('Yes — Jamaica').waitFor();
    await page.getByText('Desmond A. Outerbridge').first().waitFor();
  });

  it('deletes from the details, finds it in Deleted Records, and restores it', async () => {
    const page = await signedIn(bps);
    await page.goto(bpsRecordUrl);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('This can be undone: restore it from View Deleted Records in the settings menu.').waitFor();
    await shot(page, 'delete-confirmation');
    await page.locator('.ant-modal').getByRole('button', { name: 'Delete' }).click();
    await toast(page, 'Record deleted successfully').waitFor();
    await page.waitForURL((url) => url.pathname === '/');

    await page.getByRole('button', { name: bps.name }).click();
    await page.getByRole('menuitem', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'View Deleted Records' }).click();
    await page.getByRole('heading', { name: 'Deleted Records (1)' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: `BPS-${stamp}-1` });
    await row.getByText('Jamaica').waitFor(); // the country: an international nexus
    await row.getByText('$12,500.00').waitFor();
    await row.getByText('Fraud').waitFor();
    await shot(page, 'deleted-records');
    await row.getByRole('button', { name: 'Restore' }).click();
    await page.getByText('returns to the lists and searches.').waitFor();
    await animationsDone(page);
    await page.locator('.ant-modal').getByRole('button', { name: 'Restore' }).click();
    await toast(page, 'Record restored successfully').waitFor();
    await page.getByRole('heading', { name: 'Deleted Records (0)' }).waitFor();
    await page.getByText('No deleted records found').waitFor();
    await shot(page, 'deleted-records-empty');
    await page.goto(bpsRecordUrl);
    await page.getByText('Basic Information').waitFor();
  });

  it('searches by each filter', async () => {
    const page = await signedIn(bps);
    // A second record that differs in every field.
    await page.goto('/records');
    await fillRecord(page, {
      incidentNumber: `BPS-${stamp}-2`,
      suspectName: 'Marguerite Trimingham',
      dob: '1990-03-04',
      incidentDate: '2024-11-30',
      caseAmount: '75',
    });
    await page.getByLabel('Seized Amount').fill('5');
    await page.getByLabel('Confiscated Amount').fill('1.25');
    await choose(page, 'Source of Record', 'Public Complaint');
    await page.getByLabel('Cyber-Assisted').check();
    await page.getByRole('radio', { name: 'Cybercrime' }).check();
    await page.getByRole('button', { name: 'Save Record' }).click();
    await toast(page, 'Record created successfully').waitFor();

    await page.goto('/search');
    await page.getByText('No records found. Use the search filters above to find records.').waitFor();
    await shot(page, 'search');
    const rowNumbers = () =>
      page
        .locator('tbody tr')
        .evaluateAll((rows) =>
          rows.map((r) => r.querySelector('td')?.textContent ?? '').filter((t) => t.startsWith('BPS-')),
        );
    const run = async (fill: () => Promise<void>, expected: string[]) => {
      await page.locator('button', { hasText: /^Clear$/ }).click();
      await fill();
      const answered = page.waitForResponse((r) => r.url().includes('/api/records/search'));
      await page.getByRole('button', { name: 'Search' }).click();
      await answered;
      await toast(page, `Found ${expected.length} records.`).waitFor();
      await page.getByText(`Results (${expected.length})`).waitFor();
      // The table shows the new answer once React has drawn it.
      for (
        let i = 0;
        i < 50 && JSON.stringify((await rowNumbers()).sort()) !== JSON.stringify([...expected].sort());
        i++
      ) {
        await page.waitForTimeout(100);
      }
      expect((await rowNumbers()).sort()).toEqual([...expected].sort());
    };
    const both = [`BPS-${stamp}-1`, `BPS-${stamp}-2`];
    await run(() => page.getByLabel('Free Text Search').fill(`${stamp}`), both);
    await run(() => page.getByLabel('Free Text Search').fill('trimingham complaint'), [`BPS-${stamp}-2`]);
    await run(() => page.getByLabel('Incident Number').fill(`BPS-${stamp}-1`), [`BPS-${stamp}-1`]);
    await run(() => page.getByLabel('Suspect Name').fill('outerbridge desmond'), [`BPS-${stamp}-1`]);
    await run(() => page.getByLabel('Date of Birth').fill('1990-03-04'), [`BPS-${stamp}-2`]);
    await run(() => page.getByLabel('Incident Date').fill('2025-02-14'), [`BPS-${stamp}-1`]);
    await run(() => page.getByLabel('Case Amount').fill('75'), [`BPS-${stamp}-2`]);
    await run(() => page.getByLabel('Seized', { exact: true }).fill('2000.50'), [`BPS-${stamp}-1`]);
    await run(() => page.getByLabel('Confiscated', { exact: true }).fill('1.25'), [`BPS-${stamp}-2`]);
    await run(() => choose(page, 'Crime Type', 'Fraud'), [`BPS-${stamp}-1`]);
    await run(() => choose(page, 'Nexus Country', 'Jamaica'), [`BPS-${stamp}-1`]);
    await run(() => page.getByLabel('Cyber-Assisted').check(), [`BPS-${stamp}-2`]);
    // The results: SPEC's columns, the amount being case + seized + confiscated.
    await run(() => page.getByLabel('Free Text Search').fill(`${stamp}`), both);
    const headers = await page.locator('thead th').allTextContents();
    expect(headers).toEqual([
      'Incident #',
      'Suspect',
      'DOB',
      'Incident Date',
      'Amount',
      'Source',
      'International',
      'Linked',
      'Actions',
    ]);
    const second = page.getByRole('row').filter({ hasText: `BPS-${stamp}-2` });
    await second.getByText('$81.25').waitFor();
    await second.getByText('03/04/1990').waitFor();
    const first = page.getByRole('row').filter({ hasText: `BPS-${stamp}-1` });
    await first.getByText('Linked').waitFor();
    await first.getByText('$14,500.50').waitFor();
    await shot(page, 'search-results');
    // Delete from the results (with confirmation), then the row click opens a record.
    await second.getByRole('button', { name: 'Delete' }).click();
    await page.locator('.ant-modal').getByRole('button', { name: 'Delete' }).waitFor();
    await animationsDone(page);
    await page.locator('.ant-modal').getByRole('button', { name: 'Delete' }).click();
    await toast(page, 'Record deleted successfully').waitFor();
    await first.getByText('Desmond A. Outerbridge').click();
    await page.waitForURL((url) => url.pathname === bpsRecordUrl);
  });

  it('shows a date of birth as the same day in a negative and a positive UTC offset', async () => {
    for (const timezoneId of ['Pacific/Honolulu', 'Pacific/Kiritimati']) {
      const page = await signedIn(bps, { timezoneId });
      expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe(timezoneId);
      await page.goto(bpsRecordUrl);
      await page.getByText('08/21/1977').waitFor();
      await page.getByText('02/14/2025').first().waitFor();
      expect(await page.getByText('08/20/1977').count()).toBe(0);
      expect(await page.getByText('08/22/1977').count()).toBe(0);
      await page.goto('/search');
      await page.getByLabel('Date of Birth').fill('1977-08-21');
      await page.getByRole('button', { name: 'Search' }).click();
      await toast(page, 'Found 1 records.').waitFor();
      await page.getByRole('cell', { name: '08/21/1977' }).waitFor();
    }
  });

  it('a CUS user cannot open the police record: Record Not Found', async () => {
    const page = await signedIn(cus);
    await page.goto(bpsRecordUrl);
    await page.getByText('Record Not Found').waitFor();
    await page
      .getByText("The record you're looking for doesn't exist or you don't have permission to view it.")
      .waitFor();
    await shot(page, 'record-not-found');
    await page.goto(`${bpsRecordUrl}/edit`);
    await page.getByText('Record not found', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Update Record' }).count()).toBe(0);
    await shot(page, 'edit-record-not-found');
  });
  it('FIA rejects the link with a reason; the police no longer see it; ADMIN sees why and restores it', async () => {
    const reason = 'Not the same person: the police confirmed another suspect.';
    const page = await signedIn(fia);
    await page.goto(fiaRecordUrl);
    const journey = page.getByTestId('record-journey');
    await journey.waitFor();
    await page.getByTestId('linked-organizations').getByText('BPS').waitFor();
    await journey.getByRole('button', { name: `Reject the link to BPS-${stamp}-1` }).click();
    const dialog = page.locator('.ant-modal');
    await dialog.getByText('Reject this link?').waitFor();
    await dialog
      .getByText(
        'Bermuda Police Service will no longer see this record through the link, and NRAD will not link the two again. Only an administrator can restore it.',
      )
      .waitFor();
    await dialog.getByLabel('Reason').fill(reason);
    await animationsDone(page);
    await shot(page, 'reject-link');
    await dialog.getByRole('button', { name: 'Reject', exact: true }).click();
    await toast(page, 'Link rejected').waitFor();
    // Its only link rejected, the record has no journey and no Linked with badges.
    await journey.waitFor({ state: 'detached' });
    expect(await page.getByTestId('linked-organizations').count()).toBe(0);
    await page.getByText('Basic Information').waitFor();
    await shot(page, 'record-details-link-rejected');

    // The police record no longer shows the FIA record: its links (read by the screen) are none.
    const police = await signedIn(bps);
    const policeLinks = police.waitForResponse((r) => r.url().endsWith('/links') && r.request().method() === 'GET');
    await police.goto(bpsRecordUrl);
    expect(await (await policeLinks).json()).toEqual([]);
    await police.getByText('Basic Information').waitFor();
    expect(await police.getByTestId('record-journey').count()).toBe(0);
    expect(await police.getByText(`FIA-${stamp}-1`).count()).toBe(0);

    // ADMIN sees the rejected link greyed, who rejected it, when and why, and restores it.
    const admin = await signedIn(ADMIN);
    await admin.goto(fiaRecordUrl);
    const rejected = admin.getByTestId('record-journey').getByTestId('journey-link');
    await rejected.getByText(`BPS-${stamp}-1`, { exact: true }).waitFor();
    expect(await rejected.getAttribute('data-rejected')).toBe('true');
    await rejected.getByText('Rejected', { exact: true }).waitFor();
    await rejected
      .getByText(
        new RegExp(`^Rejected by Financial Intelligence Agency on \\d{2}/\\d{2}/\\d{4}: ${escapeRegExp(reason)}$`),
      )
      .waitFor();
    expect(await admin.getByTestId('linked-organizations').count()).toBe(0);
    await shot(admin, 'record-journey-rejected-admin');
    await rejected.getByRole('button', { name: `Restore the link to BPS-${stamp}-1` }).click();
    await toast(admin, 'Link restored').waitFor();
    await rejected.getByRole('button', { name: `Reject the link to BPS-${stamp}-1` }).waitFor();
    expect(await rejected.getAttribute('data-rejected')).toBeNull();
    await admin.getByTestId('linked-organizations').getByText('BPS').waitFor();

    // Restored, the police see the FIA record through the link again.
    await police.reload();
    await police.getByTestId('record-journey').getByText(`FIA-${stamp}-1`, { exact: true }).waitFor();
  });
});
