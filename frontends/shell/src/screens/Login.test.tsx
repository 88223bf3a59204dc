import { spawnStack } from '@nrad/gateway/spawn-stack';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { holdFetch } from '../../../shared/test/fetch.ts';
import { openAt, renderScreen, toastText } from '../../../shared/test/render.tsx';
import { Login } from './Login.tsx';

let url = '';
const person = { email: `login.${Date.now().toString(36)}@agency.bm`, password: 'a long enough password' };
beforeAll(async () => {
  ({ url } = await spawnStack());
  openAt(`${url}/login`);
  const res = await fetch('/api/auth/register', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...person, name: 'Lena Login', role: 'Analyst', organization: 'BPS' }),
  });
  expect(res.status).toBe(201);
});

describe('Login', () => {
  it('is titled with the database name and offers registration', () => {
    renderScreen(<Login />);
    expect(screen.getByRole('heading', { name: 'National Risk Assessment Database' })).toBeInTheDocument();
    expect(screen.getByLabelText('Email Address')).toHaveValue('');
    expect(screen.getByLabelText('Password')).toHaveValue('');
    expect(screen.getByRole('link', { name: 'Need an account? Register here' })).toHaveAttribute('href', '/register');
  });

  it('shows the validation library messages and sends nothing', async () => {
    const user = userEvent.setup();
    const calls = holdFetch({ hold: false });
    renderScreen(<Login />);
    await user.type(screen.getByLabelText('Email Address'), 'nobody');
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByText('Invalid email')).toBeInTheDocument();
    expect(await screen.findByText('String must contain at least 1 character(s)')).toBeInTheDocument();
    expect(calls.requests).toEqual([]);
    calls.restore();
  });

  it('reads "Signing in..." and is disabled while busy, then says "Invalid credentials"', async () => {
    const user = userEvent.setup();
    renderScreen(<Login />);
    await user.type(screen.getByLabelText('Email Address'), person.email);
    await user.type(screen.getByLabelText('Password'), 'not the password');
    const gate = holdFetch({ hold: true });
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByRole('button', { name: 'Signing in...' })).toBeDisabled();
    expect(gate.requests).toEqual(['POST /api/auth/login']);
    gate.release();
    await waitFor(() => expect(toastText('Invalid credentials')).toBeDefined());
    expect(toastText('Invalid credentials')?.textContent).toContain('Error');
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled();
    gate.restore();
  });

  it('signs in: the success toast, then / about a second later', async () => {
    const user = userEvent.setup();
    renderScreen(<Login />);
    await user.type(screen.getByLabelText('Email Address'), person.email);
    await user.type(screen.getByLabelText('Password'), person.password);
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(toastText('Successfully logged in')).toBeDefined());
    const toastAt = Date.now();
    expect(window.location.pathname).toBe('/login');
    await waitFor(() => expect(window.location.pathname).toBe('/'), { timeout: 3000 });
    expect(Date.now() - toastAt).toBeGreaterThanOrEqual(800);
    const me = await fetch('/api/auth/user', { credentials: 'include' });
    expect(me.status).toBe(200);
  });
});
