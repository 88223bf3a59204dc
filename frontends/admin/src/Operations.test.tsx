import {
  ADMIN_ACCESS_DENIED,
  OperationsSchema,
  type Operations as OperationsSnapshot,
  QUEUES_BOARD_PATH,
} from '@nrad/contracts';
import { spawnStack } from '@nrad/gateway/spawn-stack';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { holdFetch } from '../../shared/test/fetch.ts';
import { createRecord } from '../../shared/test/records-api.ts';
import { openAt, renderScreen, signedInAs } from '../../shared/test/render.tsx';
import { signedInAsAdmin } from '../test/admin-api.ts';
import Operations from './Operations.tsx';

beforeAll(async () => {
  const { url } = await spawnStack();
  openAt(`${url}/admin/operations`);
});

/** The snapshot as the server gives it (as ADMIN). */
async function snapshot(): Promise<OperationsSnapshot> {
  const response = await fetch('/api/admin/operations');
  if (!response.ok) throw new Error(`operations: ${response.status} ${await response.text()}`);
  return OperationsSchema.parse(await response.json());
}

function renderOperations() {
  const rendered = renderScreen(<Operations />);
  onTestFinished(() => waitFor(() => expect(rendered.queryClient.isFetching()).toBe(0)));
  return rendered;
}

const region = (name: string) => screen.getByRole('region', { name });
const rowIn = (name: string, text: string) => within(region(name)).getByText(text).closest('tr') as HTMLElement;

describe('Operations console', () => {
  it('tells an agency user access is denied, and asks the server for nothing admin', async () => {
    await signedInAs('FIA');
    const watch = holdFetch({ hold: false });
    try {
      renderOperations();
      expect(await screen.findByText(ADMIN_ACCESS_DENIED)).toBeInTheDocument();
      await new Promise((resolve) => setTimeout(resolve, 500)); // time for any stray query to start
      expect(watch.requests).toEqual(['GET /api/auth/user']);
      expect(screen.queryByRole('region', { name: 'Services' })).toBeNull();
    } finally {
      watch.restore();
    }
  });

  it('shows the services, queues, streams and consumers the server reports', async () => {
    await signedInAsAdmin();
    const server = await snapshot();
    renderOperations();
    await screen.findByRole('region', { name: 'Services' });
    expect(screen.getByTestId('updated-at')).toHaveTextContent(/^Updated at \d{1,2}:\d{2}:\d{2} [AP]M$/);

    expect(server.services.length).toBeGreaterThan(0);
    for (const service of server.services) {
      const row = rowIn('Services', service.name);
      expect(within(row).getByText(service.ready ? 'Ready' : 'Not ready')).toBeInTheDocument();
      for (const [check, state] of Object.entries(service.checks)) {
        expect(within(row).getByText(`${check} ${state}`)).toBeInTheDocument();
      }
    }
    expect(server.queues.length).toBeGreaterThan(0);
    for (const queue of server.queues) {
      const cells = [...rowIn('Queues', queue.name).querySelectorAll('td')].map((td) => td.textContent);
      expect(cells.slice(0, 6)).toEqual([
        queue.name,
        ...[queue.waiting, queue.active, queue.completed, queue.failed, queue.delayed].map(String),
      ]);
    }
    expect(within(region('Queues')).getByText('Recent failures')).toBeInTheDocument();
    expect(server.streams.length).toBeGreaterThan(0);
    for (const stream of server.streams) {
      const row = rowIn('Streams', stream.name);
      for (const subject of stream.subjects) expect(within(row).getByText(subject)).toBeInTheDocument();
    }
    expect(server.consumers.length).toBeGreaterThan(0);
    for (const consumer of server.consumers) {
      expect(within(region('Consumers')).getByText(consumer.name)).toBeInTheDocument();
    }
    if (server.problems.length === 0) expect(screen.queryByText('Problems')).toBeNull();
    // No one has been refused yet in this file's system.
    expect(server.alerts).toEqual([]);
    expect(within(region('Security alerts')).getByText('No security alerts')).toBeInTheDocument();

    const board = screen.getByRole('link', { name: 'Open queue board' });
    expect(board).toHaveAttribute('href', QUEUES_BOARD_PATH);
    expect(board).toHaveAttribute('target', '_blank');
    expect(screen.getByRole('link', { name: '← Admin Panel' })).toHaveAttribute('href', '/admin');
  });

  it('shows a security alert the gateway raised: who, what, how many in what window, the last path', async () => {
    const customs = await signedInAs('CUS');
    const me = (await (await fetch('/api/auth/user')).json()) as { user: { id: string } };
    // Ten link attempts the linking service answers 404 (ids nobody holds, made a day ago) raise one alert.
    const dayAgo = (Math.floor(Date.now() / 1000) - 86_400).toString(16).padStart(8, '0');
    const id = (n: number) => `${dayAgo}${n.toString(16).padStart(16, '0')}`;
    for (let n = 1; n <= 10; n++) {
      const response = await fetch('/api/records/link', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ sourceRecordId: id(2 * n), linkedRecordId: id(2 * n + 1) }),
      });
      expect(response.status, `${customs.email} link attempt ${n}`).toBe(404);
    }
    await signedInAsAdmin();
    renderOperations();
    await screen.findByRole('region', { name: 'Security alerts' });
    const row = rowIn('Security alerts', me.user.id);
    expect(within(row).getByText('CUS')).toBeInTheDocument();
    expect(within(row).getByText('Link attempts refused')).toBeInTheDocument();
    expect(within(row).getByText('10 in 10 minutes')).toBeInTheDocument();
    expect(within(row).getByText('/api/records/link')).toBeInTheDocument();
    expect(within(region('Security alerts')).queryByText('No security alerts')).toBeNull();
  });

  it('shows the sign-in waits after failed sign-ins, and ends one at ADMIN’s word (issue 37)', async () => {
    const email = `waiting.${Date.now().toString(36)}@agency.bm`;
    for (let n = 1; n <= 5; n++) {
      const response = await fetch('/api/auth/login', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email, password: 'not the password' }),
      });
      expect(response.status, `attempt ${n}`).toBe(n < 5 ? 401 : 423);
    }
    await signedInAsAdmin();
    renderOperations();
    await screen.findByRole('region', { name: 'Sign-in waits' });
    const row = await waitFor(() => rowIn('Sign-in waits', email));
    expect(within(row).getByText('5')).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(within(row).getByRole('button', { name: /^Unlock / }));
    await waitFor(() => expect(within(region('Sign-in waits')).queryByText(email)).toBeNull());
    const locks = (await (await fetch('/api/admin/sign-in-locks')).json()) as { items: Array<{ email: string }> };
    expect(locks.items.some((l) => l.email === email)).toBe(false);
  });

  it('reads the snapshot again every few seconds', { timeout: 30_000 }, async () => {
    await signedInAsAdmin();
    const before = await snapshot();
    const records = before.streams.find((s) => s.name.endsWith('RECORDS'));
    expect(records).toBeDefined();
    renderOperations();
    await screen.findByRole('region', { name: 'Streams' });
    const messagesShown = () => Number(rowIn('Streams', records!.name).querySelectorAll('td')[2]?.textContent);
    const start = messagesShown();
    await signedInAs('BPS');
    await createRecord({ suspectName: 'Seen By Operations' });
    await signedInAsAdmin();
    // The record's event lands in the stream; the next reading shows it, with no reload.
    await waitFor(() => expect(messagesShown()).toBeGreaterThan(start), { timeout: 15_000 });
  });
});
