/**
 * A new user's first visit, in Chromium against the real system (SPEC §2, §4, §5, §8):
 * register → sign in → header → display name → font size across a reload → message to the
 * administrator → sign out. Screenshots of each screen go to frontends/e2e/screenshots/.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { register, shot, signIn, toast } from './helpers.ts';
import { newPerson, startWebStack, type WebStack } from './web-stack.ts';

let web: WebStack;
beforeAll(async () => {
  web = await startWebStack();
});

describe('a new user in Chromium', () => {
  it('registers, signs in, uses the header and Settings, and signs out', async () => {
    // This journey runs with the animations every user gets by default; the others as a user who
    // asked for reduced motion (web-stack.ts).
    const { page, errors } = await web.page({ reducedMotion: 'no-preference' });
    const person = newPerson('CUS');

    // Register: SPEC's texts, then /login with the success toast.
    await page.goto('/register');
    await page.getByRole('heading', { name: 'Create Account' }).waitFor();
    await page.getByText('Register for system access').waitFor();
    for (const label of ['Full Name', 'Email Address', 'Role']) {
      expect(await page.getByLabel(label).inputValue(), label).toBe('');
    }
    await shot(page, 'register');
    await register(page, person);
    await toast(page, 'Account created successfully').waitFor();
    await page.waitForURL('**/login');

    // Sign in: the title, the link, a toast, then / after about a second.
    await page.getByRole('heading', { name: 'National Risk Assessment Database' }).waitFor();
    await page.getByRole('link', { name: 'Need an account? Register here' }).waitFor();
    await shot(page, 'login');
    await signIn(page, person.email, person.password);
    await toast(page, 'Successfully logged in').waitFor();
    await page.waitForURL((url) => url.pathname === '/');

    // The frame: title, full organization name, badge (CUS yellow), user name, navigation.
    await page.getByTestId('user-name').filter({ hasText: person.name }).waitFor();
    expect(await page.getByTestId('organization-name').textContent()).toBe('Customs');
    const badge = page.getByTestId('organization-badge');
    expect(await badge.textContent()).toBe('CUS');
    expect(await badge.getAttribute('class')).toContain('ant-tag-yellow');
    // Readable: dark yellow-brown on yellow (7.7:1), not antd's yellow on pale yellow (2.0:1).
    expect(await badge.evaluate((b) => [getComputedStyle(b).color, getComputedStyle(b).backgroundColor])).toEqual([
      'rgb(97, 71, 0)',
      'rgb(255, 245, 102)',
    ]);
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    expect(await nav.getByRole('link').allTextContents()).toEqual([
      'Dashboard',
      'Add Record',
      'Batch Upload',
      'Search',
    ]);
    expect(await nav.getByRole('link', { name: 'Dashboard' }).getAttribute('aria-current')).toBe('page');
    // The dashboard inside the frame.
    await page.getByRole('heading', { name: 'Customs Records Overview' }).waitFor();
    await shot(page, 'frame-dashboard');

    // Settings through the user menu.
    await page.getByRole('button', { name: person.name }).click();
    await page.getByRole('menuitem', { name: 'Settings' }).click();
    await page.waitForURL('**/settings');
    await page.getByText('Account Settings').waitFor();
    expect(await nav.locator('[aria-current="page"]').count()).toBe(0);
    expect(await page.getByLabel('Organization').inputValue()).toBe('CUS - Customs');
    expect(await page.getByLabel('Role').inputValue()).toBe('Analyst');
    expect(await page.getByLabel('Organization').isEditable()).toBe(false);
    await shot(page, 'settings');

    // Display name: Save only when changed and not blank; the header follows.
    const save = page.getByRole('button', { name: 'Save' });
    expect(await save.isDisabled()).toBe(true);
    await page.getByLabel('Display Name').fill('   ');
    expect(await save.isDisabled()).toBe(true);
    await page.getByLabel('Display Name').fill('Renamed Person');
    expect(await save.isEnabled()).toBe(true);
    await save.click();
    await toast(page, 'Your name has been updated successfully.').waitFor();
    await page.getByTestId('user-name').filter({ hasText: 'Renamed Person' }).waitFor();
    expect(await save.isDisabled()).toBe(true);

    // Font size: applied at once, remembered under `fontSize` across a reload.
    const rootSize = () => page.evaluate(() => getComputedStyle(document.documentElement).fontSize);
    expect(await rootSize()).toBe('16px');
    await page.getByLabel('Font Size').click();
    await page.getByTitle('Extra Large (20px)').click();
    await page.waitForFunction(() => getComputedStyle(document.documentElement).fontSize === '20px');
    expect(await page.evaluate(() => localStorage.getItem('fontSize'))).toBe('extra-large');
    await page.reload();
    await page.getByText('Account Settings').waitFor();
    expect(await rootSize()).toBe('20px');
    // The remote's antd components follow the shell's theme (one antd, one theme).
    const buttonFont = await page
      .getByRole('button', { name: 'Send Message' })
      .evaluate((b) => getComputedStyle(b).fontSize);
    expect(buttonFont).toBe('20px');
    await shot(page, 'settings-extra-large');

    // Contact Administrator: both fields needed, then the success toast and empty fields.
    await page.getByRole('button', { name: 'Send Message' }).click();
    await toast(page, 'Please fill in both subject and message fields.').waitFor();
    await page.getByLabel('Subject').fill('Access to archived cases');
    await page.getByLabel('Message').fill('Please grant me access to the 2019 archive.');
    await page.getByRole('button', { name: 'Send Message' }).click();
    await toast(page, 'Your message has been sent to the administrator.').waitFor();
    expect(await page.getByLabel('Subject').inputValue()).toBe('');
    const stored = await web.stack.db
      .collection('contact_requests')
      .find({ subject: 'Access to archived cases' })
      .toArray();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ userName: 'Renamed Person', userOrganization: 'CUS', status: 'open' });

    // View Deleted Records leads to its screen (a new user's agency has deleted nothing).
    await page.getByRole('link', { name: 'View Deleted Records' }).click();
    await page.waitForURL('**/deleted-records');
    await page.getByText('No deleted records found').waitFor();

    // Sign out: "Signing out..." while it runs, then a full reload at /, signed out.
    await page.route('**/api/auth/logout', async (route) => {
      await new Promise((r) => setTimeout(r, 400));
      await route.continue();
    });
    await page.getByRole('button', { name: 'Renamed Person' }).click();
    await page.getByRole('menuitem', { name: 'Sign Out' }).click();
    const signingOut = page.getByRole('menuitem', { name: 'Signing out...' });
    await signingOut.waitFor();
    expect(await signingOut.isDisabled()).toBe(true);
    await toast(page, 'Successfully logged out').waitFor();
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByRole('button', { name: 'Sign In' }).waitFor();
    expect((await page.request.get('/api/auth/user')).status()).toBe(401);

    expect(errors.filter((e) => !/401|dashboard|records|Could not load/.test(e))).toEqual([]);
  });

  it('draws no animations for a user whose system asks for reduced motion, and animates for the others', async () => {
    const { page } = await web.page({ reducedMotion: 'no-preference' });
    await page.goto('/register');
    // Whether the form's messages now come in with antd's motion (an `ant-…-enter`/`-appear` class
    // on the way): Register Account on the empty form, watched from the click.
    const animates = async () => {
      await page.getByRole('heading', { name: 'Create Account' }).waitFor();
      await page.evaluate(() => {
        const w = window as unknown as { moved?: boolean };
        w.moved = false;
        const moving = (el: Element) => /\bant-[\w-]+-(enter|appear)\b/.test(el.getAttribute('class') ?? '');
        new MutationObserver((changes) => {
          for (const c of changes) {
            if (c.target instanceof Element && moving(c.target)) w.moved = true;
            for (const n of c.addedNodes) {
              if (n instanceof Element && (moving(n) || [...n.querySelectorAll('[class]')].some(moving)))
                w.moved = true;
            }
          }
        }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
      });
      await page.getByRole('button', { name: 'Register Account' }).click();
      await page.locator('.ant-form-item-explain-error').first().waitFor();
      await page.waitForTimeout(500);
      const moved = await page.evaluate(() => (window as unknown as { moved: boolean }).moved);
      await page.reload();
      return moved;
    };
    expect(await animates()).toBe(true);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    expect(await animates()).toBe(false);
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    expect(await animates()).toBe(true);
  });
});
