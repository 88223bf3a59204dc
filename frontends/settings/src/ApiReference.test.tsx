import { spawnStack } from '@nrad/gateway/spawn-stack';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { openAt, renderScreen, signedInAs } from '../../shared/test/render.tsx';
import ApiReference, { API_REFERENCE_TITLE } from './ApiReference.tsx';

beforeAll(async () => {
  const { url } = await spawnStack();
  openAt(`${url}/api-reference`);
  await signedInAs('FIA');
});

describe('API Reference', () => {
  it("lists the gateway's OpenAPI document: methods, paths, summaries, and a route's parameters and schemas", async () => {
    const user = userEvent.setup();
    renderScreen(<ApiReference />);
    expect(screen.getByText(API_REFERENCE_TITLE)).toBeInTheDocument();
    const path = await screen.findByText('/api/records/{id}/links/{linkedId}');
    const row = path.closest('tr') as HTMLElement;
    expect(within(row).getByText('DELETE')).toBeInTheDocument();
    expect(within(row).getByText('Reject a link (optionally saying why)')).toBeInTheDocument();
    expect(screen.queryByText(/\/internal\//)).not.toBeInTheDocument();

    await user.click(within(row).getByRole('button', { name: /expand row/i }));
    expect(await screen.findByText('Parameters')).toBeInTheDocument();
    expect(screen.getByText('linkedId')).toBeInTheDocument();
    expect(screen.getByText('Request body (application/json)')).toBeInTheDocument();
    expect(screen.getByText('204')).toBeInTheDocument();
  });

  it('filters the routes by method, path or summary', async () => {
    const user = userEvent.setup();
    renderScreen(<ApiReference />);
    await screen.findByText('/api/stats/countries');
    await user.type(screen.getByLabelText('Filter routes'), 'namlc');
    expect(screen.getByText('/api/records/check-namlc-matches')).toBeInTheDocument();
    expect(screen.queryByText('/api/stats/countries')).not.toBeInTheDocument();
  });
});
