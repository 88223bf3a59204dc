import { ADMIN_ACCESS_DENIED } from '@nrad/contracts';
import { spawnStack } from '@nrad/gateway/spawn-stack';
import { DELETE_CONFIRM_TITLE } from '@nrad/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { holdFetch } from '../../shared/test/fetch.ts';
import { createRecord, createRecords, incidentNumber } from '../../shared/test/records-api.ts';
import { openAt, renderScreen, signedInAs, toastText } from '../../shared/test/render.tsx';
import { contactAdmin, recordsTotal, settledStats, signedInAsAdmin } from '../test/admin-api.ts';
import Admin from './Admin.tsx';
import { RECORDS_PAGE_SIZE } from './panel/AllRecords.tsx';

beforeAll(async () => {
  const { url } = await spawnStack();
  openAt(`${url}/admin`);
});

const rowOf = (text: string) => screen.getByText(text).closest('tr') as HTMLElement;
const recordsTable = () => screen.getByText('All Agency Records').closest('.ant-card') as HTMLElement;
const recordRows = () => [...recordsTable().querySelectorAll('tbody tr.ant-table-row')] as HTMLElement[];
const countOf = (code: string) => Number(screen.getByTestId(`count-${code}-value`).textContent?.replace(/,/g, ''));
const totalShown = () =>
  Number(/^([\d,]+) records?$/.exec(screen.getByTestId('records-total').textContent ?? '')?.[1]?.replace(/,/g, ''));
const optionValues = async (type: string) =>
  ((await (await fetch(`/api/dropdown-options/${type}`)).json()) as Array<{ value: string }>).map((o) => o.value);

/**
 * Renders the panel; after the test, waits until none of its reads is still on its way (the page
 * is torn down after the file, and a read cut off then would only be noise).
 */
function renderAdmin() {
  const rendered = renderScreen(<Admin />);
  onTestFinished(() => waitFor(() => expect(rendered.queryClient.isFetching()).toBe(0)));
  return rendered;
}

/** Puts an option list back as it was after the test (other tests' records need its values). */
async function keepOptions(type: 'source' | 'country') {
  const before = await optionValues(type);
  onTestFinished(async () => {
    await signedInAsAdmin();
    const put = await fetch(`/api/dropdown-options/${type}`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ values: before }),
    });
    expect(put.ok).toBe(true);
  });
  return before;
}

describe('Admin Panel', () => {
  it('tells an agency user access is denied, and asks the server for nothing admin', async () => {
    await signedInAs('BPS');
    const watch = holdFetch({ hold: false });
    try {
      renderAdmin();
      expect(await screen.findByText(ADMIN_ACCESS_DENIED)).toBeInTheDocument();
      await new Promise((resolve) => setTimeout(resolve, 500)); // time for any stray query to start
      expect(watch.requests).toEqual(['GET /api/auth/user']);
      expect(screen.queryByText('All Agency Records')).toBeNull();
      expect(screen.queryByRole('button', { name: 'Update Options' })).toBeNull();
    } finally {
      watch.restore();
    }
  });

  it('counts each agency’s records', { timeout: 60_000 }, async () => {
    await signedInAsAdmin();
    const before = await settledStats();
    const made = { BPS: 3, FIA: 2, CUS: 1 };
    for (const [organization, n] of Object.entries(made)) {
      await signedInAs(organization);
      await createRecords(n, (i) => ({ suspectName: `Counted ${organization} ${i}` }));
    }
    await signedInAsAdmin();
    const after = await settledStats();
    expect(after).toEqual({
      bpsRecords: before.bpsRecords + 3,
      fiaRecords: before.fiaRecords + 2,
      cusRecords: before.cusRecords + 1,
    });
    renderAdmin();
    await waitFor(() => expect(countOf('BPS')).toBe(after.bpsRecords));
    expect(countOf('FIA')).toBe(after.fiaRecords);
    expect(countOf('CUS')).toBe(after.cusRecords);
    expect(
      within(screen.getByTestId('count-FIA')).getByText('Financial Intelligence Agency records'),
    ).toBeInTheDocument();
  });

  it('updates both option lists, one option per line, blank lines dropped', async () => {
    await signedInAsAdmin();
    const source = await keepOptions('source');
    const country = await keepOptions('country');
    const user = userEvent.setup();
    renderAdmin();
    const sourceBox = await screen.findByLabelText('Source of Record Options');
    const countryBox = screen.getByLabelText('Country Options');
    // Each list comes from a request of its own: either may be shown first.
    await waitFor(() => expect(sourceBox).toHaveValue(source.join('\n')));
    await waitFor(() => expect(countryBox).toHaveValue(country.join('\n')));

    await user.type(sourceBox, '{Enter}{Enter}   {Enter}  Admin Tip Line  {Enter}');
    await user.type(countryBox, '{Enter}Atlantis{Enter}{Enter}');
    await user.click(screen.getByRole('button', { name: 'Update Options' }));
    // One toast at a time: the country list's, sent second; each list says how it went.
    await waitFor(() => expect(toastText('Country options updated successfully')).toBeDefined());
    expect(screen.getByText(`Saved: ${source.length + 1} options.`)).toBeInTheDocument();
    expect(screen.getByText(`Saved: ${country.length + 1} options.`)).toBeInTheDocument();
    expect(await optionValues('source')).toEqual([...source, 'Admin Tip Line']);
    expect(await optionValues('country')).toEqual([...country, 'Atlantis']);
    // The text areas show the lists as saved, blank lines gone.
    expect(sourceBox).toHaveValue([...source, 'Admin Tip Line'].join('\n'));
  });

  it('shows the source failure and the server’s reason when a list is refused', async () => {
    await signedInAsAdmin();
    const source = await keepOptions('source');
    const country = await keepOptions('country');
    const user = userEvent.setup();
    renderAdmin();
    const sourceBox = await screen.findByLabelText('Source of Record Options');
    await waitFor(() => expect(sourceBox).toHaveValue(source.join('\n')));
    await user.clear(sourceBox);
    await user.type(sourceBox, '  {Enter}{Enter}');
    await user.click(screen.getByRole('button', { name: 'Update Options' }));
    // The failure is toasted after the country list's success, so it is the toast left showing.
    await waitFor(() => expect(toastText('Failed to update source options')).toBeDefined());
    expect(toastText('Failed to update source options')?.textContent).toContain('Error');
    expect(screen.getByText('at least one non-blank value is required')).toBeInTheDocument();
    expect(screen.getByText(`Saved: ${country.length} options.`)).toBeInTheDocument();
    expect(await optionValues('source')).toEqual(source);
  });

  it('pages through every agency’s records, newest first, with SPEC’s columns', { timeout: 90_000 }, async () => {
    await signedInAs('CUS');
    await createRecords(RECORDS_PAGE_SIZE + 5, (i) => ({ suspectName: `Paged Person ${i}` }));
    const newest = await createRecord({
      suspectName: 'Newest Person',
      incidentDate: '2024-03-02',
      caseAmount: '1000',
      seizedAmount: '234.5',
      confiscatedAmount: '0',
    });
    await signedInAsAdmin();
    const total = await recordsTotal();
    const pages = Math.ceil(total / RECORDS_PAGE_SIZE);
    const user = userEvent.setup();
    renderAdmin();
    await waitFor(() => expect(recordRows()).toHaveLength(RECORDS_PAGE_SIZE));
    expect(totalShown()).toBe(total);
    expect(screen.getByTestId('records-page')).toHaveTextContent(`Page 1 of ${pages}`);
    const headers = [...recordsTable().querySelectorAll('thead th')].map((th) => th.textContent).filter(Boolean);
    expect(headers).toEqual(['Agency', 'Incident #', 'Suspect', 'Date', 'Amount', 'Actions']);
    const first = recordRows()[0] as HTMLElement;
    expect(within(first).getByText('Newest Person')).toBeInTheDocument();
    expect(within(first).getByText(newest.incidentNumber)).toBeInTheDocument();
    expect(within(first).getByText('CUS')).toHaveAttribute('title', 'Customs');
    expect(within(first).getByText('03/02/2024')).toBeInTheDocument();
    expect(within(first).getByText('$1,234.50')).toBeInTheDocument();

    const previous = within(recordsTable()).getByRole('button', { name: 'Previous' });
    const next = within(recordsTable()).getByRole('button', { name: 'Next' });
    expect(previous).toBeDisabled();
    const firstPage = recordRows().map((r) => r.dataset.rowKey);
    await user.click(next);
    await waitFor(() => expect(screen.getByTestId('records-page')).toHaveTextContent(`Page 2 of ${pages}`));
    await waitFor(() => expect(recordRows()[0]?.dataset.rowKey).not.toBe(firstPage[0]));
    const secondPage = recordRows().map((r) => r.dataset.rowKey);
    expect(secondPage.length).toBe(Math.min(RECORDS_PAGE_SIZE, total - RECORDS_PAGE_SIZE));
    expect(secondPage.filter((id) => firstPage.includes(id))).toEqual([]);
    expect(previous).toBeEnabled();
    await user.click(previous);
    await waitFor(() => expect(recordRows().map((r) => r.dataset.rowKey)).toEqual(firstPage));
    expect(screen.getByTestId('records-page')).toHaveTextContent(`Page 1 of ${pages}`);
  });

  it('deletes a record only after confirmation; the table, total and count follow', { timeout: 60_000 }, async () => {
    await signedInAs('FIA');
    const doomed = await createRecord({ suspectName: 'Doomed Person', incidentNumber: incidentNumber('DEL') });
    await signedInAsAdmin();
    const stats = await settledStats();
    const user = userEvent.setup();
    renderAdmin();
    await screen.findByText('Doomed Person');
    await waitFor(() => expect(countOf('FIA')).toBe(stats.fiaRecords));
    const total = totalShown();

    await user.click(within(rowOf('Doomed Person')).getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent(DELETE_CONFIRM_TITLE);
    expect(dialog).toHaveTextContent(doomed.incidentNumber);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect((await fetch(`/api/records/${doomed.id}`)).status).toBe(200);
    expect(screen.getByText('Doomed Person')).toBeInTheDocument();

    await user.click(within(rowOf('Doomed Person')).getByRole('button', { name: 'Delete' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(toastText('Record deleted successfully')).toBeDefined());
    await waitFor(() => expect(screen.queryByText('Doomed Person')).toBeNull());
    await waitFor(() => expect(totalShown()).toBe(total - 1));
    expect(countOf('FIA')).toBe(stats.fiaRecords - 1);
    expect((await fetch(`/api/records/${doomed.id}`)).status).toBe(404);
    expect((await settledStats()).fiaRecords).toBe(stats.fiaRecords - 1);
  });

  it('says editing is not implemented yet', async () => {
    await signedInAs('BPS');
    await createRecord({ suspectName: 'Edited Person' });
    await signedInAsAdmin();
    const user = userEvent.setup();
    renderAdmin();
    await screen.findByText('Edited Person');
    await user.click(within(rowOf('Edited Person')).getByRole('button', { name: 'Edit' }));
    await waitFor(() => expect(toastText('Edit functionality not yet implemented')).toBeDefined());
  });

  it('lists contact requests, shows a message and marks it resolved', async () => {
    const person = await signedInAs('CUS');
    const subject = `Archive access ${Date.now().toString(36)}`;
    await contactAdmin(subject, 'Please enable the archive.\nSecond line of the message.');
    await signedInAsAdmin();
    const user = userEvent.setup();
    renderAdmin();
    await screen.findByText(subject);
    const row = rowOf(subject);
    expect(within(row).getByText(person.email)).toBeInTheDocument();
    expect(within(row).getByText('CUS')).toHaveAttribute('title', 'Customs');
    expect(within(row).getByText('Open')).toBeInTheDocument();
    const open = Number(/^(\d+) open$/.exec(screen.getByTestId('open-requests').textContent ?? '')?.[1]);
    expect(open).toBeGreaterThanOrEqual(1);

    expect(screen.queryByText(/Second line of the message/)).toBeNull();
    await user.click(within(row).getByText(subject));
    expect(await screen.findByText(/Second line of the message/)).toBeInTheDocument();

    await user.click(within(row).getByRole('button', { name: 'Mark Resolved' }));
    await waitFor(() => expect(within(rowOf(subject)).getByText('Resolved')).toBeInTheDocument());
    expect(within(rowOf(subject)).queryByRole('button', { name: 'Mark Resolved' })).toBeNull();
    // Received and, now, resolved: both to the minute.
    expect(within(rowOf(subject)).getAllByText(/^\d{2}\/\d{2}\/\d{4}, /)).toHaveLength(2);
    if (open > 1) expect(screen.getByTestId('open-requests')).toHaveTextContent(`${open - 1} open`);
    else expect(screen.queryByTestId('open-requests')).toBeNull();
    const inbox = await (await fetch('/api/admin/contact-requests?status=resolved&limit=100')).json();
    expect(inbox.items.map((r: { subject: string }) => r.subject)).toContain(subject);
  });

  it('leads to the operations console without leaving the app', async () => {
    await signedInAsAdmin();
    const user = userEvent.setup();
    renderAdmin();
    const link = await screen.findByRole('link', { name: 'Operations Console' });
    expect(link).toHaveAttribute('href', '/admin/operations');
    onTestFinished(() => window.history.replaceState(null, '', '/admin'));
    await user.click(link);
    expect(window.location.pathname).toBe('/admin/operations');
    // Still this page (a client-side navigation): the panel has not been reloaded away.
    expect(screen.getByRole('heading', { name: 'Admin Panel' })).toBeInTheDocument();
  });
});
