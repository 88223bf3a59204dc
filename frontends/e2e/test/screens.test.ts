/**
 * Each shell screen's states and messages in Chromium against the real system: validation, busy
 * buttons, failure toasts (one at a time), signed-out routing and the session spinner, Page Not
 * Found, and the navigation of an agency user against ADMIN's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { fillRegister, hold, register, shot, signIn, toast } from './helpers.ts';
import { ADMIN, newPerson, startWebStack, type WebStack } from './web-stack.ts';

let web: WebStack;
let person: ReturnType<typeof newPerson>;
beforeAll(async () => {
  web = await startWebStack();
  person = newPerson('BPS');
  const { page } = await web.page();
  await register(page, person);
  await page.waitForURL('**/login');
});

describe('signed out', () => {
  it('shows Login on every path but /register, after a spinner while the session is checked', async () => {
    const { page } = await web.page();
    const check = await hold(page, '**/api/auth/user');
    await page.goto('/search');
    await page.getByRole('img', { name: 'Loading' }).or(page.getByLabel('Loading')).first().waitFor();
    await check.release();
    await page.getByRole('button', { name: 'Sign In' }).waitFor();
    for (const p of ['/', '/records', '/admin', '/no/such/page', '/login']) {
      await page.goto(p);
      await page.getByRole('heading', { name: 'National Risk Assessment Database' }).waitFor();
    }
    await page.getByRole('link', { name: 'Need an account? Register here' }).click();
    await page.waitForURL('**/register');
    await page.getByRole('heading', { name: 'Create Account' }).waitFor();
    await page.getByRole('link', { name: 'Already have an account? Sign in' }).click();
    await page.waitForURL('**/login');
  });

  it('validates the login form with the library messages of SPEC §5', async () => {
    const { page } = await web.page();
    await page.goto('/login');
    await page.getByLabel('Email Address').fill('not-an-email');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByText('Invalid email', { exact: true }).waitFor();
    await shot(page, 'login-validation');
    await page.getByText('String must contain at least 1 character(s)', { exact: true }).waitFor();
  });

  it('says "Signing in..." while busy and "Invalid credentials" for any failure, one toast at a time', async () => {
    const { page } = await web.page();
    await page.goto('/login');
    const login = await hold(page, '**/api/auth/login');
    await signIn(page, person.email, 'the wrong password');
    const busy = page.getByRole('button', { name: 'Signing in...' });
    await busy.waitFor();
    expect(await busy.isDisabled()).toBe(true);
    await login.release();
    await toast(page, 'Invalid credentials').waitFor();
    expect(await toast(page, 'Invalid credentials').locator('.ant-notification-notice-title').textContent()).toBe(
      'Error',
    );
    // A second failure replaces the first toast: never two at once.
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForFunction(() => document.querySelectorAll('.ant-notification-notice').length === 1);
    await page.waitForTimeout(500);
    expect(await page.locator('.ant-notification-notice').count()).toBe(1);
    expect(page.url()).toContain('/login');
  });

  it('registers only new emails: the two failure messages of SPEC §8, the form kept', async () => {
    const { page } = await web.page();
    await page.goto('/register');
    const again = { ...person, name: 'Someone Else' };
    const busy = await hold(page, '**/api/auth/register');
    await fillRegister(page, { ...again, email: person.email.toUpperCase() });
    await page.getByRole('button', { name: 'Register Account' }).click();
    const creating = page.getByRole('button', { name: 'Creating account...' });
    await creating.waitFor();
    expect(await creating.isDisabled()).toBe(true);
    await busy.release();
    await toast(
      page,
      'This email address is already registered. Please use a different email or try logging in.',
    ).waitFor();
    expect(page.url()).toContain('/register');
    expect(await page.getByLabel('Full Name').inputValue()).toBe('Someone Else');

    // Any other failure (here the gateway's registration limit for this address): the general message.
    const limited = await web.gateway({
      REGISTER_IP_MAX_PER_HOUR: '1',
      REDIS_PREFIX: `${web.stack.t.redisPrefix}limited:`, // its own counters
    });
    const { page: other } = await web.page({ baseUrl: limited });
    await register(other, newPerson('FIA'));
    await other.waitForURL('**/login');
    await register(other, newPerson('FIA'));
    await toast(other, 'Failed to create account. Please try again.').waitFor();
    expect(other.url()).toContain('/register');
  });

  it('checks the register form with the contract rules before sending', async () => {
    const { page } = await web.page();
    await page.goto('/register');
    let sent = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/api/auth/register')) sent++;
    });
    await page.getByRole('button', { name: 'Register Account' }).click();
    await page.getByText('Name is required').waitFor();
    await page.getByText('Invalid email').waitFor();
    await page.getByText('Password must be at least 8 characters').waitFor();
    await page.getByText('Role is required').waitFor();
    await page.getByText('Organization must be one of BPS, FIA, CUS', { exact: false }).waitFor();
    expect(sent).toBe(0);
    await shot(page, 'register-validation');
  });
});

describe('signed in', () => {
  it('shows Page Not Found for unknown paths, with Return to Dashboard', async () => {
    const { page } = await web.page();
    await page.goto('/login');
    await signIn(page, person.email, person.password);
    await page.waitForURL((url) => url.pathname === '/');
    await page.goto('/no/such/page');
    await page.getByRole('heading', { name: 'Page Not Found' }).waitFor();
    await shot(page, 'not-found');
    await page.getByRole('button', { name: 'Return to Dashboard' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    // The admin routes: SPEC's access-denied text for an agency user, and the admin remote is
    // never asked for.
    const asked: string[] = [];
    page.on('request', (r) => asked.push(new URL(r.url()).pathname));
    for (const p of ['/admin', '/admin/operations']) {
      await page.goto(p);
      await page.getByText('Access denied. Admin privileges required.').waitFor();
    }
    expect(asked.filter((p) => p.startsWith('/mf/admin') || p.startsWith('/api/admin'))).toEqual([]);
    // /login and /register take a signed-in user home.
    await page.goto('/login');
    await page.waitForURL((url) => url.pathname === '/');
  });

  it('gives ADMIN the Admin entry and the purple badge, and agency users neither', async () => {
    const { page } = await web.page();
    await page.goto('/login');
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.waitForURL((url) => url.pathname === '/');
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await nav.getByRole('link', { name: 'Admin' }).waitFor();
    expect(await nav.getByRole('link').allTextContents()).toEqual([
      'Dashboard',
      'Add Record',
      'Batch Upload',
      'Search',
      'Admin',
    ]);
    expect(await page.getByTestId('organization-badge').getAttribute('class')).toContain('ant-tag-purple');
    expect(await page.getByTestId('organization-name').textContent()).toBe('System Administration');
    await nav.getByRole('link', { name: 'Admin' }).click();
    await page.waitForURL('**/admin');
    expect(await nav.getByRole('link', { name: 'Admin' }).getAttribute('aria-current')).toBe('page');
    await page.getByRole('heading', { name: 'Admin Panel' }).waitFor();
    await shot(page, 'admin-frame');

    const { page: agency } = await web.page();
    await agency.goto('/login');
    await signIn(agency, person.email, person.password);
    await agency.getByTestId('organization-badge').waitFor();
    expect(
      await agency.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Admin' }).count(),
    ).toBe(0);
    expect(await agency.getByTestId('organization-badge').getAttribute('class')).toContain('ant-tag-blue');
    expect(await agency.getByTestId('organization-name').textContent()).toBe('Bermuda Police Service');
  });
});
