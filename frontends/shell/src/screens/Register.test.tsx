import { spawnStack } from '@nrad/gateway/spawn-stack';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { holdFetch } from '../../../shared/test/fetch.ts';
import { openAt, renderScreen, toastText } from '../../../shared/test/render.tsx';
import { ALREADY_REGISTERED, REGISTER_FAILED, Register } from './Register.tsx';

beforeAll(async () => {
  const { url } = await spawnStack();
  openAt(`${url}/register`);
});

async function fill(user: ReturnType<typeof userEvent.setup>, email: string) {
  await user.type(screen.getByLabelText('Full Name'), 'Rita Register');
  await user.type(screen.getByLabelText('Email Address'), email);
  await user.type(screen.getByLabelText('Password'), 'a long enough password');
  await user.type(screen.getByLabelText('Role'), 'Investigator');
  await user.click(screen.getByLabelText('FIA - Financial Intelligence Agency'));
}

describe('Register', () => {
  it('has SPEC’s title, fields (all empty), organizations and link', () => {
    renderScreen(<Register />);
    expect(screen.getByRole('heading', { name: 'Create Account' })).toBeInTheDocument();
    expect(screen.getByText('Register for system access')).toBeInTheDocument();
    for (const label of ['Full Name', 'Email Address', 'Password', 'Role']) {
      expect(screen.getByLabelText(label)).toHaveValue('');
    }
    const options = screen.getAllByRole('radio').map((r) => r.closest('label')?.textContent);
    expect(options).toEqual(['BPS - Bermuda Police Service', 'FIA - Financial Intelligence Agency', 'CUS - Customs']);
    expect(screen.getAllByRole('radio').every((r) => !(r as HTMLInputElement).checked)).toBe(true);
    expect(screen.getByRole('link', { name: 'Already have an account? Sign in' })).toHaveAttribute('href', '/login');
  });

  it('creates the account: "Creating account..." while busy, the toast, then /login', async () => {
    const user = userEvent.setup();
    renderScreen(<Register />);
    const email = `rita.${Date.now().toString(36)}@agency.bm`;
    await fill(user, email);
    const gate = holdFetch({ hold: true });
    await user.click(screen.getByRole('button', { name: 'Register Account' }));
    expect(await screen.findByRole('button', { name: 'Creating account...' })).toBeDisabled();
    gate.release();
    await waitFor(() => expect(toastText('Account created successfully')).toBeDefined());
    await waitFor(() => expect(window.location.pathname).toBe('/login'));
    gate.restore();
    // The account exists: signing in works.
    const login = await fetch('/api/auth/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password: 'a long enough password' }),
    });
    expect(login.status).toBe(200);
    await fetch('/api/auth/logout', { method: 'POST' });
  });

  it('says the email is taken, and keeps the form', async () => {
    const email = `taken.${Date.now().toString(36)}@agency.bm`;
    const first = await fetch('/api/auth/register', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'First',
        email,
        password: 'a long enough password',
        role: 'x',
        organization: 'BPS',
      }),
    });
    expect(first.status).toBe(201);
    window.history.pushState(null, '', '/register');
    const user = userEvent.setup();
    renderScreen(<Register />);
    await fill(user, email.toUpperCase());
    await user.click(screen.getByRole('button', { name: 'Register Account' }));
    await waitFor(() => expect(toastText(ALREADY_REGISTERED)).toBeDefined());
    expect(window.location.pathname).toBe('/register');
    expect(screen.getByLabelText('Full Name')).toHaveValue('Rita Register');
    expect(screen.getByRole('button', { name: 'Register Account' })).toBeEnabled();
  });

  it('says "Failed to create account" for any other failure (the gateway cannot be reached)', async () => {
    window.history.pushState(null, '', '/register');
    const user = userEvent.setup();
    renderScreen(<Register />);
    await fill(user, `rita.${Date.now().toString(36)}@agency.bm`);
    const original = globalThis.fetch;
    globalThis.fetch = (() => Promise.reject(new TypeError('Failed to fetch'))) as typeof fetch;
    try {
      await user.click(screen.getByRole('button', { name: 'Register Account' }));
      await waitFor(() => expect(toastText(REGISTER_FAILED)).toBeDefined());
    } finally {
      globalThis.fetch = original;
    }
    expect(window.location.pathname).toBe('/register');
  });
});
