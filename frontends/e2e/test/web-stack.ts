/**
 * The real system for screen tests: auth, records and linking services on real ports (FerretDB,
 * NATS, Redis behind them, as in the gateway's tests), a gateway listening on a real port that
 * serves the built frontends, and Debian's Chromium driven by playwright-core.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ADMIN, startAuthStack } from '@nrad/gateway/test-stack';
import { REPO_ROOT } from '@nrad/infra';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll } from 'vitest';

export const FRONTENDS_DIR = path.join(REPO_ROOT, 'frontends');
export const SCREENSHOTS_DIR = path.join(FRONTENDS_DIR, 'e2e', 'screenshots');
export { ADMIN };

/** The Chromium to drive: CHROMIUM_PATH, else Debian's. */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const found = candidates.find((p): p is string => Boolean(p) && existsSync(p as string));
  if (!found) throw new Error('Chromium is not installed: `npm test` installs it (apt-get install chromium)');
  return found;
}

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
  page(options?: { baseUrl?: string }): Promise<{ page: Page; context: BrowserContext; errors: string[] }>;
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
      });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      return { page, context, errors };
    },
  };
}

let n = 0;
/** A new user's registration fields. */
export const newPerson = (organization = 'FIA') => ({
  name: `Test User ${++n}`,
  email: `user.${Date.now().toString(36)}.${n}@agency.bm`,
  password: 'a long enough password',
  role: 'Analyst',
  organization,
});
