/**
 * The real system for screen tests: auth, records, linking and stats services on real ports (FerretDB,
 * NATS, Redis behind them, as in the gateway's tests), a gateway listening on a real port that
 * serves the built frontends, and Debian's Chromium driven by playwright-core.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ADMIN, startAuthStack } from '@nrad/gateway/test-stack';
import { chromiumPath, REPO_ROOT } from '@nrad/infra';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeEach } from 'vitest';

export const FRONTENDS_DIR = path.join(REPO_ROOT, 'frontends');
export const SCREENSHOTS_DIR = path.join(FRONTENDS_DIR, 'e2e', 'screenshots');
export { ADMIN };

function requireBuilt() {
  for (const file of ['shell/dist/index.html', 'settings/dist/mf-manifest.json']) {
    if (!existsSync(path.join(FRONTENDS_DIR, file))) {
      throw new Error(`frontends/${file} is missing: build the frontends first (npm run build, or npm test)`);
    }
  }
}

export interface WebStack {
  url: string;
  stack: Awaited<ReturnType<typeof startAuthStack>>;
  /** Another gateway on the same services, with other settings (e.g. a remote moved away). */
  gateway(overrides: Record<string, string>): Promise<string>;
  /** A fresh browser context (its own cookies and storage) and page, with page errors collected. */
  page(options?: {
    baseUrl?: string;
    timezoneId?: string;
  }): Promise<{ page: Page; context: BrowserContext; errors: string[] }>;
}

async function listenOn(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Starts everything once for a test file; all of it is closed after the file. */
export async function startWebStack(): Promise<WebStack> {
  requireBuilt();
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  const stack = await startAuthStack();
  const servers: Server[] = [];
  const gateway = async (overrides: Record<string, string>) => {
    const { server } = stack.gateway({ FRONTENDS_DIR, TRUST_PROXY: 'false', ...overrides });
    const listening = await listenOn(server);
    servers.push(listening.server);
    return listening.url;
  };
  const url = await gateway({});
  const browser: Browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  afterAll(async () => {
    await browser.close();
    for (const s of servers) await new Promise((resolve) => s.close(resolve));
  });
  return {
    url,
    stack,
    gateway,
    async page(options = {}) {
      const context = await browser.newContext({
        baseURL: options.baseUrl ?? url,
        viewport: { width: 1280, height: 800 },
        ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
      });
      const page = await context.newPage();
      openPages.push(page);
      const errors: string[] = [];
      const log: string[] = [];
      pageLogs.set(page, log);
      page.on('console', (m) => log.push(`console.${m.type()}: ${m.text()}`));
      page.on('requestfailed', (r) => log.push(`request failed: ${r.method()} ${r.url()} ${r.failure()?.errorText}`));
      page.on('response', (r) => {
        if (r.status() >= 400) log.push(`${r.status()} ${r.request().method()} ${r.url()}`);
      });
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      return { page, context, errors };
    },
  };
}

// A failed test leaves a screenshot of each page it opened (frontends/e2e/screenshots/failed-*).
// Registered when a test file imports this module, for each of its tests.
const openPages: Page[] = [];
const pageLogs = new WeakMap<Page, string[]>();
beforeEach((ctx) => {
  openPages.length = 0;
  ctx.onTestFailed(async () => {
    const name = ctx.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
    for (const [i, page] of openPages.entries()) {
      if (!page.isClosed()) {
        await page
          .screenshot({ path: path.join(SCREENSHOTS_DIR, `failed-${name}-${i}.png`), fullPage: true })
          .catch(() => undefined);
        const log = pageLogs.get(page) ?? [];
        writeFileSync(path.join(SCREENSHOTS_DIR, `failed-${name}-${i}.log`), `${log.join('\n')}\n`);
      }
    }
  });
});

let n = 0;
/** A new user's registration fields. */
export const newPerson = (organization = 'FIA') => ({
  name: `Test User ${++n}`,
  email: `user.${Date.now().toString(36)}.${n}@agency.bm`,
  password: 'a long enough password',
  role: 'Analyst',
  organization,
});
