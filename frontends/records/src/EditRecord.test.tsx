import { type CaseRecord, RecordFieldsSchema } from '@nrad/contracts';
import { spawnStack } from '@nrad/gateway/spawn-stack';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { Route } from 'wouter';
import { createRecord } from '../../shared/test/records-api.ts';
import { openAt, pick, renderScreen, signedInAs, toastText } from '../../shared/test/render.tsx';
import EditRecord from './EditRecord.tsx';

let url = '';
beforeAll(async () => {
  ({ url } = await spawnStack());
  openAt(`${url}/`);
  await signedInAs('BPS');
});

const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;

function shownAt(id: string) {
  openAt(`${url}/record/${id}/edit`);
  renderScreen(
    <Route path="/record/:id/edit">
      <EditRecord />
    </Route>,
  );
  return userEvent.setup();
}

async function editing(record: CaseRecord) {
  const user = shownAt(record.id);
  await waitFor(() => expect(field('Incident Number')).toHaveValue(record.incidentNumber));
  return user;
}

/** The fields a record is written with (the contracts' schema of its input). */
const EDITABLE = Object.keys(RecordFieldsSchema.shape);
/** Another user's edit, straight through the API, from the version they read. */
const put = (record: CaseRecord, fields: Record<string, unknown>) =>
  fetch(`/api/records/${record.id}`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      ...Object.fromEntries(Object.entries(record).filter(([k]) => EDITABLE.includes(k))),
      version: record.version,
      ...fields,
    }),
  });

describe('Edit Record', () => {
  it('is filled from the record and marks SPEC’s required fields', async () => {
    const record = await createRecord({
      suspectName: 'Prefilled Person',
      caseAmount: '1500.25',
      internationalNexus: true,
      country: 'Canada',
      crimeType: 'Drugs',
      additionalInfo: 'Seen at the airport.',
    });
    await editing(record);
    expect(field('Suspect Name')).toHaveValue('Prefilled Person');
    expect(field('Suspect Date of Birth')).toHaveValue('1980-05-01');
    expect(field('Incident Date')).toHaveValue('2024-03-02');
    // antd's InputNumber shows a value it is given in an effect of its own, a render later.
    await waitFor(() => expect(field('Case Amount')).toHaveValue('1500.25'));
    expect(field('Additional Information')).toHaveValue('Seen at the airport.');
    expect(screen.getByRole('radio', { name: 'Yes' })).toBeChecked();
    expect(field('Country').closest('.ant-select')).toHaveTextContent('Canada');
    expect(screen.getByRole('radio', { name: 'Drugs' })).toBeChecked();
    const required = [...document.querySelectorAll('label.ant-form-item-required')].map((l) => l.textContent);
    for (const label of [
      'Incident Number',
      'Suspect Name',
      'Suspect Date of Birth',
      'Incident Date',
      'Source of Record',
      'Country',
    ]) {
      expect(required).toContain(label);
    }
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
  });

  it('offers the server’s country list', async () => {
    const record = await createRecord({ internationalNexus: true, country: 'Canada' });
    const user = await editing(record);
    const countries = (await (await fetch('/api/dropdown-options/country')).json()) as Array<{ value: string }>;
    const someone = countries.map((c) => c.value).find((c) => c !== 'Bermuda' && c !== 'Canada');
    expect(someone).toBeDefined();
    await pick(user, 'Country', someone as string);
  });

  it('updates the record and returns to its details', async () => {
    const record = await createRecord({ suspectName: 'Before Edit' });
    const user = await editing(record);
    await user.clear(field('Suspect Name'));
    await user.type(field('Suspect Name'), 'After Edit');
    await user.clear(field('Seized Amount'));
    await user.type(field('Seized Amount'), '75.5');
    await user.click(screen.getByRole('button', { name: 'Update Record' }));
    await waitFor(() => expect(toastText('Record updated successfully')).toBeDefined());
    await waitFor(() => expect(window.location.pathname).toBe(`/record/${record.id}`));
    const stored = (await (await fetch(`/api/records/${record.id}`)).json()) as CaseRecord;
    expect([stored.suspectName, stored.seizedAmount]).toEqual(['After Edit', '75.50']);
  });

  it('does not overwrite a change made meanwhile, and says so', async () => {
    const record = await createRecord({ suspectName: 'Shared Case' });
    const user = await editing(record);
    expect((await put(record, { suspectName: 'Changed Elsewhere' })).status).toBe(200);
    await user.clear(field('Suspect Name'));
    await user.type(field('Suspect Name'), 'My Change');
    await user.click(screen.getByRole('button', { name: 'Update Record' }));
    await waitFor(() => expect(toastText('Failed to update record')).toBeDefined());
    expect(await screen.findByText('This record was changed by someone else')).toBeInTheDocument();
    const stored = (await (await fetch(`/api/records/${record.id}`)).json()) as CaseRecord;
    expect(stored.suspectName).toBe('Changed Elsewhere');
    expect(window.location.pathname).toBe(`/record/${record.id}/edit`);

    // Reload shows the other change, and an update from there goes through.
    await user.click(screen.getByRole('button', { name: 'Reload the record' }));
    await waitFor(() => expect(field('Suspect Name')).toHaveValue('Changed Elsewhere'));
    expect(screen.queryByText('This record was changed by someone else')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Update Record' }));
    await waitFor(() => expect(toastText('Record updated successfully')).toBeDefined());
  });

  it('puts what the server refuses on the field, and a blank required field is refused first', async () => {
    const taken = await createRecord();
    const record = await createRecord();
    const user = await editing(record);
    await user.clear(field('Incident Number'));
    await user.click(screen.getByRole('button', { name: 'Update Record' }));
    expect(await screen.findByText('Incident number is required')).toBeInTheDocument();
    await user.type(field('Incident Number'), taken.incidentNumber);
    await user.click(screen.getByRole('button', { name: 'Update Record' }));
    await waitFor(() => expect(toastText('Failed to update record')).toBeDefined());
    expect(await screen.findByText(/already exists/i)).toBeInTheDocument();
  });

  it('refuses a negative amount on its field and leaves the record as it was', async () => {
    const record = await createRecord({ suspectName: 'Positive Person', confiscatedAmount: '20' });
    const user = await editing(record);
    await user.clear(field('Confiscated Amount'));
    await user.type(field('Confiscated Amount'), '-500');
    const fetched = vi.spyOn(globalThis, 'fetch');
    try {
      await user.click(screen.getByRole('button', { name: 'Update Record' }));
      const item = field('Confiscated Amount').closest('.ant-form-item') as HTMLElement;
      await waitFor(() =>
        expect(item).toHaveTextContent('Must be a non-negative amount with at most 2 decimals and 12 digits'),
      );
      expect(field('Confiscated Amount')).toHaveValue('-500.00');
      expect(fetched.mock.calls.filter(([, init]) => init?.method === 'PUT')).toEqual([]);
    } finally {
      fetched.mockRestore();
    }
    expect(toastText('Record updated successfully')).toBeUndefined();
    expect(window.location.pathname).toBe(`/record/${record.id}/edit`);
    const stored = (await (await fetch(`/api/records/${record.id}`)).json()) as CaseRecord;
    expect([stored.confiscatedAmount, stored.version]).toEqual(['20.00', record.version]);
  });

  it('says Record not found for a record that is not there', async () => {
    shownAt('0123456789abcdef01234567');
    expect(await screen.findByText('Record not found')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Update Record' })).toBeNull();
  });
});
