import { spawnStack } from '@nrad/gateway/spawn-stack';
import { screen } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { Route } from 'wouter';
import { createRecord } from '../../shared/test/records-api.ts';
import { openAt, renderScreen, signedInAs } from '../../shared/test/render.tsx';
import RecordDetails, { LINKING_IN_PROGRESS } from './RecordDetails.tsx';

// A linking service that never sees a record (it consumes a stream nobody publishes to), as one
// far behind a backlog would not yet have: the record's links are not known yet (issue 36).
let url = '';
beforeAll(async () => {
  ({ url } = await spawnStack({ linking: { behind: true } }));
});

describe('Record Details of a record the linking service has not seen yet', () => {
  it('shows the record and says linking is in progress, not that it has no links or is not found', async () => {
    openAt(`${url}/`);
    await signedInAs('BPS');
    const record = await createRecord({ suspectName: 'Unseen Suspect' });
    openAt(`${url}/record/${record.id}`);
    renderScreen(
      <Route path="/record/:id">
        <RecordDetails />
      </Route>,
    );
    expect(await screen.findByText(LINKING_IN_PROGRESS, {}, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.getByText('Unseen Suspect')).toBeInTheDocument();
  });
});
