import { type CaseRecord, CRIME_TYPES } from '@nrad/contracts';
import { spawnStack } from '@nrad/gateway/spawn-stack';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { Route, Switch } from 'wouter';
import { createRecord, createRecords } from '../../shared/test/records-api.ts';
import { openAt, pick, renderScreen, signedInAs, toastText } from '../../shared/test/render.tsx';
import Search, { crimeTypeLabel, EMPTY_TEXT, toFilters } from './Search.tsx';
import { filtersFromQuery, queryOf, searchUrl } from './search-url.ts';

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

  it('refuses a negative amount under its filter and asks nothing', async () => {
    const user = await shown();
    await user.type(screen.getByLabelText('Case Amount'), '-500');
    const calls: string[] = [];
    const original = globalThis.fetch;
    globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      calls.push(`${init?.method ?? 'GET'} ${String(input)}`);
      return original(input, init);
    }) as typeof fetch;
    try {
      await user.click(screen.getByRole('button', { name: 'Search' }));
      expect(
        await screen.findByText('Must be a non-negative amount with at most 2 decimals and 12 digits'),
      ).toBeInTheDocument();
      expect(screen.getByLabelText('Case Amount')).toHaveValue('-500.00');
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      globalThis.fetch = original;
    }
    expect(calls).toEqual([]);
    expect(toastText('Failed to search records')).toBeUndefined();
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

/** The calls the page makes meanwhile (method, path and body), until `stop()`. */
function watchCalls() {
  const calls: Array<{ call: string; body: unknown }> = [];
  const original = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const path = String(input).replace(/^https?:\/\/[^/]+/, '');
    calls.push({
      call: `${init?.method ?? 'GET'} ${path}`,
      body: init?.body ? JSON.parse(String(init.body)) : undefined,
    });
    return original(input, init);
  }) as typeof fetch;
  return {
    calls,
    searches: () => calls.filter((c) => c.call.startsWith('POST /api/records/search')),
    stop: () => {
      globalThis.fetch = original;
    },
  };
}

/** Search at /search as the shell routes it: it leaves the page for a record, and comes back on Back. */
function SearchRoutes() {
  return (
    <Switch>
      <Route path="/search" component={Search} />
      <Route path="/record/:id">{(params) => <p>{`Record ${params.id}`}</p>}</Route>
    </Switch>
  );
}

/** Opens an address of the screen, as a bookmark or a link does. */
async function openedAt(path: string) {
  openAt(`${url}${path}`);
  const user = userEvent.setup();
  const rendered = renderScreen(<SearchRoutes />);
  await screen.findByRole('heading', { name: 'Search Records' });
  return { user, ...rendered };
}

const address = () => `${window.location.pathname}${window.location.search}`;
const fieldValue = (label: string) => (screen.getByLabelText(label) as HTMLInputElement).value;
const selectShows = (label: string) =>
  screen.getByLabelText(label).closest('.ant-select')?.querySelector('.ant-select-content')?.textContent?.trim();
const cyber = () => screen.getByRole('checkbox', { name: 'Cyber-Assisted' });
const formClear = () =>
  screen.getAllByRole('button', { name: 'Clear' }).find((b) => b.textContent === 'Clear') as HTMLElement;

describe('Search Records in the address', () => {
  beforeAll(async () => {
    await signedInAs('BPS'); // the paging test above signed in as FIA
  });

  it('puts the submitted filters in the address, a new history entry per search', async () => {
    const user = await shown();
    const before = window.history.length;
    await user.type(screen.getByLabelText('Free Text Search'), '  ransom crypto ');
    fireEvent.change(screen.getByLabelText('Date of Birth'), { target: { value: '1988-12-24' } });
    await user.type(screen.getByLabelText('Case Amount'), '1000000');
    await pick(user, 'Crime Type', 'Kidnapping, illegal restraint and hostage-taking');
    await pick(user, 'Nexus Country', 'Panama');
    await user.click(cyber());
    await searchFor(user, 1);
    expect(shownNumbers()).toEqual([rich.incidentNumber]);
    expect(address()).toBe(
      '/search?freeText=ransom+crypto&suspectDob=1988-12-24&caseAmount=1000000' +
        '&crimeType=Kidnapping%2Fillegal+restraint+and+hostage-taking&country=Panama&cyberAssisted=true',
    );
    expect(window.history.length).toBe(before + 1);

    // The same search again: results asked again, no second entry.
    await searchFor(user, 1);
    expect(window.history.length).toBe(before + 1);

    // No filter at all is a search too (every record), unlike plain /search.
    await user.click(formClear());
    await searchFor(user, 2);
    expect(address()).toBe('/search?all=true');
  });

  it('opens an address: fills the form and shows its results, with the request Search makes and no toast', async () => {
    const watch = watchCalls();
    try {
      const { user } = await openedAt('/search?suspectName=Rosalind+Wealthey&incidentDate=2024-10-31&country=Panama');
      await waitFor(() => expect(shownNumbers()).toEqual([rich.incidentNumber]));
      expect(fieldValue('Suspect Name')).toBe('Rosalind Wealthey');
      expect(fieldValue('Incident Date')).toBe('2024-10-31');
      expect(selectShows('Nexus Country')).toBe('Panama');
      expect(fieldValue('Free Text Search')).toBe('');
      expect(cyber()).not.toBeChecked();
      expect(screen.getByText('Results (1)')).toBeInTheDocument();
      // The toast answers a Search press; an opened address shows its results without one.
      expect(toastText('Found')).toBeUndefined();
      expect(watch.searches()).toHaveLength(1);

      // Search pressed on the filled form sends the very same request, and says what it found.
      await searchFor(user, 1);
      expect(watch.searches()).toHaveLength(2);
      expect(watch.searches()[1]).toEqual(watch.searches()[0]);
      expect(watch.searches()[0]).toEqual({
        call: 'POST /api/records/search?limit=100',
        body: { suspectName: 'Rosalind Wealthey', incidentDate: '2024-10-31', country: 'Panama' },
      });
      expect(address()).toBe('/search?suspectName=Rosalind+Wealthey&incidentDate=2024-10-31&country=Panama');
    } finally {
      watch.stop();
    }
  });

  it('opens an address with every filter of the form', async () => {
    await openedAt(
      '/search?freeText=ransom&incidentNumber=' +
        encodeURIComponent(rich.incidentNumber) +
        '&suspectName=Rosalind&suspectDob=1988-12-24&incidentDate=2024-10-31&caseAmount=1000000' +
        '&seizedAmount=2500.5&confiscatedAmount=99.50&crimeType=Kidnapping%2Fillegal+restraint+and+hostage-taking' +
        '&country=panama&cyberAssisted=true',
    );
    await waitFor(() => expect(shownNumbers()).toEqual([rich.incidentNumber]));
    expect(fieldValue('Free Text Search')).toBe('ransom');
    expect(fieldValue('Incident Number')).toBe(rich.incidentNumber);
    expect(fieldValue('Date of Birth')).toBe('1988-12-24');
    expect(fieldValue('Seized')).toBe('2500.50');
    expect(selectShows('Crime Type')).toBe('Kidnapping, illegal restraint and hostage-taking');
    expect(selectShows('Nexus Country')).toBe('Panama'); // the list's spelling
    expect(cyber()).toBeChecked();
  });

  it('ignores unknown and invalid parameters, one by one, and drops them from the address', async () => {
    const watch = watchCalls();
    try {
      await openedAt(
        '/search?suspectName=Quentin+Plainview&freeText=+&suspectDob=2023-02-30&incidentDate=yesterday' +
          '&caseAmount=-1&seizedAmount=1.234&confiscatedAmount=abc&crimeType=Shoplifting&country=Atlantis' +
          '&cyberAssisted=yes&incidentNumber=A&incidentNumber=B&amount=5&limit=1&%24where=1&other',
      );
      await waitFor(() => expect(shownNumbers()).toEqual([plain.incidentNumber]));
      expect(watch.searches().map((c) => c.body)).toEqual([{ suspectName: 'Quentin Plainview' }]);
      expect(address()).toBe('/search?suspectName=Quentin+Plainview');
      for (const label of ['Free Text Search', 'Incident Number', 'Date of Birth', 'Incident Date', 'Seized']) {
        expect({ label, value: fieldValue(label) }).toEqual({ label, value: '' });
      }
      expect(selectShows('Crime Type')).toBe('Any crime type');
      expect(selectShows('Nexus Country')).toBe('Any country');
      expect(cyber()).not.toBeChecked();
    } finally {
      watch.stop();
    }
  });

  it('runs no search when no parameter is valid', async () => {
    const watch = watchCalls();
    try {
      await openedAt('/search?crimeType=Shoplifting&cyberAssisted=false&all=yes');
      expect(address()).toBe('/search');
      expect(screen.getByText(EMPTY_TEXT)).toBeInTheDocument();
      expect(screen.getByText('Results')).toBeInTheDocument();
      expect(watch.searches()).toEqual([]);
    } finally {
      watch.stop();
    }
  });

  it('Clear empties the form, the results and the address', async () => {
    const { user } = await openedAt('/search');
    await user.type(screen.getByLabelText('Suspect Name'), 'Quentin Plainview');
    await searchFor(user, 1);
    await user.click(formClear());
    expect(address()).toBe('/search');
    expect(fieldValue('Suspect Name')).toBe('');
    expect(screen.getByText(EMPTY_TEXT)).toBeInTheDocument();
    // Back undoes the Clear.
    window.history.back();
    await waitFor(() => expect(address()).toBe('/search?suspectName=Quentin+Plainview'));
    await waitFor(() => expect(shownNumbers()).toEqual([plain.incidentNumber]));
    expect(fieldValue('Suspect Name')).toBe('Quentin Plainview');
  });

  it('Back from a record opened from the results shows the search again, from the cache', async () => {
    const { user } = await openedAt('/search');
    await user.type(screen.getByLabelText('Suspect Name'), 'Quentin Plainview');
    await searchFor(user, 1);
    await user.clear(screen.getByLabelText('Suspect Name'));
    await user.type(screen.getByLabelText('Free Text Search'), 'ransom');
    await searchFor(user, 1);
    // The first search's toast and row (also one) may still be shown: wait for this search's row.
    await waitFor(() => expect(shownNumbers()).toEqual([rich.incidentNumber]));
    await user.click(screen.getByText('Rosalind Wealthy'));
    await screen.findByText(`Record ${rich.id}`); // the screen has gone

    window.history.back();
    await screen.findByRole('heading', { name: 'Search Records' });
    // At once, from the query cache: the filled form and the rows, with no wait for an answer.
    expect(address()).toBe('/search?freeText=ransom');
    expect(fieldValue('Free Text Search')).toBe('ransom');
    expect(fieldValue('Suspect Name')).toBe('');
    expect(shownNumbers()).toEqual([rich.incidentNumber]);
    expect(screen.getByText('Results (1)')).toBeInTheDocument();

    // Back once more: the search before, its filters and its results.
    window.history.back();
    await waitFor(() => expect(fieldValue('Suspect Name')).toBe('Quentin Plainview'));
    expect(fieldValue('Free Text Search')).toBe('');
    expect(shownNumbers()).toEqual([plain.incidentNumber]);
    expect(address()).toBe('/search?suspectName=Quentin+Plainview');
  });

  it('a failed Search press hides the results under the address, and keeps the address', async () => {
    const { user } = await openedAt('/search?suspectName=Quentin+Plainview');
    await waitFor(() => expect(shownNumbers()).toEqual([plain.incidentNumber]));
    await fetch('/api/auth/logout', { method: 'POST' });
    try {
      await user.click(screen.getByRole('button', { name: 'Search' }));
      await waitFor(() => expect(toastText('Failed to search records')).toBeDefined());
      await waitFor(() => expect(rows()).toHaveLength(0));
      expect(address()).toBe('/search?suspectName=Quentin+Plainview');
    } finally {
      await signedInAs('BPS');
    }
  });

  it('says so when the search of an opened address fails', async () => {
    await fetch('/api/auth/logout', { method: 'POST' });
    try {
      await openedAt('/search?suspectName=Quentin+Plainview');
      await waitFor(() => expect(toastText('Failed to search records')).toBeDefined());
      expect(rows()).toHaveLength(0);
      expect(screen.getByText('Results')).toBeInTheDocument();
    } finally {
      await signedInAs('BPS');
    }
  });
});

describe('the search address', () => {
  it('holds the filters the form sends, in the form’s order, and "all" for none', () => {
    expect(queryOf(null)).toBe('');
    expect(searchUrl(null)).toBe('/search');
    expect(searchUrl({})).toBe('/search?all=true');
    expect(
      queryOf({
        cyberAssisted: true,
        crimeType: 'Fraud',
        freeText: 'smith & sons',
        caseAmount: '10',
        country: 'Panama',
      }),
    ).toBe('freeText=smith+%26+sons&caseAmount=10&crimeType=Fraud&country=Panama&cyberAssisted=true');
  });

  it('reads back what it writes', () => {
    const filters = toFilters({
      freeText: '100% "cash" + gold',
      incidentNumber: 'BPS/2024#7',
      suspectName: 'Ünal O’Brien',
      suspectDob: '1970-01-31',
      incidentDate: '2024-02-29',
      caseAmount: '0',
      seizedAmount: '12.5',
      confiscatedAmount: '9999999999.99',
      crimeType: 'Kidnapping/illegal restraint and hostage-taking',
      country: "Côte d'Ivoire",
      cyberAssisted: true,
    });
    expect(filtersFromQuery(queryOf(filters))).toEqual(filters);
    expect(filtersFromQuery('all=true')).toEqual({});
    expect(filtersFromQuery('')).toBeNull();
  });

  it('drops what the contracts’ schema refuses, field by field', () => {
    expect(
      filtersFromQuery(
        'freeText=' +
          'x'.repeat(501) +
          '&suspectName=%20Ann%20&suspectDob=1799-12-31&incidentDate=2024-02-29T10:00:00Z&caseAmount=1e3' +
          '&seizedAmount=12345678901&confiscatedAmount=0.5&crimeType=fraud&country=%7B%22%24gt%22%3A%22%22%7D' +
          '&cyberAssisted=1&amount=10',
      ),
    ).toEqual({ suspectName: 'Ann', incidentDate: '2024-02-29', confiscatedAmount: '0.5' });
    // Malformed escapes never throw.
    expect(filtersFromQuery('%E0%A4%A=1&suspectName=%E0%A4%A')).toEqual({ suspectName: '\uFFFD%A' });
  });
});
