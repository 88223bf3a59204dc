/**
 * The real system for screen tests: auth, records, linking and stats services on real ports (FerretDB,
 * NATS, Redis behind them, as in the gateway's tests), a gateway listening on a real port that
 * serves the built frontends, and Debian's Chromium driven by playwright-core.
 *
 * Once per group (ADR 0021): the journeys' files share a worker process (the e2e project is not
 * isolated), so the services' modules are loaded and Chromium is started once per worker; each file
 * still gets a stack of its own in a namespace of its own, and browser contexts of its own, stopped
 * after the file (deferCleanup).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ADMIN, type StackOptions, startAuthStack } from '@nrad/gateway/test-stack';
import { chromiumPath, REPO_ROOT } from '@nrad/infra';
import { closeHttpServer, deferCleanup } from '@nrad/infra/harness';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { beforeEach } from 'vitest';

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
  /**
   * A fresh browser context (its own cookies and storage) and page, with page errors collected.
   * Its user has asked their system for reduced motion unless `reducedMotion` says otherwise: the
   * app then draws no animations (frontends/shell Root.tsx), which the journeys do not test and
   * which took about a tenth of their CPU (ADR 0021); one journey runs with them.
   */
  page(options?: {
    baseUrl?: string;
    timezoneId?: string;
    reducedMotion?: 'reduce' | 'no-preference';
  }): Promise<{ page: Page; context: BrowserContext; errors: string[] }>;
}

async function listenOn(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let sharedBrowser: Promise<Browser> | undefined;

/** This worker's Chromium, started by the first file that needs it and used by the next ones. */
function browserOfWorker(): Promise<Browser> {
  sharedBrowser ??= chromium
    .launch({
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
    })
    .then((browser) => {
      // Playwright stops it when the worker exits; a crashed one is started again by the next file.
      browser.on('disconnected', () => {
        sharedBrowser = undefined;
      });
      return browser;
    });
  return sharedBrowser;
}

/** Starts this test file's stack; it is stopped, and the file's browser contexts closed, after the file. */
export async function startWebStack(options: StackOptions = {}): Promise<WebStack> {
  requireBuilt();
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  const stack = await startAuthStack(options);
  const gateway = async (overrides: Record<string, string>) => {
    const { server } = stack.gateway({ FRONTENDS_DIR, TRUST_PROXY: 'false', ...overrides });
    const listening = await listenOn(server);
    deferCleanup(() => closeHttpServer(listening.server));
    return listening.url;
  };
  const url = await gateway({});
  const browser = await browserOfWorker();
  return {
    url,
    stack,
    gateway,
    async page(options = {}) {
      const context = await browser.newContext({
        baseURL: options.baseUrl ?? url,
        viewport: { width: 1280, height: 800 },
        reducedMotion: options.reducedMotion ?? 'reduce',
        ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
      });
      // A test's pages are closed when it ends (an open page keeps rendering, and the next tests
      // wait for the CPU it takes); a file's own (opened in its beforeAll) after the file.
      if (testContexts) testContexts.push(context);
      else deferCleanup(() => context.close());
      // Each wait and action may take a minute, not Playwright's 30 s: on a loaded 2-core machine a
      // page of the whole stack once took longer than that to show (the stop-46 CI run).
      context.setDefaultTimeout(60_000);
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

// A failed test leaves a screenshot of each page it opened (frontends/e2e/screenshots/failed-*);
// then the contexts it opened are closed. Registered for each file by the e2e project's setup file
// (setup.ts): in a shared worker, this module's top level runs once, for the first file only.
const openPages: Page[] = [];
const pageLogs = new WeakMap<Page, string[]>();
/** The browser contexts the running test opened (null between tests). */
let testContexts: BrowserContext[] | null = null;

async function screenshotPages(testName: string) {
  const name = testName.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
  for (const [i, page] of openPages.entries()) {
    if (!page.isClosed()) {
      await page
        .screenshot({ path: path.join(SCREENSHOTS_DIR, `failed-${name}-${i}.png`), fullPage: true })
        .catch(() => undefined);
      const log = pageLogs.get(page) ?? [];
      writeFileSync(path.join(SCREENSHOTS_DIR, `failed-${name}-${i}.log`), `${log.join('\n')}\n`);
    }
  }
}

export function screenshotFailures(): void {
  beforeEach((ctx) => {
    openPages.length = 0;
    testContexts = [];
    // Vitest calls onTestFinished before onTestFailed: one handler does both, in this order.
    ctx.onTestFinished(async () => {
      if (ctx.task.result?.state === 'fail') await screenshotPages(ctx.task.name);
      const contexts = testContexts ?? [];
      testContexts = null;
      for (const context of contexts) await context.close().catch(() => undefined);
    });
  });
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
