import type { CaseRecord, RecordLinkView } from '@nrad/contracts';
import { spawnStack } from '@nrad/gateway/spawn-stack';
import { DELETE_CONFIRM_TEXT } from '@nrad/shared';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { Route } from 'wouter';
import { createRecord, linksOf } from '../../shared/test/records-api.ts';
import { openAt, renderScreen, signedInAs, toastText } from '../../shared/test/render.tsx';
import { journeyCircleColors } from './colors.ts';
import { NOT_FOUND_TEXT } from './common.tsx';
import { LINK_REJECTED, LINK_RESTORED, REASON_LABEL, REJECT_LINK_TITLE, rejectLinkText } from './link-actions.tsx';
import RecordDetails from './RecordDetails.tsx';
import { AUTO_LINK_NOTE, closedRecordText } from './RecordJourney.tsx';

let url = '';
let police: CaseRecord;
let intelligence: CaseRecord;

beforeAll(async () => {
  ({ url } = await spawnStack());
  openAt(`${url}/`);
  await signedInAs('BPS');
  police = await createRecord({
    suspectName: 'Marisol Trott',
    suspectDob: '1984-02-29',
    incidentDate: '2025-04-01',
    caseAmount: '250000',
    seizedAmount: '1234.5',
    confiscatedAmount: '99.99',
    internationalNexus: true,
    country: 'Jamaica',
    cyberAssisted: true,
    crimeType: 'Fraud',
    crimeSubtype: 'Investment Fraud/Scams',
    additionalInfo: 'Wire transfers to two accounts.\nFollow-up pending.',
  });
  await signedInAs('FIA');
  intelligence = await createRecord({
    suspectName: 'TROTT, Marisol',
    suspectDob: '1984-02-29',
    incidentDate: '2025-04-03',
    caseAmount: '250000',
    sourceOfRecord: 'Referral from NAMLC organization',
    namlcOrganization: 'Bermuda Police Service',
  });
  await linksOf(intelligence.id); // NRAD links the two by itself
});

/** Signs the page in as the test stack's ADMIN. */
async function asAdmin() {
  const login = await fetch('/api/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    credentials: 'include',
    body: JSON.stringify({ email: 'admin@nrad.test', password: 'admin-password-123' }), // the test stack's ADMIN
  });
  expect(login.status).toBe(200);
}

/** A police record and an FIA referral of the same suspect, which NRAD links by itself. */
async function linkedPair(suspectName: string, suspectDob: string) {
  await signedInAs('BPS');
  const theirs = await createRecord({ suspectName, suspectDob, incidentDate: '2025-03-10', caseAmount: '40000' });
  await signedInAs('FIA');
  const mine = await createRecord({
    suspectName,
    suspectDob,
    incidentDate: '2025-03-11',
    caseAmount: '40000',
    sourceOfRecord: 'Referral from NAMLC organization',
    namlcOrganization: 'Bermuda Police Service',
  });
  await linksOf(mine.id);
  return { theirs, mine };
}

/** The record's links as the page's user reads them. */
async function readLinks(id: string): Promise<RecordLinkView[]> {
  const response = await fetch(`/api/records/${id}/links`);
  expect(response.status).toBe(200);
  return (await response.json()) as RecordLinkView[];
}

function shownAt(path: string) {
  openAt(`${url}${path}`);
  const user = userEvent.setup();
  renderScreen(
    <Route path="/record/:id">
      <RecordDetails />
    </Route>,
  );
  return user;
}

describe('Record Details', () => {
  it('shows the record in its cards, with the linked agency and the Record Journey', async () => {
    shownAt(`/record/${intelligence.id}`);
    expect(await screen.findByRole('heading', { name: intelligence.incidentNumber })).toBeInTheDocument();
    for (const title of [
      'Basic Information',
      'Suspect Information',
      'Financial Information',
      'Classification',
      'Additional Information',
    ]) {
      expect(screen.getByText(title)).toBeInTheDocument();
    }
    expect(screen.getByText('Referral from NAMLC organization')).toBeInTheDocument();
    expect(screen.getByText('TROTT, Marisol')).toBeInTheDocument();
    expect(screen.getByText('02/29/1984')).toBeInTheDocument();
    for (const button of ['Back to Dashboard', 'Edit Record', 'Delete']) {
      expect(screen.getByRole('button', { name: button })).toBeInTheDocument();
    }

    const badges = await screen.findByTestId('linked-organizations');
    expect(within(badges).getByText('BPS')).toBeInTheDocument();

    const journey = await screen.findByTestId('record-journey');
    const chain = within(journey).getByLabelText('Organizations in this journey');
    expect([...chain.querySelectorAll('span[title]')].map((c) => c.textContent)).toEqual(['FIA', 'BPS']);
    // Each circle in its organization's colours (colors.test.ts measures their contrast).
    for (const circle of chain.querySelectorAll<HTMLElement>('span[title]')) {
      const { fill, text } = journeyCircleColors(circle.textContent ?? '');
      expect(circle).toHaveStyle({ color: text, background: fill });
    }
    const link = within(journey).getByTestId('journey-link');
    for (const text of [police.incidentNumber, '04/01/2025', '$250,000.00', '$1,234.50', 'Fraud', 'None']) {
      expect(within(link).getByText(text)).toBeInTheDocument();
    }
    expect(within(link).getByText(/^\d+(\.\d+)?% match$/)).toBeInTheDocument();
    expect(within(journey).getByText(AUTO_LINK_NOTE)).toBeInTheDocument();
    // The police record is not the FIA user's to open: what the link discloses, as text.
    expect(within(link).getByText('Bermuda Police Service ·', { exact: false })).toHaveTextContent(
      `Bermuda Police Service · ${police.incidentNumber}`,
    );
    await waitFor(() => expect(within(link).getByText(closedRecordText('BPS'))).toBeInTheDocument());
    expect(within(link).queryByRole('link')).toBeNull();
    expect(link.querySelector('a')).toBeNull();
    await userEvent.setup().click(within(link).getByRole('button', { name: 'Why?' }));
    expect(within(link).getByText('Suspect name')).toBeInTheDocument();
    expect(within(link).getByText('Confidence')).toBeInTheDocument();
  });

  it('links the other agency’s record for ADMIN, who may open every record', async () => {
    await asAdmin();
    shownAt(`/record/${intelligence.id}`);
    const journey = await screen.findByTestId('record-journey');
    const link = within(journey).getByTestId('journey-link');
    const anchor = await within(link).findByRole('link', { name: police.incidentNumber });
    expect(anchor).toHaveAttribute('href', `/record/${police.id}`);
    expect(within(link).queryByText(closedRecordText('BPS'))).toBeNull();
  });

  it('shows amounts in US dollars, the nexus with its country, and the case text as written', async () => {
    await signedInAs('BPS'); // a new police user: same agency, so the record is theirs to see
    shownAt(`/record/${police.id}`);
    await screen.findByRole('heading', { name: police.incidentNumber });
    expect(screen.getByText('$250,000.00')).toBeInTheDocument();
    expect(screen.getByText('$1,234.50')).toBeInTheDocument();
    expect(screen.getByText('$99.99')).toBeInTheDocument();
    expect(screen.getByText('Yes — Jamaica')).toBeInTheDocument();
    expect(screen.getByText('Investment Fraud/Scams')).toBeInTheDocument();
    expect(screen.getByText(/Wire transfers to two accounts\.\s+Follow-up pending\./)).toBeInTheDocument();
  });

  it('says Record Not Found for another agency’s record, a missing one, and a malformed id', async () => {
    await signedInAs('CUS');
    for (const id of [police.id, '0123456789abcdef01234567', 'not-an-id']) {
      shownAt(`/record/${id}`);
      expect(await screen.findByText('Record Not Found')).toBeInTheDocument();
      expect(screen.getByText(NOT_FOUND_TEXT)).toBeInTheDocument();
      expect(screen.queryByText('Marisol Trott')).toBeNull();
      cleanup();
    }
  });

  it('asks before deleting, can be cancelled, and returns to the dashboard once deleted', async () => {
    await signedInAs('BPS');
    const mine = await createRecord({ suspectName: 'Soon Deleted' });
    const user = shownAt(`/record/${mine.id}`);
    await screen.findByRole('heading', { name: mine.incidentNumber });
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText(DELETE_CONFIRM_TEXT)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect((await fetch(`/api/records/${mine.id}`)).status).toBe(200);

    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(toastText('Record deleted successfully')).toBeDefined());
    await waitFor(() => expect(window.location.pathname).toBe('/'));
    expect((await fetch(`/api/records/${mine.id}`)).status).toBe(404);
  });
  it('rejects a link with a reason: the journey and the badges go, the other agency stops seeing it, ADMIN sees why and restores it', async () => {
    const reason = 'Different people: the same name and date of birth by chance.';
    const { theirs, mine } = await linkedPair('Ottoline Pemberton-Vesey', '1969-07-12');
    const user = shownAt(`/record/${mine.id}`);
    const journey = await screen.findByTestId('record-journey');
    await within(await screen.findByTestId('linked-organizations')).findByText('BPS');
    const rejectButton = await within(journey).findByRole('button', {
      name: `Reject the link to ${theirs.incidentNumber}`,
    });
    expect(rejectButton).toHaveTextContent('Reject');

    // Cancelled: nothing is sent, the link stays.
    await user.click(rejectButton);
    let dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(REJECT_LINK_TITLE)).toBeInTheDocument();
    expect(within(dialog).getByText(rejectLinkText('BPS'))).toBeInTheDocument();
    expect(rejectLinkText('BPS')).toBe(
      'Bermuda Police Service will no longer see this record through the link, and NRAD will not link the two again. Only an administrator can restore it.',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(await readLinks(mine.id)).toHaveLength(1);

    await user.click(rejectButton);
    dialog = await screen.findByRole('dialog');
    const reasonBox = within(dialog).getByLabelText(REASON_LABEL);
    expect(reasonBox).toHaveValue(''); // the cancelled dialog kept nothing
    expect(reasonBox).toHaveAttribute('maxlength', '500');
    await user.type(reasonBox, reason);
    await user.click(within(dialog).getByRole('button', { name: 'Reject' }));
    await waitFor(() => expect(toastText(LINK_REJECTED)).toBeDefined());
    // The only link is gone: so are the journey and the Linked with badges.
    await waitFor(() => expect(screen.queryByTestId('record-journey')).toBeNull());
    expect(screen.queryByTestId('linked-organizations')).toBeNull();
    expect(await readLinks(mine.id)).toEqual([]);

    // The police no longer see the FIA record through the link.
    await signedInAs('BPS');
    expect(await readLinks(theirs.id)).toEqual([]);

    // ADMIN sees the rejected link, greyed and out of the chain, who rejected it, when and why.
    cleanup();
    await asAdmin();
    shownAt(`/record/${mine.id}`);
    const adminJourney = await screen.findByTestId('record-journey');
    const link = within(adminJourney).getByTestId('journey-link');
    expect(link).toHaveAttribute('data-rejected', 'true');
    expect(within(link).getByText('Rejected')).toBeInTheDocument();
    expect(
      within(link).getByText(
        (text) => /^Rejected by Financial Intelligence Agency on \d{2}\/\d{2}\/\d{4}: (.+)$/.exec(text)?.[1] === reason,
      ),
    ).toBeInTheDocument();
    const chain = within(adminJourney).getByLabelText('Organizations in this journey');
    expect([...chain.querySelectorAll('span[title]')].map((c) => c.textContent)).toEqual(['FIA']);
    expect(screen.queryByTestId('linked-organizations')).toBeNull();
    expect(within(link).queryByRole('button', { name: /^Reject/ })).toBeNull();
    const [seen] = await readLinks(mine.id);
    expect(seen?.rejection).toMatchObject({ byOrganization: 'FIA', reason });

    await userEvent
      .setup()
      .click(await within(link).findByRole('button', { name: `Restore the link to ${theirs.incidentNumber}` }));
    await waitFor(() => expect(toastText(LINK_RESTORED)).toBeDefined());
    await waitFor(() => expect(link).not.toHaveAttribute('data-rejected'));
    expect(within(link).queryByText('Rejected')).toBeNull();
    expect(
      within(link).getByRole('button', { name: `Reject the link to ${theirs.incidentNumber}` }),
    ).toBeInTheDocument();
    await within(await screen.findByTestId('linked-organizations')).findByText('BPS');
    expect((await readLinks(mine.id))[0]?.rejection).toBeUndefined();

    // And the police see it again.
    await signedInAs('BPS');
    expect((await readLinks(theirs.id)).map((l) => l.linkedRecord.id)).toEqual([mine.id]);
  });

  it('says why a rejection was refused (the link was rejected meanwhile) and drops the link', async () => {
    const { theirs, mine } = await linkedPair('Bartholomew Inglesby-Tuck', '1958-01-30');
    const user = shownAt(`/record/${mine.id}`);
    const journey = await screen.findByTestId('record-journey');
    const rejectButton = await within(journey).findByRole('button', {
      name: `Reject the link to ${theirs.incidentNumber}`,
    });
    // Meanwhile the police reject it from their side, without a reason.
    await signedInAs('BPS');
    expect((await fetch(`/api/records/${theirs.id}/links/${mine.id}`, { method: 'DELETE' })).status).toBe(204);
    await signedInAs('FIA');

    await user.click(rejectButton);
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Reject' }));
    await waitFor(() => expect(toastText('Link not found')).toBeDefined());
    expect(toastText(LINK_REJECTED)).toBeUndefined();
    await waitFor(() => expect(screen.queryByTestId('record-journey')).toBeNull());
  });
});
