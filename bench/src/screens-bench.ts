/**
 * The record screens in Chromium with thousands of records loaded (issue 6): how long a user waits
 * for each screen's answer, measured in the browser from the click (or the navigation) to the
 * answer on screen. The history is seeded into the records collection (as bench:records does); one
 * suspect recorded by two agencies is created through the gateway and linked by NRAD itself.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AGENCY_CODES, type Agency } from '@nrad/contracts';
import { chromiumPath, REPO_ROOT } from '@nrad/infra';
import { RecordsConfigSchema } from '@nrad/records-service/config';
import { type RecordDoc, RecordRepository } from '@nrad/records-service/storage';
import { connectMongo } from '@nrad/service-kit';
import { type mongo, Types } from 'mongoose';
import { type Browser, chromium, type Page } from 'playwright-core';
import { describeStore, GatewayClient, type RunContext, startBenchSystem } from './harness.ts';
import { formatLatencyReport, type LatencyReport, latency, machine, operationLog } from './report.ts';
import { Random, recordBody } from './seed.ts';
import { type SeededAgency, seedRecords } from './seeding.ts';

export { Cleanup } from './harness.ts';

export interface ScreensBenchOptions extends RunContext {
  /** Records seeded into the records collection, spread evenly over BPS, FIA and CUS. */
  n: number;
  /** Measured runs of each screen operation. */
  iterations: number;
  /** Uncounted runs of each operation first (the browser's cache, the services' warm paths). */
  warmup: number;
  seed: number;
}

/** The operations of the report, in its order. */
export const SCREEN_OPERATIONS = [
  'Search, no filter: first 100 rows shown',
  'Search: Show more (rows 101-200)',
  'Search by suspect name (a typo)',
  'Record Details with its Record Journey',
  'Add New Record: NAMLC match check',
  'Deleted Records: first 100 rows shown',
  'API alone: POST /api/records/search (first page)',
  'API alone: GET /api/records/deleted (first page)',
  'API alone: GET /api/records/{id}',
] as const;

export interface ScreensReport extends LatencyReport {
  /** Police records deleted for the Deleted Records screen. */
  deleted: number;
}

const PASSWORD = 'bench screens password';

interface Officer {
  agency: Agency;
  email: string;
  userId: string;
  http: GatewayClient;
}

async function registerOfficers(base: string, tag: string): Promise<Officer[]> {
  const officers: Officer[] = [];
  for (const agency of AGENCY_CODES) {
    const http = new GatewayClient(base);
    const email = `screens-${tag}-${agency.toLowerCase()}@bench.nrad.local`;
    await http.expect(201, 'POST', '/api/auth/register', {
      name: `Screens ${agency} Officer`,
      email,
      password: PASSWORD,
      role: 'Analyst',
      organization: agency,
    });
    const login = await http.expect(200, 'POST', '/api/auth/login', { email, password: PASSWORD });
    const { user } = JSON.parse(login.text) as { user: { id: string } };
    officers.push({ agency, email, userId: user.id, http });
  }
  return officers;
}

/** A signed-in browser page of `officer` (its own context: its own cookies). */
async function pageOf(browser: Browser, base: string, officer: Officer): Promise<Page> {
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const login = await page.request.post('/api/auth/login', {
    data: { email: officer.email, password: PASSWORD },
    headers: { origin: base },
  });
  if (!login.ok()) throw new Error(`the browser could not sign in: ${login.status()}`);
  return page;
}

const rows = (page: Page) => page.locator('tbody tr.ant-table-row');

/** Runs `measure` warmup + iterations times; the measured runs' milliseconds. */
async function sample(times: { warmup: number; iterations: number }, measure: () => Promise<number>) {
  for (let i = 0; i < times.warmup; i++) await measure();
  const samples: number[] = [];
  for (let i = 0; i < times.iterations; i++) samples.push(await measure());
  return latency(samples);
}

async function timedUntil(start: () => Promise<unknown>, done: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await start();
  await done();
  return performance.now() - started;
}

export async function runScreensBench(options: ScreensBenchOptions): Promise<ScreensReport> {
  const { log, cleanup } = options;
  const started = performance.now();
  const host = machine();
  const rng = new Random(options.seed);
  const tag = Date.now().toString(36);
  if (!existsSync(path.join(REPO_ROOT, 'frontends/records/dist/mf-manifest.json'))) {
    throw new Error('the frontends are not built: run npm run build first');
  }
  const { system, base, guard } = await startBenchSystem(options);

  return guard(async (): Promise<ScreensReport> => {
    const conn = await connectMongo({
      url: system.infra.mongoUrl,
      dbName: RecordsConfigSchema.shape.MONGO_DB.parse(undefined),
    });
    cleanup.add(() => conn.close());
    if (!conn.db) throw new Error('not connected to the store');
    const store = await describeStore(conn.db, options.env);
    log(`Store: ${store}`);
    const officers = await registerOfficers(base, tag);
    const [bps, fia] = officers as [Officer, Officer, Officer];

    // The history goes straight into the records collection, as bench:records seeds it (creating
    // thousands through the gateway takes minutes on FerretDB): the screens read it the same way.
    log(`Seeding ${options.n.toLocaleString('en-US')} records...`);
    const repo = new RecordRepository(conn);
    await repo.init();
    const existing = await repo.model.estimatedDocumentCount();
    if (existing > 0) throw new Error(`the records collection of ${store} already holds ${existing} documents`);
    const owners: SeededAgency[] = officers.map((o) => ({
      agency: o.agency,
      createdById: o.userId,
      ids: [],
      samples: [],
    }));
    if (options.env.MONGO_URL) {
      const ownerIds = officers.map((o) => new Types.ObjectId(o.userId));
      cleanup.add(() => repo.model.collection.deleteMany({ createdById: { $in: ownerIds } }));
    }
    const collection = repo.model.collection as unknown as mongo.Collection<RecordDoc>;
    const seeding = await seedRecords(owners, options.n, rng, log, (docs) =>
      collection.insertMany(docs, { ordered: false }),
    );
    const ids = Object.fromEntries(owners.map((o) => [o.agency, o.ids]));
    const names = Object.fromEntries(owners.map((o) => [o.agency, o.samples.map((x) => x.suspectName)]));

    // One suspect in both the police and the intelligence records, linked by NRAD itself.
    const suspect = { suspectName: 'Benchmark Suspect Outerbridge', suspectDob: '1977-08-21' };
    const pair: Record<string, unknown> = {
      ...recordBody(rng, 'BPS', `${tag}-PAIR`, new Date()),
      ...suspect,
      caseAmount: '12500.00',
    };
    await bps.http.expect(201, 'POST', '/api/records', pair);
    const intelligence = JSON.parse(
      (
        await fia.http.expect(201, 'POST', '/api/records', {
          ...pair,
          incidentNumber: `FIA-${tag}-PAIR`,
          suspectName: 'OUTERBRIDGE, Benchmark Suspect',
        })
      ).text,
    ) as { id: string };
    for (let waited = 0; ; waited += 100) {
      const links = JSON.parse((await fia.http.expect(200, 'GET', `/api/records/${intelligence.id}/links`)).text);
      if (links.length > 0) break;
      if (waited > 60_000) throw new Error('the pair was not linked within a minute');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // Deleted Records: a tenth of the police records, at most 300.
    const bpsIds = ids.BPS as string[];
    const deleted = Math.min(300, Math.floor(bpsIds.length / 10));
    for (const id of bpsIds.slice(0, deleted)) await bps.http.expect(200, 'DELETE', `/api/records/${id}`);
    const listed = bpsIds.length + 1 - deleted;

    const browser = await chromium.launch({
      executablePath: chromiumPath(),
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
    });
    cleanup.add(() => browser.close());
    const policePage = await pageOf(browser, base, bps);
    const intelPage = await pageOf(browser, base, fia);
    const times = { warmup: options.warmup, iterations: options.iterations };
    const notes: string[] = [];
    const { operations, add: measured } = operationLog<(typeof SCREEN_OPERATIONS)[number]>(log);
    log(`Measuring each screen operation ${options.iterations} times after ${options.warmup} warm-up runs...`);

    const openSearch = async () => {
      await policePage.goto('/search');
      await policePage.getByRole('heading', { name: 'Search Records' }).waitFor();
    };
    const firstPage = Math.min(100, listed);
    measured(
      'Search, no filter: first 100 rows shown',
      await sample(times, async () => {
        await openSearch();
        return timedUntil(
          () => policePage.getByRole('button', { name: 'Search', exact: true }).click(),
          () =>
            rows(policePage)
              .nth(firstPage - 1)
              .waitFor(),
        );
      }),
    );
    if (listed > 100) {
      measured(
        'Search: Show more (rows 101-200)',
        await sample(times, async () => {
          await openSearch();
          await policePage.getByRole('button', { name: 'Search', exact: true }).click();
          await rows(policePage).nth(99).waitFor();
          return timedUntil(
            () => policePage.getByRole('button', { name: /^Show more/ }).click(),
            () =>
              rows(policePage)
                .nth(Math.min(200, listed) - 1)
                .waitFor(),
          );
        }),
      );
    } else notes.push('Show more was not measured: fewer than 101 police records.');

    const policeNames = names.BPS as string[];
    let turn = 0;
    measured(
      'Search by suspect name (a typo)',
      await sample(times, async () => {
        const name = policeNames[turn++ % policeNames.length] as string;
        const typo = name.replace(/([a-z])([a-z])(?=[a-z]*$)/, '$2$1'); // two letters of the last word swapped
        await openSearch();
        await policePage.getByLabel('Suspect Name').fill(typo);
        return timedUntil(
          () => policePage.getByRole('button', { name: 'Search', exact: true }).click(),
          () => policePage.locator('.ant-notification-notice', { hasText: /^SuccessFound \d+ records\.$/ }).waitFor(),
        );
      }),
    );

    measured(
      'Record Details with its Record Journey',
      await sample(times, async () => {
        await intelPage.goto('/search'); // somewhere else first: the details screen is opened, not reloaded
        await intelPage.getByRole('heading', { name: 'Search Records' }).waitFor();
        return timedUntil(
          () => intelPage.goto(`/record/${intelligence.id}`),
          () => intelPage.getByTestId('journey-link').waitFor(),
        );
      }),
    );

    measured(
      'Add New Record: NAMLC match check',
      await sample(times, async () => {
        await intelPage.goto('/records');
        await intelPage.getByRole('heading', { name: 'Add New Record' }).waitFor();
        await intelPage.getByLabel('Suspect Name').fill('Benchmark Suspekt Outerbridge');
        await intelPage.getByLabel('Suspect Date of Birth').fill(suspect.suspectDob);
        await intelPage.getByLabel('Incident Date').fill(String(pair.incidentDate));
        await intelPage.getByLabel('Case Amount').fill('12500');
        for (const [label, option] of [
          ['Source of Record', 'Referral from NAMLC organization'],
          ['NAMLC Organization', 'Bermuda Police Service'],
        ] as const) {
          const box = intelPage.getByLabel(label, { exact: true });
          await box.fill(option);
          await intelPage
            .locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: option })
            .waitFor();
          await box.press('Enter');
        }
        return timedUntil(
          () => intelPage.getByRole('button', { name: 'Check for Potential Matches' }).click(),
          () => intelPage.getByText('Found 1 Potential Match(es)').waitFor(),
        );
      }),
    );

    measured(
      'Deleted Records: first 100 rows shown',
      await sample(times, async () => {
        await policePage.goto('/search');
        await policePage.getByRole('heading', { name: 'Search Records' }).waitFor();
        return timedUntil(
          () => policePage.goto('/deleted-records'),
          () =>
            rows(policePage)
              .nth(Math.min(100, deleted) - 1)
              .waitFor(),
        );
      }),
    );

    // The same requests without the browser: what of the above is the store's and the services'.
    const api = async (method: string, pathname: string, body?: unknown) =>
      (await bps.http.expect(200, method, pathname, body)).ms;
    const oneId = bpsIds[deleted] as string;
    measured(
      'API alone: POST /api/records/search (first page)',
      await sample(times, () => api('POST', '/api/records/search?limit=100', {})),
    );
    measured(
      'API alone: GET /api/records/deleted (first page)',
      await sample(times, () => api('GET', '/api/records/deleted?limit=100')),
    );
    measured('API alone: GET /api/records/{id}', await sample(times, () => api('GET', `/api/records/${oneId}`)));

    return {
      machine: host,
      n: options.n,
      perAgency: Object.fromEntries(AGENCY_CODES.map((a) => [a, (ids[a] as string[]).length])),
      store,
      seeding,
      deleted,
      iterations: options.iterations,
      warmup: options.warmup,
      operations,
      notes,
      seconds: (performance.now() - started) / 1000,
      loadAtEnd: machine().load,
    };
  });
}

export function formatScreensReport(r: ScreensReport): string {
  return formatLatencyReport(
    r,
    ' (into the records collection; the linked pair through the gateway)',
    [
      `Browser: Chromium (playwright-core), 1280×800; the police user searches ${r.perAgency.BPS?.toLocaleString('en-US')} records, ${r.deleted} of them deleted`,
      `Runs:    ${r.iterations} measured per operation after ${r.warmup} warm-up runs; from the click (or navigation) to the answer on screen`,
    ],
    'screen operation',
  );
}
