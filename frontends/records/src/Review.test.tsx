import { spawnStack } from '@nrad/gateway/spawn-stack';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRecord, linksOf } from '../../shared/test/records-api.ts';
import { openAt, renderScreen, signedInAs, toastText } from '../../shared/test/render.tsx';
import Review, { CONFIRMED, REJECT_TITLE, REJECTED, REVIEW_INTRO } from './Review.tsx';

// A stack whose linking service proposes pairs from 50 up to 99.8 and links above (the band's
// mechanics; its calibrated default is issue 36's evaluation): a typo in the surname with the
// day's digits swapped scores about 99.6.
beforeAll(async () => {
  const { url } = await spawnStack({ linking: { threshold: 99.8, reviewThreshold: 50 } });
  openAt(`${url}/review`);
});

/** The signed-in user's count of possible matches to decide. */
async function openCount(): Promise<number> {
  return ((await (await fetch('/api/possible-matches/count')).json()) as { open: number }).open;
}

/** A police record and an FIA record of one suspect that the scorer puts in the band; signed in as FIA after. */
async function proposedPair(surname: string) {
  await signedInAs('BPS');
  const police = await createRecord({ suspectName: `Hortensia ${surname}`, suspectDob: '1959-11-30' });
  await signedInAs('FIA');
  const before = await openCount();
  const fiu = await createRecord({ suspectName: `Hortensia ${surname.replace('ck', 'k')}`, suspectDob: '1959-11-13' });
  await waitFor(async () => expect(await openCount()).toBe(before + 1), { timeout: 15_000 });
  return { police, fiu };
}

describe('Review (possible matches)', () => {
  it('shows the pair with both records and why, and Confirm links them', async () => {
    const { police, fiu } = await proposedPair('Blackwood');
    renderScreen(<Review />);
    expect(await screen.findByRole('heading', { name: 'Possible Matches (1)' })).toBeInTheDocument();
    expect(screen.getByText(REVIEW_INTRO)).toBeInTheDocument();
    const pair = screen.getByRole('article', {
      name: `Possible match: ${fiu.incidentNumber} and ${police.incidentNumber}`,
    });
    // The user's own record first, then the other agency's, with the match panel's fields only.
    expect(within(pair).getByText('Your record (Financial Intelligence Agency)')).toBeInTheDocument();
    expect(within(pair).getByText('Bermuda Police Service')).toBeInTheDocument();
    expect(within(pair).getByText(police.suspectName)).toBeInTheDocument();
    expect(within(pair).getByText(police.incidentNumber)).toBeInTheDocument();
    expect(within(pair).queryByText(police.sourceOfRecord)).toBeNull();
    expect(within(pair).getByText(/% match$/)).toBeInTheDocument();
    expect(within(pair).getByRole('columnheader', { name: 'Field' })).toBeInTheDocument();

    const user = userEvent.setup();
    await user.click(within(pair).getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(toastText(CONFIRMED)).toBeDefined());
    expect(await screen.findByRole('heading', { name: 'Possible Matches (0)' })).toBeInTheDocument();
    expect(screen.getByText('No possible matches to review')).toBeInTheDocument();
    const links = await linksOf(fiu.id);
    expect(links.map((l) => [l.linkedRecordId, l.linkType])).toEqual([[police.id, 'manual']]);
  });

  it('Reject asks first, takes a reason, and the pair is never proposed or linked again', async () => {
    const { police, fiu } = await proposedPair('Blackmore');
    renderScreen(<Review />);
    const pair = await screen.findByRole('article', {
      name: `Possible match: ${fiu.incidentNumber} and ${police.incidentNumber}`,
    });
    const user = userEvent.setup();
    await user.click(within(pair).getByRole('button', { name: 'Reject' }));
    const dialog = await screen.findByRole('dialog', { name: REJECT_TITLE });
    await user.type(within(dialog).getByLabelText('Reason'), 'Sisters, born the same year');
    await user.click(within(dialog).getByRole('button', { name: 'Reject' }));
    await waitFor(() => expect(toastText(REJECTED)).toBeDefined());
    await waitFor(() => expect(screen.queryByRole('article')).toBeNull());
    expect(await openCount()).toBe(0);
    // Linking the two by hand is refused as any refused link is.
    const manual = await fetch('/api/records/link', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ sourceRecordId: fiu.id, linkedRecordId: police.id }),
    });
    expect(manual.status).toBe(404);
  });

  it('shows a third agency nothing of the two', async () => {
    await proposedPair('Blackstone');
    await signedInAs('CUS');
    renderScreen(<Review />);
    expect(await screen.findByRole('heading', { name: 'Possible Matches (0)' })).toBeInTheDocument();
    expect(screen.queryByText(/Blackstone/)).toBeNull();
  });
});
