import { type CaseRecord, CRIME_TYPES } from '@nrad/contracts';
import { spawnStack } from '@nrad/gateway/spawn-stack';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRecord, createRecords } from '../../shared/test/records-api.ts';
import { openAt, pick, renderScreen, signedInAs, toastText } from '../../shared/test/render.tsx';
import Search, { crimeTypeLabel, EMPTY_TEXT, toFilters } from './Search.tsx';

type User = ReturnType<typeof userEvent.setup>;
let url = '';
let plain: CaseRecord;
let rich: CaseRecord;

beforeAll(async () => {
  ({ url } = await spawnStack());
  openAt(`${url}/search`);
  await signedInAs('CUS');
  await createRecord({ suspectName: 'Hidden Namesake' }); // another agency's: never found
  await signedInAs('BPS');
  plain = await createRecord({
    suspectName: 'Quentin Plainview',
    suspectDob: '1971-07-07',
    incidentDate: '2023-09-09',
    caseAmount: '10',
    seizedAmount: '0.2',
    confiscatedAmount: '0.1',
  });
  rich = await createRecord({
    suspectName: 'Rosalind Wealthy',
    suspectDob: '1988-12-24',
    incidentDate: '2024-10-31',
    caseAmount: '1000000',
    seizedAmount: '2500.5',
    confiscatedAmount: '99.5',
    internationalNexus: true,
    country: 'Panama',
    cyberAssisted: true,
    crimeType: 'Kidnapping/illegal restraint and hostage-taking',
    additionalInfo: 'Ransom paid in cryptocurrency.',
  });
});

async function shown() {
  openAt(`${url}/search`);
  const user = userEvent.setup();
  renderScreen(<Search />);
  await screen.findByRole('heading', { name: 'Search Records' });
  return user;
}

const rows = () => [...document.querySelectorAll('tbody tr.ant-table-row')] as HTMLElement[];
const shownNumbers = () => rows().map((r) => r.children[0]?.textContent);

/** Searches; the toast counts every record found, the table shows the first page of them. */
async function searchFor(user: User, expected: number, shown = expected) {
  await user.click(screen.getByRole('button', { name: 'Search' }));
  await waitFor(() => expect(toastText(`Found ${expected} records.`)).toBeDefined());
  await waitFor(() => expect(rows()).toHaveLength(shown));
}

describe('Search Records', () => {
  it('shows every filter, and the empty text before a search', async () => {
    await shown();
    for (const label of [
      'Free Text Search',
      'Incident Number',
      'Suspect Name',
      'Date of Birth',
      'Incident Date',
      'Case Amount',
      'Seized',
      'Confiscated',
      'Crime Type',
      'Nexus Country',
    ]) {
      expect(screen.getByLabelText(label)).toBeInTheDocument();
    }
    expect(screen.getByRole('checkbox', { name: 'Cyber-Assisted' })).not.toBeChecked();
    expect(screen.getByText(EMPTY_TEXT)).toBeInTheDocument();
    const headers = [...document.querySelectorAll('thead th')].map((th) => th.textContent);
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
  });

  it('offers the 20 crime types', async () => {
    const user = await shown();
    await user.click(screen.getByLabelText('Crime Type'));
    await waitFor(() => expect(document.querySelector('.ant-select-dropdown')).not.toBeNull());
    const offered = [...document.querySelectorAll('.ant-select-dropdown .ant-select-item-option')];
    expect(offered.map((o) => o.textContent)).toEqual(CRIME_TYPES.map((t) => crimeTypeLabel(t)));
    // pick() types the label: the list narrows by the words shown, not the stored value.
    await pick(user, 'Crime Type', 'Kidnapping, illegal restraint and hostage-taking');
  });

  it('finds the agency’s records with no filter, with SPEC’s columns', async () => {
    const user = await shown();
    await searchFor(user, 2);
    const richRow = rows().find((r) => r.textContent?.includes('Rosalind Wealthy')) as HTMLElement;
    const cells = [...richRow.children].map((c) => c.textContent);
    expect(cells.slice(0, 8)).toEqual([
      rich.incidentNumber,
      'Rosalind Wealthy',
      '12/24/1988',
      '10/31/2024',
      '$1,002,600.00',
      'Police Investigation',
      'Yes',
      'No',
    ]);
    const plainRow = rows().find((r) => r.textContent?.includes('Quentin Plainview')) as HTMLElement;
    expect(plainRow.children[4]?.textContent).toBe('$10.30'); // 10 + 0.2 + 0.1, exact
    expect(plainRow.children[6]?.textContent).toBe('No');
    expect(screen.queryByText('Hidden Namesake')).toBeNull();
    expect(screen.getByText('Results (2)')).toBeInTheDocument();
  });

  it('narrows by each filter', async () => {
    const user = await shown();
    const type = async (label: string, text: string) => {
      await user.clear(screen.getByLabelText(label));
      await user.type(screen.getByLabelText(label), text);
    };
    const date = (label: string, value: string) => {
      fireEvent.change(screen.getByLabelText(label), { target: { value } });
    };
    const clear = async () => {
      // The form's Clear (a select's clear icon is a "Clear" button too).
      const button = screen.getAllByRole('button', { name: 'Clear' }).find((b) => b.textContent === 'Clear');
      await user.click(button as HTMLElement);
      await waitFor(() => expect(screen.getByText(EMPTY_TEXT)).toBeInTheDocument());
    };
    const cases: Array<[string, () => Promise<void> | void, CaseRecord]> = [
      ['free text', () => type('Free Text Search', 'ransom crypto'), rich],
      ['incident number', () => type('Incident Number', plain.incidentNumber), plain],
      ['suspect name with a typo', () => type('Suspect Name', 'Rosalind Wealthey'), rich],
      ['date of birth', () => date('Date of Birth', '1971-07-07'), plain],
      ['incident date', () => date('Incident Date', '2024-10-31'), rich],
      ['case amount', () => type('Case Amount', '10'), plain],
      ['seized', () => type('Seized', '2500.50'), rich],
      ['confiscated', () => type('Confiscated', '0.1'), plain],
      ['crime type', () => pick(user, 'Crime Type', 'Kidnapping, illegal restraint and hostage-taking'), rich],
      ['nexus country', () => pick(user, 'Nexus Country', 'Panama'), rich],
      ['cyber-assisted', () => user.click(screen.getByRole('checkbox', { name: 'Cyber-Assisted' })), rich],
    ];
    for (const [name, set, expected] of cases) {
      await clear();
      await set();
      await searchFor(user, 1);
      expect({ name, found: shownNumbers() }).toEqual({ name, found: [expected.incidentNumber] });
    }
    await clear();
    await type('Suspect Name', 'Nobody Atall');
    await searchFor(user, 0);
    expect(screen.getByText(EMPTY_TEXT)).toBeInTheDocument();
  });

  it('asks the server once per search', async () => {
    const user = await shown();
    const calls: string[] = [];
    const original = globalThis.fetch;
    globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      calls.push(`${init?.method ?? 'GET'} ${String(input)}`);
      return original(input, init);
    }) as typeof fetch;
    try {
      await searchFor(user, 2);
      await new Promise((resolve) => setTimeout(resolve, 300)); // a second request would be out by now
    } finally {
      globalThis.fetch = original;
    }
    expect(calls).toEqual(['POST /api/records/search?limit=100']);
  });

  it('opens a record from its row and from View', async () => {
    const user = await shown();
    await searchFor(user, 2);
    const row = rows().find((r) => r.textContent?.includes('Quentin Plainview')) as HTMLElement;
    await user.click(within(row).getByText('Quentin Plainview'));
    expect(window.location.pathname).toBe(`/record/${plain.id}`);
    await user.click(within(row).getByRole('button', { name: 'View' }));
    expect(window.location.pathname).toBe(`/record/${plain.id}`);
  });

  it('deletes only after confirmation, and the results follow', async () => {
    const doomed = await createRecord({ suspectName: 'Doomed Entry' });
    const user = await shown();
    await user.type(screen.getByLabelText('Suspect Name'), 'Doomed Entry');
    await searchFor(user, 1);
    const row = rows()[0] as HTMLElement;
    await user.click(within(row).getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent(doomed.incidentNumber);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(window.location.pathname).toBe('/search'); // the click did not open the record
    expect((await fetch(`/api/records/${doomed.id}`)).status).toBe(200);

    await user.click(within(row).getByRole('button', { name: 'Delete' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(toastText('Record deleted successfully')).toBeDefined());
    await waitFor(() => expect(rows()).toHaveLength(0));
    expect((await fetch(`/api/records/${doomed.id}`)).status).toBe(404);
  });

  it('says so when the search fails', async () => {
    const user = await shown();
    await fetch('/api/auth/logout', { method: 'POST' });
    await user.click(screen.getByRole('button', { name: 'Search' }));
    await waitFor(() => expect(toastText('Failed to search records')).toBeDefined());
    await signedInAs('BPS');
  });

  it('pages through large results', { timeout: 120_000 }, async () => {
    await signedInAs('FIA');
    await createRecords(130, (i) => ({ suspectName: `Paged Person ${i}` }));
    const user = await shown();
    await searchFor(user, 130, 100);
    expect(screen.getByText('Results (130)')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Show more (100 of 130)' }));
    await waitFor(() => expect(rows()).toHaveLength(130));
    expect(new Set(shownNumbers()).size).toBe(130);
    expect(screen.queryByRole('button', { name: /Show more/ })).toBeNull();
  });
});

describe('toFilters', () => {
  it('sends only the filters given, trimmed, and no filter for an unticked box', () => {
    expect(toFilters({ freeText: '  ', suspectName: ' Ann ', caseAmount: null, cyberAssisted: false })).toEqual({
      suspectName: 'Ann',
    });
    expect(toFilters({ cyberAssisted: true, caseAmount: '0', crimeType: 'Drugs' })).toEqual({
      cyberAssisted: true,
      caseAmount: '0',
      crimeType: 'Drugs',
    });
  });
});
