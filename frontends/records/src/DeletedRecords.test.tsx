import { spawnStack } from '@nrad/gateway/spawn-stack';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRecord, createRecords, deleteRecord } from '../../shared/test/records-api.ts';
import { openAt, renderScreen, signedInAs, toastText } from '../../shared/test/render.tsx';
import DeletedRecords, { RESTORE_CONFIRM_TITLE } from './DeletedRecords.tsx';

beforeAll(async () => {
  const { url } = await spawnStack();
  openAt(`${url}/deleted-records`);
});

const rowOf = (text: string) => screen.getByText(text).closest('tr') as HTMLElement;

describe('Deleted Records', () => {
  it('says so when nothing is deleted', async () => {
    await signedInAs('CUS');
    renderScreen(<DeletedRecords />);
    expect(await screen.findByRole('heading', { name: 'Deleted Records (0)' })).toBeInTheDocument();
    expect(screen.getByText('No deleted records found')).toBeInTheDocument();
  });

  it('lists the agency’s deleted records with SPEC’s columns, and only its own', async () => {
    await signedInAs('FIA');
    const elsewhere = await createRecord({ suspectName: 'Other Agency' });
    await deleteRecord(elsewhere.id);
    await signedInAs('BPS');
    const abroad = await createRecord({
      suspectName: 'Abroad Person',
      internationalNexus: true,
      country: 'Jamaica',
      crimeType: 'Drugs',
      caseAmount: '1234567.8',
    });
    const home = await createRecord({ suspectName: 'Home Person', internationalNexus: false });
    const kept = await createRecord({ suspectName: 'Still Active' });
    await deleteRecord(abroad.id);
    await deleteRecord(home.id);

    renderScreen(<DeletedRecords />);
    expect(await screen.findByRole('heading', { name: 'Deleted Records (2)' })).toBeInTheDocument();
    const headers = [...document.querySelectorAll('thead th')].map((th) => th.textContent);
    expect(headers).toEqual([
      'Incident Number',
      'Suspect Name',
      'Crime Type',
      'Country',
      'Case Amount',
      'Deleted Date',
      'Actions',
    ]);
    const abroadRow = rowOf('Abroad Person');
    expect(within(abroadRow).getByText(abroad.incidentNumber)).toBeInTheDocument();
    expect(within(abroadRow).getByText('Jamaica')).toBeInTheDocument();
    expect(within(abroadRow).getByText('Drugs')).toBeInTheDocument();
    expect(within(abroadRow).getByText('$1,234,567.80')).toBeInTheDocument();
    // A record without an international nexus shows no country (not its stored Bermuda).
    expect(within(rowOf('Home Person')).queryByText('Bermuda')).toBeNull();
    const deletedCells = [...document.querySelectorAll('tbody tr.ant-table-row')].map(
      (tr) => tr.children[5]?.textContent,
    );
    expect(deletedCells).toHaveLength(2);
    for (const d of deletedCells) expect(d).toMatch(/^\d{2}\/\d{2}\/\d{4}$/);
    expect(screen.queryByText('Other Agency')).toBeNull();
    expect(screen.queryByText(kept.suspectName)).toBeNull();
  });

  it('restores a record after confirmation, and the list and count follow', async () => {
    await signedInAs('BPS');
    const gone = await createRecord({ suspectName: 'Coming Back' });
    await deleteRecord(gone.id);
    const user = userEvent.setup();
    renderScreen(<DeletedRecords />);
    await screen.findByText('Coming Back');
    const count = () => Number(/\((\d+)\)/.exec(screen.getByRole('heading').textContent ?? '')?.[1]);
    const before = count();
    await user.click(within(rowOf('Coming Back')).getByRole('button', { name: 'Restore' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent(RESTORE_CONFIRM_TITLE);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect((await fetch(`/api/records/${gone.id}`)).status).toBe(404);

    await user.click(within(rowOf('Coming Back')).getByRole('button', { name: 'Restore' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Restore' }));
    await waitFor(() => expect(toastText('Record restored successfully')).toBeDefined());
    await waitFor(() => expect(screen.queryByText('Coming Back')).toBeNull());
    await waitFor(() => expect(count()).toBe(before - 1));
    expect((await fetch(`/api/records/${gone.id}`)).status).toBe(200);
  });

  it('pages through a long list', { timeout: 120_000 }, async () => {
    await signedInAs('CUS');
    const made = await createRecords(105, (i) => ({ suspectName: `Bulk Person ${i}` }));
    for (let start = 0; start < made.length; start += 8) {
      await Promise.all(made.slice(start, start + 8).map((r) => deleteRecord(r.id)));
    }
    const user = userEvent.setup();
    renderScreen(<DeletedRecords />);
    expect(await screen.findByRole('heading', { name: 'Deleted Records (105)' })).toBeInTheDocument();
    await waitFor(() => expect(document.querySelectorAll('tbody tr.ant-table-row')).toHaveLength(100));
    await user.click(screen.getByRole('button', { name: 'Show more (100 of 105)' }));
    await waitFor(() => expect(document.querySelectorAll('tbody tr.ant-table-row')).toHaveLength(105));
    expect(screen.queryByRole('button', { name: /Show more/ })).toBeNull();
  });
});
