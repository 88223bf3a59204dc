import type { CaseRecord } from '@nrad/contracts';
import { CHECK_MATCHES_MISSING_FIELDS } from '@nrad/contracts';
import { spawnStack } from '@nrad/gateway/spawn-stack';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRecord, incidentNumber } from '../../shared/test/records-api.ts';
import { openAt, pick, renderScreen, signedInAs, toastText } from '../../shared/test/render.tsx';
import AddRecord, { ALREADY_LINKED_TITLE, alreadyLinkedText, LINK_FIRST, REJECTED_TAG } from './AddRecord.tsx';
import { LINK_REJECTED, REJECT_LINK_TITLE, rejectLinkText } from './link-actions.tsx';

type User = ReturnType<typeof userEvent.setup>;
const REFERRAL = 'Referral from NAMLC organization';
/** The contracts' amount message (the records service's), as the field shows it. */
const NEGATIVE_AMOUNT = 'Must be a non-negative amount with at most 2 decimals and 12 digits';
let police: CaseRecord;

beforeAll(async () => {
  const { url } = await spawnStack();
  openAt(`${url}/records`);
  await signedInAs('BPS');
  police = await createRecord({
    suspectName: 'Desmond Outerbridge',
    suspectDob: '1977-08-21',
    incidentDate: '2025-02-14',
    caseAmount: '12500',
  });
  await signedInAs('FIA'); // the screen is used by the Financial Intelligence Agency from here on
  // The linking service indexes the police record from its event: wait until a check finds it.
  const until = Date.now() + 20_000;
  for (;;) {
    const response = await fetch('/api/records/check-namlc-matches', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        namlcOrganization: 'Bermuda Police Service',
        suspectName: 'Desmond Outerbridge',
        suspectDob: '1977-08-21',
        incidentDate: '2025-02-14',
        caseAmount: '12500',
      }),
    });
    if (response.ok && ((await response.json()) as { matches: unknown[] }).matches.length > 0) break;
    if (Date.now() > until) throw new Error('the police record was not indexed');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

afterEach(() => {
  vi.restoreAllMocks();
});

const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;
const setDate = (label: string, value: string) => fireEvent.change(field(label), { target: { value } });

async function fill(
  user: User,
  r: { incidentNumber: string; suspectName: string; dob?: string; incidentDate?: string; caseAmount?: string },
) {
  await user.type(field('Incident Number'), r.incidentNumber);
  await user.type(field('Suspect Name'), r.suspectName);
  if (r.dob) setDate('Suspect Date of Birth', r.dob);
  if (r.incidentDate) setDate('Incident Date', r.incidentDate);
  if (r.caseAmount) {
    await user.clear(field('Case Amount'));
    await user.type(field('Case Amount'), r.caseAmount);
  }
}

async function shown() {
  const user = userEvent.setup();
  renderScreen(<AddRecord />);
  await screen.findByRole('heading', { name: 'Add New Record' });
  return user;
}

/** The text of the form item holding the control labelled `label` (its errors show there). */
const itemOf = (label: string) => field(label).closest('.ant-form-item') as HTMLElement;

describe('Add New Record', () => {
  it('marks the required fields, starts amounts at 0, and says what is missing', async () => {
    const user = await shown();
    const required = [...document.querySelectorAll('label.ant-form-item-required')].map((l) => l.textContent);
    expect(required).toEqual([
      'Incident Number',
      'Suspect Name',
      'Suspect Date of Birth',
      'Incident Date',
      'Source of Record',
      'International Nexus',
    ]);
    for (const label of ['Case Amount', 'Seized Amount', 'Confiscated Amount']) {
      expect(field(label)).toHaveValue('0.00');
      expect(field(label)).toHaveAttribute('step', '0.01');
    }
    expect(screen.getByLabelText('Case Information')).toBeInTheDocument();
    expect(screen.getByRole('radio', { name: 'No' })).toBeChecked();
    expect(screen.queryByLabelText('Country')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Save Record' }));
    await waitFor(() => expect(toastText('Suspect date of birth is required')).toBeDefined());
    // antd renders a field's error list a moment after the toast (it animates in): wait for each.
    await waitFor(() => {
      expect(itemOf('Incident Number')).toHaveTextContent('Incident number is required');
      expect(itemOf('Suspect Name')).toHaveTextContent('Suspect name is required');
      expect(itemOf('Incident Date')).toHaveTextContent('Incident date is required');
      expect(itemOf('Source of Record')).toHaveTextContent('Source of record is required');
    });

    setDate('Suspect Date of Birth', '1980-05-01');
    await user.click(screen.getByRole('button', { name: 'Save Record' }));
    await waitFor(() => expect(toastText('Incident date is required')).toBeDefined());
  });

  it('shows Country only with an international nexus, and No puts Bermuda back', async () => {
    const user = await shown();
    await user.click(screen.getByRole('radio', { name: 'Yes' }));
    expect(await screen.findByLabelText('Country')).toBeInTheDocument();
    await pick(user, 'Country', 'Jamaica');
    await user.click(screen.getByRole('radio', { name: 'No' }));
    await waitFor(() => expect(screen.queryByLabelText('Country')).toBeNull());

    // Saved with No: the record's country is Bermuda, not the Jamaica chosen before.
    const number = incidentNumber('NEXUS');
    await fill(user, {
      incidentNumber: number,
      suspectName: 'Nexus Person',
      dob: '1990-01-02',
      incidentDate: '2024-06-07',
    });
    await pick(user, 'Source of Record', 'Police Investigation');
    await user.click(screen.getByRole('button', { name: 'Save Record' }));
    await waitFor(() => expect(toastText('Record created successfully')).toBeDefined());
    const found = (await (
      await fetch('/api/records/search', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ incidentNumber: number }),
      })
    ).json()) as CaseRecord[];
    expect(found.map((r) => [r.internationalNexus, r.country])).toEqual([[false, 'Bermuda']]);
    // No matches were checked: the form starts again.
    expect(field('Incident Number')).toHaveValue('');
  });

  it('reveals the subtypes of the chosen crime type, and a new type clears the subtype', async () => {
    const user = await shown();
    expect(screen.queryByLabelText('Crime Subtype')).toBeNull();
    await user.click(screen.getByRole('radio', { name: 'Fraud' }));
    await pick(user, 'Crime Subtype', 'Investment Fraud/Scams');
    const subtypeItem = () => itemOf('Crime Subtype');
    expect(subtypeItem()).toHaveTextContent('Investment Fraud/Scams');
    await user.click(screen.getByRole('radio', { name: 'Drugs' }));
    await waitFor(() => expect(subtypeItem()).not.toHaveTextContent('Investment Fraud/Scams'));
    await user.click(screen.getByLabelText('Crime Subtype'));
    // Only the new type's subtypes are offered.
    await waitFor(() => expect(document.querySelector('.ant-select-dropdown')).not.toBeNull());
    const offered = [...document.querySelectorAll('.ant-select-dropdown .ant-select-item-option')].map((o) =>
      o.getAttribute('title'),
    );
    expect(offered).not.toContain('Investment Fraud/Scams');
    expect(offered.length).toBeGreaterThan(0);
  });

  it('asks for the five fields before a match check', async () => {
    const user = await shown();
    expect(screen.queryByRole('button', { name: 'Check for Potential Matches' })).toBeNull();
    await pick(user, 'Source of Record', REFERRAL);
    expect(await screen.findByLabelText('NAMLC Organization')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Check for Potential Matches' }));
    await waitFor(() => expect(toastText(CHECK_MATCHES_MISSING_FIELDS)).toBeDefined());
    expect(screen.queryByTestId('match-panel')).toBeNull();
  });

  it('finds the police record with a typo in the name, explains it, saves, and links', async () => {
    const user = await shown();
    const number = incidentNumber('FIA');
    await fill(user, {
      incidentNumber: number,
      suspectName: 'OUTERBRIDGE, Desmund',
      dob: '1977-08-21',
      incidentDate: '2025-02-15',
      caseAmount: '12500',
    });
    await pick(user, 'Source of Record', REFERRAL);
    await pick(user, 'NAMLC Organization', 'Bermuda Police Service');
    await user.click(screen.getByRole('button', { name: 'Check for Potential Matches' }));
    await waitFor(() =>
      expect(toastText('Found 1 potential matching record(s) in Bermuda Police Service')).toBeDefined(),
    );
    const panel = screen.getByTestId('match-panel');
    expect(within(panel).getByText('Found 1 Potential Match(es)')).toBeInTheDocument();
    const match = within(panel).getByTestId('match');
    for (const text of [
      police.incidentNumber,
      'Desmond Outerbridge',
      '08/21/1977',
      '02/14/2025',
      '$12,500.00',
      'BPS',
    ]) {
      expect(within(match).getByText(text)).toBeInTheDocument();
    }
    expect(within(match).getByText(/^\d+(\.\d+)?% match$/)).toBeInTheDocument();
    expect(within(panel).getByText(LINK_FIRST)).toBeInTheDocument();
    expect(within(panel).queryByRole('button', { name: 'Link Records' })).toBeNull();

    await user.click(within(match).getByRole('button', { name: 'Why?' }));
    for (const f of ['Suspect name', 'Date of birth', 'Incident date', 'Case amount', 'Confidence']) {
      expect(within(match).getByText(f)).toBeInTheDocument();
    }

    await user.click(screen.getByRole('button', { name: 'Save Record' }));
    await waitFor(() => expect(toastText('Record created successfully')).toBeDefined());
    // Matches present: the form stays, Save is done, and linking is possible.
    expect(field('Incident Number')).toHaveValue(number);
    expect(screen.getByRole('button', { name: 'Save Record' })).toBeDisabled();
    expect(screen.getByText(`Record ${number} was saved.`)).toBeInTheDocument();
    // NRAD links the saved record to the police record by itself: the card says so, nothing is
    // left to link, and no toast claims a link the user made.
    await waitFor(() => expect(within(match).getByText('Linked')).toBeInTheDocument(), { timeout: 15_000 });
    expect(within(panel).getByRole('button', { name: 'Link Records' })).toBeDisabled();
    expect(within(match).getByRole('checkbox')).toBeDisabled();
    expect(within(panel).getByText(ALREADY_LINKED_TITLE)).toBeInTheDocument();
    expect(within(panel).getByText(alreadyLinkedText(1, number, police.incidentNumber))).toBeInTheDocument();
    expect(toastText('Records linked successfully')).toBeUndefined();

    // Clear starts a new record.
    await user.click(screen.getByRole('button', { name: 'Clear' }));
    expect(field('Incident Number')).toHaveValue('');
    expect(screen.queryByTestId('match-panel')).toBeNull();
    expect(screen.getByRole('button', { name: 'Save Record' })).toBeEnabled();
  });

  /** Fills a record like the police one, checks the Bermuda Police Service and waits for the match. */
  async function matched(user: User, number: string) {
    await fill(user, {
      incidentNumber: number,
      suspectName: 'Desmond Outerbridge',
      dob: '1977-08-21',
      incidentDate: '2025-02-14',
      caseAmount: '12500',
    });
    await pick(user, 'Source of Record', REFERRAL);
    await pick(user, 'NAMLC Organization', 'Bermuda Police Service');
    await user.click(screen.getByRole('button', { name: 'Check for Potential Matches' }));
    await waitFor(() =>
      expect(toastText('Found 1 potential matching record(s) in Bermuda Police Service')).toBeDefined(),
    );
    return within(screen.getByTestId('match-panel'));
  }

  it('marks a match Linked when the server answers "already linked", with no success toast', async () => {
    // The screen's read of the saved record's links answers "none yet" (the auto-link not seen
    // yet), so the click reaches the server for a pair NRAD has linked already: a 409.
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (/\/api\/records\/[0-9a-f]{24}\/links$/.test(url) && (init?.method ?? 'GET') === 'GET') {
        return Promise.resolve(new Response('[]', { status: 200, headers: { 'Content-Type': 'application/json' } }));
      }
      return realFetch(input, init);
    });
    const user = await shown();
    const number = incidentNumber('FIA');
    const panel = await matched(user, number);
    await user.click(screen.getByRole('button', { name: 'Save Record' }));
    await waitFor(() => expect(toastText('Record created successfully')).toBeDefined());
    const button = await panel.findByRole('button', { name: 'Link Records' });
    expect(button).toBeEnabled();
    expect(panel.queryByText('Linked')).toBeNull();
    // Wait (past the screen's view) until NRAD has linked the new record by itself.
    const search = await realFetch('/api/records/search', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ incidentNumber: number }),
    });
    const [saved] = (await search.json()) as CaseRecord[];
    for (const until = Date.now() + 20_000; ; ) {
      const links = (await (await realFetch(`/api/records/${saved?.id}/links`)).json()) as unknown[];
      if (links.length > 0) break;
      if (Date.now() > until) throw new Error('NRAD did not link the record');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const answered = vi.mocked(globalThis.fetch).mock.calls.length;
    await user.click(button);
    await waitFor(() => expect(panel.getByText('Linked')).toBeInTheDocument());
    const linkCalls = vi
      .mocked(globalThis.fetch)
      .mock.calls.slice(answered)
      .filter(([input]) => String(input).endsWith('/api/records/link'));
    expect(linkCalls).toHaveLength(1);
    await waitFor(() => expect(panel.getByRole('button', { name: 'Link Records' })).toBeDisabled());
    expect(panel.getByText(alreadyLinkedText(1, number, police.incidentNumber))).toBeInTheDocument();
    expect(toastText('Records linked successfully')).toBeUndefined();
    expect(toastText('Failed to link records')).toBeUndefined();
  });

  it('links a match NRAD did not link: "Records linked successfully", and the card says Linked', async () => {
    const user = await shown();
    const number = incidentNumber('FIA');
    const panel = await matched(user, number);
    // The record saved is another person's (checked first, then changed): NRAD links nothing, and
    // the investigator links by hand.
    await user.clear(field('Suspect Name'));
    await user.type(field('Suspect Name'), 'Philippa Zuill');
    setDate('Suspect Date of Birth', '1991-12-03');
    await user.click(screen.getByRole('button', { name: 'Save Record' }));
    await waitFor(() => expect(toastText('Record created successfully')).toBeDefined());
    const button = await panel.findByRole('button', { name: 'Link Records' });
    expect(panel.queryByText('Linked')).toBeNull();
    await user.click(button);
    await waitFor(() => expect(toastText('Records linked successfully')).toBeDefined());
    expect(panel.getByText('Linked')).toBeInTheDocument();
    await waitFor(() => expect(panel.getByRole('button', { name: 'Link Records' })).toBeDisabled());
    expect(panel.queryByText(ALREADY_LINKED_TITLE)).toBeNull();
  });

  it('rejects a match NRAD linked: Rejected, no longer ticked or linkable, and never Linked again', async () => {
    const user = await shown();
    const number = incidentNumber('FIA');
    const panel = await matched(user, number);
    const match = panel.getByTestId('match');
    // Before the save there is no link to reject.
    expect(within(match).queryByRole('button', { name: /^Reject/ })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Save Record' }));
    await waitFor(() => expect(toastText('Record created successfully')).toBeDefined());
    await waitFor(() => expect(within(match).getByText('Linked')).toBeInTheDocument(), { timeout: 15_000 });

    await user.click(within(match).getByRole('button', { name: `Reject the link to ${police.incidentNumber}` }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(REJECT_LINK_TITLE)).toBeInTheDocument();
    expect(within(dialog).getByText(rejectLinkText('BPS'))).toBeInTheDocument();
    // Watched (not changed): the screen's reads of the saved record's links after the rejection.
    const sent = vi.spyOn(globalThis, 'fetch');
    const linkReads = () =>
      sent.mock.calls.flatMap(([input, init], i) =>
        /\/api\/records\/[0-9a-f]{24}\/links$/.test(String(input)) && (init?.method ?? 'GET') === 'GET'
          ? [sent.mock.results[i]?.value as Promise<Response>]
          : [],
      );
    await user.click(within(dialog).getByRole('button', { name: 'Reject' })); // no reason: it is optional
    await waitFor(() => expect(toastText(LINK_REJECTED)).toBeDefined());
    await waitFor(() => expect(within(match).getByText(REJECTED_TAG)).toBeInTheDocument());
    expect(within(match).queryByText('Linked')).toBeNull();
    expect(within(match).getByRole('checkbox')).not.toBeChecked();
    expect(within(match).getByRole('checkbox')).toBeDisabled();
    expect(within(match).queryByRole('button', { name: /^Reject/ })).toBeNull();
    // Nothing is left to link, and no note claims the match is linked.
    expect(panel.getByRole('button', { name: 'Link Records' })).toBeDisabled();
    expect(panel.queryByText(ALREADY_LINKED_TITLE)).toBeNull();

    // The screen read the saved record's links again after the rejection (every record query is,
    // after a change): the read does not mark the match Linked again, and nothing was linked.
    await waitFor(() => expect(linkReads().length).toBeGreaterThan(0));
    await Promise.all(linkReads());
    await waitFor(() => expect(within(match).getByText(REJECTED_TAG)).toBeInTheDocument());
    expect(within(match).queryByText('Linked')).toBeNull();
    expect(sent.mock.calls.filter(([input]) => String(input).endsWith('/api/records/link'))).toEqual([]);
    // The server agrees: the saved record has no link.
    const [saved] = (await (
      await fetch('/api/records/search', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ incidentNumber: number }),
      })
    ).json()) as CaseRecord[];
    expect(await (await fetch(`/api/records/${saved?.id}/links`)).json()).toEqual([]);
  });

  it('says No Matches Found, clears the panel when the source changes, and resets after a save', async () => {
    const user = await shown();
    await fill(user, {
      incidentNumber: incidentNumber('FIA'),
      suspectName: 'Nobody Known',
      dob: '1961-11-30',
      incidentDate: '2025-01-01',
      caseAmount: '5',
    });
    await pick(user, 'Source of Record', REFERRAL);
    await pick(user, 'NAMLC Organization', 'Customs');
    await user.click(screen.getByRole('button', { name: 'Check for Potential Matches' }));
    await waitFor(() =>
      expect(toastText('No matching records found in the selected NAMLC organization.')).toBeDefined(),
    );
    expect(within(screen.getByTestId('match-panel')).getByText('No Matches Found')).toBeInTheDocument();

    await pick(user, 'Source of Record', 'Police Investigation');
    await waitFor(() => expect(screen.queryByTestId('match-panel')).toBeNull());
    expect(screen.queryByLabelText('NAMLC Organization')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Check for Potential Matches' })).toBeNull();
    // Back to the referral: the organization chosen before is gone.
    await pick(user, 'Source of Record', REFERRAL);
    expect(itemOf('NAMLC Organization')).not.toHaveTextContent('Customs');

    await pick(user, 'Source of Record', 'Police Investigation');
    await user.click(screen.getByRole('button', { name: 'Save Record' }));
    await waitFor(() => expect(toastText('Record created successfully')).toBeDefined());
    await waitFor(() => expect(field('Incident Number')).toHaveValue(''));
  });

  it('puts "already exists" on the incident number and keeps what was typed', async () => {
    const user = await shown();
    const taken = (await createRecord({ suspectName: 'First Holder' })).incidentNumber;
    await fill(user, {
      incidentNumber: taken,
      suspectName: 'Second Holder',
      dob: '1970-03-04',
      incidentDate: '2024-01-01',
    });
    await pick(user, 'Source of Record', 'Police Investigation');
    await user.click(screen.getByRole('button', { name: 'Save Record' }));
    await waitFor(() => expect(toastText('Failed to create record')).toBeDefined());
    await waitFor(() => expect(itemOf('Incident Number')).toHaveTextContent(/already exists/i));
    expect(field('Suspect Name')).toHaveValue('Second Holder');
  });

  it('refuses a negative amount on its field (not 0.00), sends nothing, and saves once it is corrected', async () => {
    const user = await shown();
    const number = incidentNumber('NEGATIVE');
    await fill(user, {
      incidentNumber: number,
      suspectName: 'Negative Amount',
      dob: '1970-03-04',
      incidentDate: '2024-01-01',
      caseAmount: '-500',
    });
    for (const label of ['Seized Amount', 'Confiscated Amount']) {
      await user.clear(field(label));
      await user.type(field(label), '-500');
    }
    await pick(user, 'Source of Record', REFERRAL);
    await pick(user, 'NAMLC Organization', 'Bermuda Police Service');
    const fetched = vi.spyOn(globalThis, 'fetch');
    const sent = (path: RegExp) => fetched.mock.calls.filter(([input]) => path.test(String(input)));

    // The match check does not ask with it either.
    await user.click(screen.getByRole('button', { name: 'Check for Potential Matches' }));
    await waitFor(() => expect(itemOf('Case Amount')).toHaveTextContent(NEGATIVE_AMOUNT));
    await user.click(screen.getByRole('button', { name: 'Save Record' }));
    await waitFor(() => {
      for (const label of ['Case Amount', 'Seized Amount', 'Confiscated Amount']) {
        expect(itemOf(label)).toHaveTextContent(NEGATIVE_AMOUNT);
      }
    });
    // What was typed stays (nothing silently became 0.00), and no request left.
    for (const label of ['Case Amount', 'Seized Amount', 'Confiscated Amount']) {
      expect(field(label)).toHaveValue('-500.00');
    }
    expect(sent(/\/api\/records(\/check-namlc-matches)?$/)).toEqual([]);
    expect(toastText('Record created successfully')).toBeUndefined();

    // Corrected, the messages go and the record is saved with the amounts typed.
    for (const label of ['Case Amount', 'Seized Amount', 'Confiscated Amount']) {
      await user.clear(field(label));
      await user.type(field(label), '500');
    }
    await waitFor(() => expect(itemOf('Case Amount')).not.toHaveTextContent(NEGATIVE_AMOUNT));
    await user.click(screen.getByRole('button', { name: 'Save Record' }));
    await waitFor(() => expect(toastText('Record created successfully')).toBeDefined());
    const [saved] = (await (
      await fetch('/api/records/search', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ incidentNumber: number }),
      })
    ).json()) as CaseRecord[];
    expect([saved?.caseAmount, saved?.seizedAmount, saved?.confiscatedAmount]).toEqual(['500.00', '500.00', '500.00']);
  });

  it('refuses a date of birth after the incident date on its field', async () => {
    const user = await shown();
    await fill(user, {
      incidentNumber: incidentNumber('ORDER'),
      suspectName: 'Time Traveller',
      dob: '2025-05-05',
      incidentDate: '2024-01-01',
    });
    await pick(user, 'Source of Record', 'Police Investigation');
    await user.click(screen.getByRole('button', { name: 'Save Record' }));
    await waitFor(() => expect(itemOf('Suspect Date of Birth').querySelector('.ant-form-item-explain')).not.toBeNull());
    expect(field('Incident Number')).not.toHaveValue('');
  });
});
