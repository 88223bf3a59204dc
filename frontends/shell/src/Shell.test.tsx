import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnStack } from '@nrad/gateway/spawn-stack';
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdFetch } from '../../shared/test/fetch.ts';
import { openAt, renderScreen, signedInAs, toastText } from '../../shared/test/render.tsx';
import { Shell } from './Shell.tsx';

// A gateway whose frontends folder holds no remote: every remote screen is "not deployed".
const noRemotes = mkdtempSync(path.join(tmpdir(), 'nrad-no-remotes-'));
afterAll(() => rmSync(noRemotes, { recursive: true, force: true }));
let url = '';
beforeAll(async () => {
  ({ url } = await spawnStack({ frontendsDir: noRemotes }));
});

const goTo = (p: string) => openAt(`${url}${p}`);
const NOT_INSTALLED = 'This screen is not installed on this NRAD server. Tell your administrator.';
const ACCESS_DENIED = 'Access denied. Admin privileges required.';
/** Any call of the Admin Panel: its remote's files or its API. */
const adminCalls = (requests: string[]) => requests.filter((r) => /\/(mf|api)\/admin(\/|$)/.test(r));

describe('signed out', () => {
  it('shows a spinner while the session is checked, then Login on every path but /register', async () => {
    goTo('/search');
    const gate = holdFetch({ hold: true });
    renderScreen(<Shell />);
    expect(screen.getByLabelText('Loading')).toBeInTheDocument();
    expect(gate.requests).toEqual(['GET /api/auth/user']);
    gate.release();
    expect(await screen.findByRole('button', { name: 'Sign In' })).toBeInTheDocument();
    gate.restore();
  });

  it('says so when the session cannot be checked (the gateway is unreachable), and Retry asks again', async () => {
    goTo('/');
    const original = globalThis.fetch;
    globalThis.fetch = (() => Promise.reject(new TypeError('Failed to fetch'))) as typeof fetch;
    try {
      renderScreen(<Shell />);
      expect(await screen.findByText('NRAD cannot be reached right now')).toBeInTheDocument();
    } finally {
      globalThis.fetch = original;
    }
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('button', { name: 'Sign In' })).toBeInTheDocument();
  });

  it('shows Register at /register, and the links move between the two', async () => {
    goTo('/register');
    const user = userEvent.setup();
    renderScreen(<Shell />);
    expect(await screen.findByRole('heading', { name: 'Create Account' })).toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'Already have an account? Sign in' }));
    expect(await screen.findByRole('button', { name: 'Sign In' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/login');
    await user.click(screen.getByRole('link', { name: 'Need an account? Register here' }));
    expect(await screen.findByRole('heading', { name: 'Create Account' })).toBeInTheDocument();
  });
});

describe('signed in', () => {
  let name = '';
  beforeAll(async () => {
    goTo('/');
    ({ name } = await signedInAs('FIA'));
  });

  it('frames every screen: title, organization, badge, name, navigation with the active item', async () => {
    goTo('/');
    renderScreen(<Shell />);
    expect(await screen.findByText('National Risk Assessment Database')).toBeInTheDocument();
    expect(screen.getByTestId('organization-name')).toHaveTextContent('Financial Intelligence Agency');
    expect(screen.getByTestId('organization-badge')).toHaveTextContent('FIA');
    expect(screen.getByTestId('organization-badge')).toHaveClass('ant-tag-green');
    expect(screen.getByTestId('user-name')).toHaveTextContent(name);
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    const links = within(nav).getAllByRole('link');
    expect(links.map((l) => l.textContent)).toEqual(['Dashboard', 'Add Record', 'Batch Upload', 'Search']);
    expect(links.map((l) => l.getAttribute('href'))).toEqual(['/', '/records', '/batch-upload', '/search']);
    expect(within(nav).getByRole('link', { name: 'Dashboard' })).toHaveAttribute('aria-current', 'page');
    // The dashboard remote is not deployed here: the message and Retry, inside the frame.
    expect(await screen.findByText('Dashboard is not available right now')).toBeInTheDocument();
    expect(screen.getByText(NOT_INSTALLED)).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(within(nav).getByRole('link', { name: 'Search' }));
    expect(await screen.findByText('Search Records is not available right now')).toBeInTheDocument();
    expect(within(nav).getByRole('link', { name: 'Search' })).toHaveAttribute('aria-current', 'page');
    expect(within(nav).getByRole('link', { name: 'Dashboard' })).not.toHaveAttribute('aria-current');
  });

  it('asks the manifest again on Retry', async () => {
    // The ingest remote exists, but this gateway serves no remote (see `noRemotes`).
    goTo('/batch-upload');
    renderScreen(<Shell />);
    expect(await screen.findByText('Batch Upload is not available right now')).toBeInTheDocument();
    const watch = holdFetch({ hold: false });
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Batch Upload is not available right now')).toBeInTheDocument();
    expect(watch.requests).toContain('GET /mf/remotes.json');
    watch.restore();
  });

  it('shows Access denied at /admin and /admin/operations without loading the Admin Panel', async () => {
    goTo('/admin');
    const watch = holdFetch({ hold: false });
    try {
      const user = userEvent.setup();
      renderScreen(<Shell />);
      expect(await screen.findByText(ACCESS_DENIED)).toBeInTheDocument();
      expect(screen.getByTestId('user-name')).toHaveTextContent(name);
      const nav = screen.getByRole('navigation', { name: 'Main navigation' });
      expect(within(nav).queryByRole('link', { name: 'Admin' })).toBeNull();
      await act(() => new Promise((resolve) => setTimeout(resolve, 200)));
      expect(screen.queryByText('Admin Panel is not available right now')).toBeNull();

      cleanup();
      goTo('/admin/operations');
      renderScreen(<Shell />);
      expect(await screen.findByText(ACCESS_DENIED)).toBeInTheDocument();
      await act(() => new Promise((resolve) => setTimeout(resolve, 200)));
      // (RemoteScreen.test.tsx checks the same with the admin remote deployed.)
      expect(adminCalls(watch.requests)).toEqual([]);

      await user.click(screen.getByRole('button', { name: 'Return to Dashboard' }));
      await waitFor(() => expect(window.location.pathname).toBe('/'));
    } finally {
      watch.restore();
    }
  });

  it('shows Page Not Found for other paths, and Return to Dashboard goes home', async () => {
    goTo('/no/such/page');
    renderScreen(<Shell />);
    expect(await screen.findByRole('heading', { name: 'Page Not Found' })).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Return to Dashboard' }));
    await waitFor(() => expect(window.location.pathname).toBe('/'));
  });

  it('opens Settings from the user menu, and Sign Out ends the session and reloads at /', async () => {
    goTo('/');
    const user = userEvent.setup();
    renderScreen(<Shell />);
    await user.click(await screen.findByRole('button', { name: new RegExp(name) }));
    await user.click(await screen.findByRole('menuitem', { name: 'Settings' }));
    await waitFor(() => expect(window.location.pathname).toBe('/settings'));

    const reloads: string[] = [];
    const assign = window.location.assign;
    window.location.assign = (to: string | URL) => {
      reloads.push(String(to));
    };
    const gate = holdFetch({ hold: true });
    try {
      await user.click(screen.getByRole('button', { name: new RegExp(name) }));
      await user.click(await screen.findByRole('menuitem', { name: 'Sign Out' }));
      expect(await screen.findByRole('menuitem', { name: 'Signing out...' })).toBeDisabled();
      gate.release();
      await waitFor(() => expect(toastText('Successfully logged out')).toBeDefined());
      await waitFor(() => expect(reloads).toEqual(['/']), { timeout: 3000 });
    } finally {
      gate.restore();
      window.location.assign = assign;
    }
    await act(async () => {
      expect((await fetch('/api/auth/user', { credentials: 'include' })).status).toBe(401);
    });
  });
});

describe('ADMIN', () => {
  it('sees the Admin entry and the purple badge', async () => {
    goTo('/login');
    const login = await fetch('/api/auth/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'admin@nrad.test', password: 'admin-password-123' }),
    });
    expect(login.status).toBe(200);
    goTo('/admin');
    renderScreen(<Shell />);
    const nav = await screen.findByRole('navigation', { name: 'Main navigation' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((l) => l.textContent),
    ).toEqual(['Dashboard', 'Add Record', 'Batch Upload', 'Search', 'Admin']);
    expect(within(nav).getByRole('link', { name: 'Admin' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByTestId('organization-badge')).toHaveClass('ant-tag-purple');
    expect(screen.getByTestId('organization-name')).toHaveTextContent('System Administration');
  });

  it('gets the Admin Panel remote at /admin and /admin/operations (not deployed here), not Access denied', async () => {
    goTo('/admin');
    renderScreen(<Shell />);
    // That message comes from loading the remote: the shell did try.
    expect(await screen.findByText('Admin Panel is not available right now')).toBeInTheDocument();
    expect(screen.getByText(NOT_INSTALLED)).toBeInTheDocument();
    expect(screen.queryByText(ACCESS_DENIED)).toBeNull();

    cleanup();
    goTo('/admin/operations');
    const user = userEvent.setup();
    renderScreen(<Shell />);
    expect(await screen.findByText('Operations is not available right now')).toBeInTheDocument();
    expect(screen.queryByText(ACCESS_DENIED)).toBeNull();
    // The Admin entry stays highlighted on the Admin Panel's pages.
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).getByRole('link', { name: 'Admin' })).toHaveAttribute('aria-current', 'page');
    await user.click(within(nav).getByRole('link', { name: 'Admin' }));
    await waitFor(() => expect(window.location.pathname).toBe('/admin'));
  });
});
