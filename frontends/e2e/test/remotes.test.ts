/**
 * Remotes found at run time: a remote that cannot be loaded shows a clear message with Retry
 * inside the frame (never a blank page), Retry loads it once it is back, and a remote moved to
 * another server is used without rebuilding the shell.
 */
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { freePort } from '@nrad/infra';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, shot, signIn } from './helpers.ts';
import { FRONTENDS_DIR, newPerson, startWebStack, type WebStack } from './web-stack.ts';

let web: WebStack;
let person: ReturnType<typeof newPerson>;
beforeAll(async () => {
  web = await startWebStack();
  person = newPerson('FIA');
  const { page } = await web.page();
  await register(page, person);
  await page.waitForURL('**/login');
});

async function signedIn(baseUrl?: string): Promise<Page> {
  const { page } = await web.page(baseUrl ? { baseUrl } : {});
  await page.goto('/login');
  await signIn(page, person.email, person.password);
  await page.waitForURL((url) => url.pathname === '/');
  return page;
}

const unavailable = (page: Page) => page.getByText('Settings is not available right now');

describe('a remote that cannot be loaded', () => {
  it('shows the message with Retry inside the frame, and Retry loads it once it is back', async () => {
    const page = await signedIn();
    let refused = 0;
    await page.route('**/mf/settings/**', (route) => {
      refused++;
      return route.abort('connectionrefused');
    });
    await page.goto('/settings');
    await unavailable(page).waitFor();
    // Still inside the frame: header and navigation are there.
    await page.getByTestId('user-name').waitFor();
    await page.getByRole('navigation', { name: 'Main navigation' }).waitFor();
    await shot(page, 'remote-unavailable');
    // Retry while it is still down: the same message again (once the retry has asked and been
    // refused: the loader's own request and its second look at the files — the message on screen
    // before the retry re-renders is the old one).
    const before = refused;
    await page.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => refused, { timeout: 15_000 }).toBeGreaterThanOrEqual(before + 2);
    await unavailable(page).waitFor();
    // Back again: Retry loads the screen.
    await page.unroute('**/mf/settings/**');
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByText('Account Settings').waitFor();
    expect(await unavailable(page).count()).toBe(0);
  });

  it('shows the message when the manifest of remotes cannot be read, and recovers', async () => {
    const page = await signedIn();
    await page.route('**/mf/remotes.json', (route) => route.fulfill({ status: 503, body: 'down' }));
    await page.goto('/settings');
    await unavailable(page).waitFor();
    await page.unroute('**/mf/remotes.json');
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByText('Account Settings').waitFor();
  });

  it('shows the message when the manifest names a server that does not answer', async () => {
    const dead = await freePort();
    const gateway = await web.gateway({
      MF_REMOTES: JSON.stringify({ settings: `http://127.0.0.1:${dead}/mf-manifest.json` }),
    });
    const page = await signedIn(gateway);
    await page.goto('/settings');
    await unavailable(page).waitFor();
    await page.getByRole('button', { name: 'Retry' }).waitFor();
  });
});

describe('a remote moved to another server', () => {
  const dist = path.join(FRONTENDS_DIR, 'settings', 'dist');
  // Another server holding the same built files (as a CDN would), allowing the app's origin.
  const cdn = createServer((req, res) => {
    const file = path.join(dist, path.normalize(new URL(req.url ?? '/', 'http://x').pathname));
    let ok = false;
    try {
      ok = file.startsWith(dist) && statSync(file).isFile();
    } catch {
      ok = false;
    }
    if (!ok) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      'Content-Type': file.endsWith('.json') ? 'application/json' : 'text/javascript',
      'Access-Control-Allow-Origin': '*',
    });
    res.end(readFileSync(file));
  });
  let cdnUrl = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => cdn.listen(0, '127.0.0.1', resolve));
    cdnUrl = `http://127.0.0.1:${(cdn.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => cdn.close(resolve)));

  it('is loaded from there, as the gateway configuration says, with the same shell', async () => {
    const gateway = await web.gateway({ MF_REMOTES: JSON.stringify({ settings: `${cdnUrl}/mf-manifest.json` }) });
    const page = await signedIn(gateway);
    const fromCdn: string[] = [];
    page.on('response', (r) => {
      if (r.url().startsWith(cdnUrl)) fromCdn.push(new URL(r.url()).pathname);
    });
    await page.goto('/settings');
    await page.getByText('Account Settings').waitFor();
    expect(fromCdn).toContain('/mf-manifest.json');
    expect(fromCdn).toContain('/remoteEntry.js');
  });
});
