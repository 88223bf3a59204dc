import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { init, type ModuleFederationRuntimePlugin } from '@module-federation/enhanced/runtime';
import { spawnStack } from '@nrad/gateway/spawn-stack';
import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { failFetch, holdFetch } from '../../../shared/test/fetch.ts';
import { openAt, renderScreen, signedInAs } from '../../../shared/test/render.tsx';
import { Shell } from '../Shell.tsx';

/**
 * Each way a screen can fail to show, against a real gateway serving a frontends folder of this
 * test's own:
 * - records: a federation manifest whose remote entry script is missing (the gateway answers 404,
 *   as during a half-finished deployment);
 * - settings: every file there, but happy-dom runs no script, so the remote never starts;
 * - search: every file there, its entry script given by a runtime plugin (happy-dom runs none):
 *   a screen that throws while rendering;
 * - ingest (Batch Upload): not deployed at all;
 * - admin: every file there (for the gate: is anything of it asked for?).
 */
const dir = mkdtempSync(path.join(tmpdir(), 'nrad-remote-failures-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A federation manifest as the build writes it (frontends/build), exposing `./<module>`. */
function federationManifest(name: string, module: string) {
  const noAssets = { js: { sync: [], async: [] }, css: { sync: [], async: [] } };
  return JSON.stringify({
    id: name,
    name,
    metaData: {
      name,
      globalName: name,
      buildInfo: { buildVersion: '0.1.0', buildName: `@nrad/${name}` },
      publicPath: 'auto',
      remoteEntry: { name: 'remoteEntry.js', path: '', type: 'global' },
      types: { path: '', name: '', zip: '', api: '' },
    },
    shared: [],
    remotes: [],
    exposes: [{ id: `${name}:${module}`, name: module, assets: noAssets, path: `./${module}` }],
  });
}
function put(file: string, text: string) {
  const full = path.join(dir, file);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, text);
}
put('records/dist/mf-manifest.json', federationManifest('records', 'AddRecord'));
put('settings/dist/mf-manifest.json', federationManifest('settings', 'Settings'));
put('settings/dist/remoteEntry.js', 'var settings = {};');
put('search/dist/mf-manifest.json', federationManifest('search', 'Search'));
put('search/dist/remoteEntry.js', 'var search = {};');
put('admin/dist/mf-manifest.json', federationManifest('admin', 'Admin'));
put('admin/dist/remoteEntry.js', 'var admin = {};');

/** The search remote's screen: throws while `crash` is set. */
let crash = true;
function CrashingSearch() {
  if (crash) throw new Error('the search screen broke');
  return <p>Search is working</p>;
}

// The shell's build creates its federation instance; here the test does, with a plugin standing in
// for the search remote's entry script (its container: init, and get of ./Search).
const searchEntry: ModuleFederationRuntimePlugin = {
  name: 'test-search-entry',
  loadEntry: ({ remoteInfo }) =>
    remoteInfo.name === 'search'
      ? {
          init: () => undefined,
          get: (expose: string) => (expose === './Search' ? () => ({ default: CrashingSearch }) : undefined),
        }
      : undefined,
} as ModuleFederationRuntimePlugin;

let url = '';
beforeAll(async () => {
  init({ name: 'shell', remotes: [], plugins: [searchEntry] });
  ({ url } = await spawnStack({ frontendsDir: dir }));
  openAt(`${url}/`);
  await signedInAs('FIA');
  // The loader and React report every failure on the console; the messages on screen are the test.
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterAll(() => vi.restoreAllMocks());

const goTo = (p: string) => openAt(`${url}${p}`);
const retry = () => userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
const noConnectionBlame = () => expect(screen.queryByText(/connection/i)).toBeNull();

const SERVER_TEXT =
  'The NRAD server could not provide this screen (it may be being updated). Try again in a few minutes; if it keeps happening, tell your administrator.';
const NETWORK_TEXT =
  'The NRAD server could not be reached to load this screen. Check your connection, then select Retry.';

describe('a screen that cannot be shown says why', () => {
  // First in the file: the loader keeps a manifest it has read until a Retry.
  it('the manifest of remotes answers 500: the server could not provide it, and Retry recovers', async () => {
    // A frontends folder that is a file: the gateway cannot list it and answers 500.
    renameSync(dir, `${dir}.away`);
    writeFileSync(dir, '');
    try {
      const answer = await fetch(`${url}/mf/remotes.json`);
      expect(answer.status).toBe(500);
      goTo('/batch-upload');
      renderScreen(<Shell />);
      expect(await screen.findByText('Batch Upload is not available right now')).toBeInTheDocument();
      expect(screen.getByText(SERVER_TEXT)).toBeInTheDocument();
      noConnectionBlame();
    } finally {
      rmSync(dir);
      renameSync(`${dir}.away`, dir);
    }
    await retry();
    expect(
      await screen.findByText('This screen is not installed on this NRAD server. Tell your administrator.'),
    ).toBeInTheDocument();
  });

  it('a remote that is not deployed: not installed on this server, no word of the connection', async () => {
    goTo('/batch-upload');
    renderScreen(<Shell />);
    expect(await screen.findByText('Batch Upload is not available right now')).toBeInTheDocument();
    expect(
      screen.getByText('This screen is not installed on this NRAD server. Tell your administrator.'),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
    noConnectionBlame();
  });

  it("a remote whose entry script the gateway answers 404: the server's fault, try again shortly", async () => {
    expect((await fetch(`${url}/mf/records/remoteEntry.js`)).status).toBe(404);
    goTo('/records');
    renderScreen(<Shell />);
    expect(await screen.findByText('Add New Record is not available right now')).toBeInTheDocument();
    expect(screen.getByText(SERVER_TEXT)).toBeInTheDocument();
    noConnectionBlame();
    await retry();
    expect(await screen.findByText(SERVER_TEXT)).toBeInTheDocument();
  });

  it("the network fails (the remote's files, then the manifest too): check the connection, and Retry", async () => {
    goTo('/records');
    const cut = failFetch((p) => p.startsWith('/mf/'));
    try {
      renderScreen(<Shell />);
      expect(await screen.findByText('Add New Record is not available right now')).toBeInTheDocument();
      expect(screen.getByText(NETWORK_TEXT)).toBeInTheDocument();
      expect(cut.failed).toContain('/mf/records/mf-manifest.json');
      // Retry asks for the manifest of remotes again, which fails the same way.
      cut.failed.length = 0;
      await retry();
      expect(await screen.findByText(NETWORK_TEXT)).toBeInTheDocument();
      expect(cut.failed).toEqual(['/mf/remotes.json']);
    } finally {
      cut.restore();
    }
    // The network is back: the true cause shows again.
    await retry();
    expect(await screen.findByText(SERVER_TEXT)).toBeInTheDocument();
  });

  it('the browser is offline: check the connection', async () => {
    goTo('/settings');
    const onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    try {
      renderScreen(<Shell />);
      expect(await screen.findByText('Settings is not available right now')).toBeInTheDocument();
      expect(screen.getByText(NETWORK_TEXT)).toBeInTheDocument();
    } finally {
      onLine.mockRestore();
    }
  });

  it('a remote whose files all arrive but that does not start: it could not start', async () => {
    goTo('/settings');
    renderScreen(<Shell />);
    expect(await screen.findByText('Settings is not available right now')).toBeInTheDocument();
    expect(
      screen.getByText(
        'This screen was downloaded but could not start. Try again; if it keeps happening, tell your administrator.',
      ),
    ).toBeInTheDocument();
    noConnectionBlame();
  });

  it('a screen that throws while rendering: it stopped because of an error, inside the frame; Retry reloads it', async () => {
    crash = true;
    goTo('/search');
    renderScreen(<Shell />);
    expect(await screen.findByText('Search Records stopped because of an error')).toBeInTheDocument();
    expect(
      screen.getByText(
        'Something went wrong while showing this screen. Reload the screen with Retry; if it happens again, tell your administrator.',
      ),
    ).toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: 'Main navigation' })).toBeInTheDocument();
    noConnectionBlame();
    crash = false;
    await retry();
    expect(await screen.findByText('Search is working')).toBeInTheDocument();
  });
});

describe("the Admin Panel's gate, its remote deployed", () => {
  const ACCESS_DENIED = 'Access denied. Admin privileges required.';
  const settle = () => act(() => new Promise((resolve) => setTimeout(resolve, 300)));

  it('an agency user at /admin sees Access denied, and nothing of the Admin Panel leaves the browser', async () => {
    goTo('/admin');
    const watch = holdFetch({ hold: false });
    try {
      renderScreen(<Shell />);
      expect(await screen.findByText(ACCESS_DENIED)).toBeInTheDocument();
      await settle();
      expect(watch.requests.filter((r) => r.includes('/mf/admin') || r.includes('/api/admin'))).toEqual([]);
      expect(screen.queryByText(/Admin Panel/)).toBeNull();
    } finally {
      watch.restore();
    }
  });

  it('ADMIN at /admin gets its remote (which cannot start here: happy-dom runs no script)', async () => {
    const login = await fetch('/api/auth/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'admin@nrad.test', password: 'admin-password-123' }),
    });
    expect(login.status).toBe(200);
    goTo('/admin');
    const watch = holdFetch({ hold: false });
    try {
      renderScreen(<Shell />);
      expect(await screen.findByText('Admin Panel is not available right now')).toBeInTheDocument();
      expect(screen.queryByText(ACCESS_DENIED)).toBeNull();
      expect(watch.requests).toContain('GET /mf/admin/mf-manifest.json');
    } finally {
      watch.restore();
    }
  });
});
