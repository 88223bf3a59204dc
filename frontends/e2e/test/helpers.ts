import path from 'node:path';
import type { Page } from 'playwright-core';
import { type newPerson, SCREENSHOTS_DIR, type WebStack } from './web-stack.ts';

/** A full-page screenshot under frontends/e2e/screenshots/ (git-ignored). */
export const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(SCREENSHOTS_DIR, `${name}.png`), fullPage: true });

/** The toast holding a text (antd notifications; the last one may still be fading out). */
export const toast = (page: Page, text: string) =>
  page.locator('.ant-notification-notice').filter({ hasText: text }).last();

export async function fillRegister(page: Page, person: ReturnType<typeof newPerson>) {
  await page.getByLabel('Full Name').fill(person.name);
  await page.getByLabel('Email Address').fill(person.email);
  await page.getByLabel('Password', { exact: true }).fill(person.password);
  await page.getByLabel('Role').fill(person.role);
  await page.getByText(`${person.organization} - `, { exact: false }).click();
}

export async function register(page: Page, person: ReturnType<typeof newPerson>) {
  await page.goto('/register');
  await fillRegister(page, person);
  await page.getByRole('button', { name: 'Register Account' }).click();
}

export async function signIn(page: Page, email: string, password: string) {
  await page.getByLabel('Email Address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
}

/** Holds every request to `pattern` until `release()` (to see a busy state), then lets it through. */
export async function hold(page: Page, pattern: string) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(pattern, async (route) => {
    await gate;
    await route.continue();
  });
  // Once released, the gate stays open: later requests pass straight through.
  return { release: async () => release() };
}

/** Registers each person through the Register screen (once per test file). */
export async function registerAll(web: WebStack, people: ReadonlyArray<ReturnType<typeof newPerson>>) {
  const { page } = await web.page();
  for (const person of people) {
    await register(page, person);
    await page.waitForURL('**/login');
  }
}

/** A new page signed in as `person`, on the Dashboard. */
export async function signedIn(web: WebStack, person: ReturnType<typeof newPerson>): Promise<Page> {
  const { page } = await web.page();
  await page.goto('/login');
  await signIn(page, person.email, person.password);
  await page.waitForURL((url) => url.pathname === '/');
  return page;
}
