/**
 * The record screens in Chromium with thousands of records loaded (issue 6): how long a user waits
 * for each screen's answer, measured in the browser from the click (or the navigation) to the
 * answer on screen.
 *
 * The history gets in one of two ways (`seedVia`), both leaving every service's store consistent
 * with it (Search, Record Details, Deleted Records, the Dashboard, the NAMLC check):
 * - `gateway` (the default up to `STORE_SEEDING_ABOVE` records): each record POSTed through the
 *   gateway by its agency's officer, and a tenth of the police records (at most 300) DELETEd, so
 *   every service stores them itself from the requests and the `records.*` events;
 * - `store` (the default above): written before the services start, as each service itself
 *   stores them — the records collection with the records service's `newRecordDoc` (a share of
 *   them deleted, as its delete leaves them), the linking service's match index (`entryFor` of the
 *   presented record, `insertEntries`) and the stats read model (`stateOf`, `replaceAll`) — so the
 *   services load them at start as after a restart (as bench:linking and bench:stats seed).
 * Either way one suspect recorded by two agencies is then created through the gateway and linked
 * by NRAD itself (Record Details opens it with its links and Record Journey).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  AGENCY_CODES,
  type Agency,
  type CaseRecord,
  type DashboardStats,
  type MatchCandidate,
  NAMLC_AGENCY,
} from '@nrad/contracts';
import { chromiumPath, REPO_ROOT } from '@nrad/infra';
import { Types } from 'mongoose';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { type AgencyUser, type RunContext, signIn, signInAgencyUsers, sleep, startBenchSystem } from './harness.ts';
import { formatLatencyReport, type LatencyReport, latency, machine, median, operationLog } from './report.ts';
import { Random, recordBody } from './seed.ts';
import { type Seeding, seedRecords, unsignedOwners } from './seeding.ts';
import { openServiceStores, type ServiceStores, servicesWriter } from './stores.ts';
import { uploadAndWait, uploadFile } from './upload-file.ts';

export { Cleanup } from './harness.ts';

/** How the history gets in: POSTed through the gateway, or written into the stores before the services start. */
export type SeedVia = 'gateway' | 'store';
export const SEED_VIA: readonly SeedVia[] = ['gateway', 'store'];

/**
 * Above this many records the history is written into the stores unless `seedVia` says otherwise:
 * through the gateway each record is a request and an auto-linking, minutes per few thousand.
 */
export const STORE_SEEDING_ABOVE = 5000;

/** Percent of the records seeded as deleted with `seedVia: 'store'` (as bench:records seeds them). */
export const DEFAULT_DELETED_PERCENT = 2;

/** The way the records get in for `n` records: `given` if any, else by N. */
export function seedViaFor(n: number, given?: SeedVia): SeedVia {
  return given ?? (n > STORE_SEEDING_ABOVE ? 'store' : 'gateway');
}

export interface ScreensBenchOptions extends RunContext {
  /** Records seeded, spread evenly over BPS, FIA and CUS. */
  n: number;
  /** Measured runs of each screen operation. */
  iterations: number;
  /** Uncounted runs of each operation first (the browser's cache, the services' warm paths). */
  warmup: number;
  seed: number;
  /** How the records get in (default: `seedViaFor(n)`). */
  seedVia?: SeedVia;
  /** With `seedVia: 'store'`, percent of the records seeded as deleted, drawn per record (default 2). */
  deletedPercent?: number;
  /**
   * Rows of each file customs uploads in the background while the screens are timed, one file
   * after another until the last operation is timed (0 or absent: no upload).
   */
  upload?: number;
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
  'Admin Panel: counts and the first 25 of all records shown',
  'Admin Panel: All Agency Records, Next page',
  'Operations console: services, queues, streams shown',
  'API alone: GET /api/admin/records?limit=25',
  'API alone: GET /api/admin/operations',
  'API alone: GET /api/admin/contact-requests',
] as const;

export interface ScreensReport extends LatencyReport {
  seedVia: SeedVia;
  /** Whether `seedVia` was chosen by N (not asked for). */
  seedViaDefault: boolean;
  /** The police user's deleted records (the Deleted Records screen's). */
  deleted: number;
  /** The browser the screens were timed in: its executable's name and version. */
  browser: string;
  /** The uploads made while the screens were timed (`upload`), if any. */
  background?: BackgroundUploads;
}

/** What customs uploaded in the background while the screens were timed. */
export interface BackgroundUploads {
  /** Rows of each file. */
  rows: number;
  /** Files whose job ended before the last operation was timed. */
  completedWhileTimed: number;
  /** Files uploaded in all (the last one waited for after the timing). */
  files: number;
  /** Records the uploads created (each file's successful rows). */
  stored: number;
  /** Seconds from each file's upload to its job's end. */
  jobSeconds: number[];
  /** Seconds waited after the last operation for the file then in progress. */
  waitedAfter: number;
}

/** Reading 100,000 records into the match index and the stats model at start takes minutes on FerretDB. */
const READY_TIMEOUT_MS = 15 * 60_000;
/** Records POSTed at once through the gateway (a few officers typing at the same time). */
const GATEWAY_CONCURRENCY = 4;
/** How long the figures may take to show the seeded history (the consumers' catching up). */
const SETTLE_TIMEOUT_MS = 5 * 60_000;
/** How long a screen may take to show its answer before the run fails. */
const SCREEN_TIMEOUT_MS = 3 * 60_000;
/** Suspect names kept per agency to search by. */
const SAMPLES = 3000;
/** How long one background upload may take before the run fails. */
const UPLOAD_TIMEOUT_MS = 15 * 60_000;

/** An agency user signed in through the gateway (signInAgencyUsers). */
type Officer = AgencyUser;

/** A signed-in browser page of `officer` (its own context: its own cookies). */
async function pageOf(browser: Browser, base: string, officer: { email: string; password: string }): Promise<Page> {
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(SCREEN_TIMEOUT_MS);
  const page = await context.newPage();
  const login = await page.request.post('/api/auth/login', {
    data: { email: officer.email, password: officer.password },
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

/** How often a timed operation looks for its answer on screen. */
const LOOK_EVERY_MS = 5;

/**
 * Resolves once `seen()` holds, looking every `LOOK_EVERY_MS`. Playwright's own `waitFor` looks 0,
 * 20, 70, 170 and 270 ms after it starts and every 500 ms after that (playwright-core 1.65's
 * backoff): an answer shown 300 ms after the click was timed at about 770 ms, and every full page
 * load (its data on screen about 600 ms after the navigation) at about 900.
 */
async function until(seen: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = performance.now() + SCREEN_TIMEOUT_MS;
  while (!(await seen())) {
    if (performance.now() > deadline) throw new Error(`${what} was not shown within ${SCREEN_TIMEOUT_MS / 1000} s`);
    await sleep(LOOK_EVERY_MS);
  }
}

/** Resolves once `locator` is visible (`until`). */
const shown = (locator: Locator) => until(() => locator.isVisible(), String(locator));

/** The page's window as timedUntil marks it (the benchmark's TypeScript knows no DOM). */
interface ClickMarked {
  __nradClickAt?: number;
  addEventListener(type: 'click', listener: () => void, options: { capture: boolean; once: boolean }): void;
}

/** What starts a timed operation: a click on a locator, or opening a path. */
type Act = { click: Locator } | { goto: string };

/**
 * Milliseconds from the user's act to the answer on screen (`done`), on the page's own clock
 * (`globalThis.performance` in the functions the page runs: this module's `performance` import
 * does not exist there once a test runner has rewritten the imports): from
 * the click the page received — not from Playwright's click(), whose checks that the button is
 * visible, stable and enabled took 100–290 ms of their own here (a headless shell draws few
 * animation frames to be stable in) — or from the start of the navigation, to when `done` saw the
 * answer (looked for every `LOOK_EVERY_MS`).
 */
async function timedUntil(page: Page, act: Act, done: () => Promise<unknown>): Promise<number> {
  if ('goto' in act) {
    await page.goto(act.goto);
    await done();
    return page.evaluate(() => globalThis.performance.now()); // since the navigation started (the page's time origin)
  }
  await page.evaluate(() => {
    const w = globalThis as unknown as ClickMarked;
    w.__nradClickAt = undefined;
    w.addEventListener(
      'click',
      () => {
        w.__nradClickAt = globalThis.performance.now();
      },
      { capture: true, once: true },
    );
  });
  await act.click.click();
  await done();
  const { clickAt, now } = await page.evaluate(() => ({
    clickAt: (globalThis as unknown as ClickMarked).__nradClickAt,
    now: globalThis.performance.now(),
  }));
  if (clickAt === undefined) throw new Error('the page received no click');
  return now - clickAt;
}

/**
 * On a server of the user's (MONGO_URL): what the run wrote, taken away again once the system
 * stopped. `createdIds` are the records made through the gateway one by one; those the background
 * uploads made are found by their creator.
 */
async function removeWhatTheRunWrote(s: ServiceStores, creators: string[], createdIds: string[]): Promise<void> {
  const byCreator = { createdById: { $in: creators.map((c) => new Types.ObjectId(c)) } };
  const ids = new Set(createdIds);
  for (const doc of await s.raw.find(byCreator, { projection: { _id: 1 } }).toArray()) ids.add(String(doc._id));
  const all = [...ids];
  await s.raw.deleteMany(byCreator);
  await s.linking.index.collection.deleteMany({ 'record.createdById': { $in: creators } });
  for (let at = 0; at < all.length; at += 10_000) {
    await s.linking.links.collection.deleteMany({ sourceRecordId: { $in: all.slice(at, at + 10_000) } });
  }
  await s.stats.states.collection.drop().catch(() => undefined); // it was empty before the run
}

/** The figures the Dashboard should show an agency's officer. */
interface Figures {
  totalRecords: number;
  internationalCases: number;
}

/** A seeded record to check the match index by (an exact copy of its match fields). */
type MatchSample = Pick<CaseRecord, 'id' | 'suspectName' | 'suspectDob' | 'incidentDate' | 'caseAmount'>;

/** The seeded history, however it got in. */
interface History {
  seeding: Seeding;
  /** Records seeded per agency, deleted ones included. */
  perAgency: Record<Agency, number>;
  deletedPerAgency: Record<Agency, number>;
  /** Each agency's records that are not deleted. */
  ids: Record<Agency, string[]>;
  /** Suspect names of some police records that are not deleted, to search by. */
  policeNames: string[];
  /** What each agency's Dashboard should count of them. */
  figures: Record<Agency, Figures>;
  /** One record of each agency that is not deleted (if it has one). */
  samples: Record<Agency, MatchSample | undefined>;
}

const perAgency = <T>(value: (agency: Agency) => T) =>
  Object.fromEntries(AGENCY_CODES.map((a) => [a, value(a)])) as Record<Agency, T>;

/**
 * Writes `n` generated records into the three stores before the services start, each as its
 * service stores it: the records collection (`newRecordDoc`, about `deletedShare` of them as the
 * service's delete leaves them), the match index (`entryFor` of the presented record) and the stats
 * read model (`stateOf` of it, `replaceAll`). Their creators are officers who never sign in.
 */
async function seedStores(
  s: ServiceStores,
  n: number,
  rng: Random,
  deletedShare: number,
  log: (line: string) => void,
): Promise<{ history: History; creators: string[] }> {
  const owners = unsignedOwners();
  const figures = perAgency<Figures>(() => ({ totalRecords: 0, internationalCases: 0 }));
  const writer = servicesWriter(s);
  log(
    `Seeding ${n.toLocaleString('en-US')} records (about ${(deletedShare * 100).toFixed(1)}% deleted) into the records ` +
      "collection, the linking service's match index and the stats read model...",
  );
  const started = performance.now();
  await seedRecords(
    owners,
    n,
    rng,
    log,
    async (docs) => {
      for (const r of await writer.write(docs)) {
        const f = figures[r.organization as Agency];
        if (!r.deleted) {
          f.totalRecords++;
          if (r.internationalNexus) f.internationalCases++;
        }
      }
    },
    { deletedShare },
  );
  const states = await writer.finish();
  const seconds = (performance.now() - started) / 1000;
  log(`  and the ${states.toLocaleString('en-US')} record states: ${seconds.toFixed(1)} s in all`);
  const of = (agency: Agency) => owners.find((o) => o.agency === agency) as (typeof owners)[number];
  const history: History = {
    seeding: { seconds, perSecond: n / seconds },
    perAgency: perAgency((a) => of(a).ids.length + (of(a).deleted?.length ?? 0)),
    deletedPerAgency: perAgency((a) => of(a).deleted?.length ?? 0),
    ids: perAgency((a) => of(a).ids),
    policeNames: of('BPS').samples.map((x) => x.suspectName),
    figures,
    samples: perAgency((a) => of(a).samples[0]),
  };
  return { history, creators: owners.map((o) => o.createdById) };
}

/**
 * Creates `n` generated records through the gateway, each POSTed by its agency's officer (a few
 * at a time), then DELETEs a tenth of the police records (at most 300): every service stores them
 * itself, from the requests and the `records.*` events.
 */
async function seedThroughGateway(
  officers: Officer[],
  n: number,
  rng: Random,
  log: (line: string) => void,
  createdIds: string[],
): Promise<History> {
  log(`Creating ${n.toLocaleString('en-US')} records through the gateway (POST /api/records)...`);
  const started = performance.now();
  const ids = perAgency<string[]>(() => []);
  const created = new Map<string, MatchSample & { internationalNexus: boolean }>();
  const step = Math.max(100, Math.ceil(n / 10 / 100) * 100);
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      const officer = officers[i % officers.length] as Officer;
      const slot = Math.floor(i / officers.length);
      // Drawn before the request, in record order: the same seed gives the same records.
      const body = recordBody(rng, officer.agency, String(slot + 1).padStart(6, '0'), new Date());
      const answer = await officer.http.expect(201, 'POST', '/api/records', body);
      const record = JSON.parse(answer.text) as CaseRecord;
      createdIds.push(record.id);
      ids[officer.agency][slot] = record.id;
      created.set(record.id, record);
      done++;
      if (done % step === 0 || done === n) {
        const seconds = (performance.now() - started) / 1000;
        log(`  ${done.toLocaleString('en-US')} / ${n.toLocaleString('en-US')} (${Math.round(done / seconds)}/s)`);
      }
    }
  };
  await Promise.all(Array.from({ length: GATEWAY_CONCURRENCY }, worker));

  // Deleted Records: a tenth of the police records, at most 300.
  const bps = officers.find((o) => o.agency === 'BPS') as Officer;
  const deleted = Math.min(300, Math.floor(ids.BPS.length / 10));
  log(`Deleting ${deleted} police records through the gateway (DELETE /api/records/{id})...`);
  for (const id of ids.BPS.splice(0, deleted)) await bps.http.expect(200, 'DELETE', `/api/records/${id}`);
  const seconds = (performance.now() - started) / 1000;
  const sampleEvery = Math.max(1, Math.floor(ids.BPS.length / SAMPLES));
  const recordOf = (id: string) => created.get(id) as MatchSample & { internationalNexus: boolean };
  return {
    seeding: { seconds, perSecond: n / seconds },
    perAgency: perAgency((a) => ids[a].length + (a === 'BPS' ? deleted : 0)),
    deletedPerAgency: perAgency((a) => (a === 'BPS' ? deleted : 0)),
    ids,
    policeNames: ids.BPS.filter((_, i) => i % sampleEvery === 0).map((id) => recordOf(id).suspectName),
    figures: perAgency((a) => ({
      totalRecords: ids[a].length,
      internationalCases: ids[a].filter((id) => recordOf(id).internationalNexus).length,
    })),
    samples: perAgency((a) => (ids[a][0] === undefined ? undefined : recordOf(ids[a][0]))),
  };
}

/**
 * Customs uploads files of `rows` generated records through the batch upload one after another
 * (each job waited for, then the next file sent) until `stop`: an upload being stored and
 * auto-linked behind every screen timed meanwhile. Each next file is written while the one before
 * is read, so the benchmark's own work on it falls inside the upload's, not between uploads.
 */
function startBackgroundUploads(
  officer: Officer,
  rows: number,
  rng: Random,
  tag: string,
  log: (line: string) => void,
): { stop: () => Promise<BackgroundUploads> } {
  const makeFile = (k: number) =>
    uploadFile(
      Array.from({ length: rows }, (_, i) => recordBody(rng, officer.agency, `${tag}B${k}-${i + 1}`, new Date())),
    );
  const jobSeconds: number[] = [];
  let stored = 0;
  let stopping = false;
  let next = makeFile(1);
  const uploads = (async () => {
    // Each job is waited for before the loop looks at `stopping` again: every file but the last
    // ended while the screens were timed.
    while (!stopping) {
      const k = jobSeconds.length + 1;
      const sent = performance.now();
      const done = await uploadAndWait(officer, next, {
        name: `background-${k}.xlsx`,
        waitMs: UPLOAD_TIMEOUT_MS,
        onAnswer: (request) => {
          if (request === 'upload') next = makeFile(k + 1); // while this one is read
        },
      });
      jobSeconds.push((performance.now() - sent) / 1000);
      stored += done.result?.successfulRecords ?? 0;
      log(
        `  background upload ${k}: ${done.result?.successfulRecords ?? 0} of ${rows} rows stored in ${jobSeconds.at(-1)?.toFixed(1)} s`,
      );
    }
  })();
  // Kept until stop() asks for it, so that a failed upload fails the run there and not as an unhandled rejection.
  const ended = uploads.then(
    () => undefined,
    (error: unknown) => error,
  );
  return {
    stop: async () => {
      stopping = true;
      const stopped = performance.now();
      const error = await ended;
      if (error) throw error;
      return {
        rows,
        completedWhileTimed: jobSeconds.length - 1,
        files: jobSeconds.length,
        stored,
        jobSeconds,
        waitedAfter: (performance.now() - stopped) / 1000,
      };
    },
  };
}

/**
 * The screens benchmark: brings the whole system up as `npm start` does (the built web app
 * included), seeds the history (`seedVia`), creates the linked pair, checks that the Dashboard's
 * figures and the NAMLC check agree with what was seeded, then times each screen operation in
 * Chromium, and the same search, deleted list and record read without the browser.
 */
export async function runScreensBench(options: ScreensBenchOptions): Promise<ScreensReport> {
  const { env, log, cleanup } = options;
  const started = performance.now();
  const host = machine();
  const rng = new Random(options.seed);
  const tag = Date.now().toString(36);
  const via = seedViaFor(options.n, options.seedVia);
  const deletedShare = (options.deletedPercent ?? DEFAULT_DELETED_PERCENT) / 100;
  if (!existsSync(path.join(REPO_ROOT, 'frontends/records/dist/mf-manifest.json'))) {
    throw new Error('the frontends are not built: run npm run build first');
  }
  log(
    `Seeding via ${via === 'store' ? 'the stores' : 'the gateway'}${
      options.seedVia
        ? ' (--seed-via)'
        : ` (the default for ${options.n > STORE_SEEDING_ABOVE ? 'more than' : 'up to'} ${STORE_SEEDING_ABOVE.toLocaleString('en-US')} records)`
    }`,
  );

  let stores: ServiceStores | undefined;
  let seeded: History | undefined;
  // Whose records the run makes, and which it makes through the gateway (to take them away on MONGO_URL).
  const creators: string[] = [];
  const createdIds: string[] = [];
  const prepareStores = async (infra: { mongoUrl: string }) => {
    const s = await openServiceStores(infra.mongoUrl, env);
    stores = s;
    cleanup.add(() => s.conn.close());
    if (env.MONGO_URL) cleanup.add(() => removeWhatTheRunWrote(s, creators, createdIds));
    log(`Store: ${s.name}`);
    if (via === 'store') {
      const result = await seedStores(s, options.n, rng, deletedShare, log);
      creators.push(...result.creators);
      seeded = result.history;
    }
  };
  const { base, guard, system } = await startBenchSystem({
    ...options,
    beforeServices: prepareStores,
    ...(via === 'store' ? { readyTimeoutMs: READY_TIMEOUT_MS } : {}),
  });

  return guard(async (): Promise<ScreensReport> => {
    if (!stores) throw new Error('the stores were not opened');
    const officers = await signInAgencyUsers(base, `screens-${tag}`);
    creators.push(...officers.map((o) => o.user.userId));
    const byAgency = (agency: Agency) => officers.find((o) => o.agency === agency) as Officer;
    const bps = byAgency('BPS');
    const fia = byAgency('FIA');
    const history = seeded ?? (await seedThroughGateway(officers, options.n, rng, log, createdIds));
    const notes: string[] = [];

    // One suspect in both the police and the intelligence records, linked by NRAD itself.
    log('Creating the linked pair through the gateway...');
    const suspect = { suspectName: 'Benchmark Suspect Outerbridge', suspectDob: '1977-08-21' };
    const pair: Record<string, unknown> = {
      ...recordBody(rng, 'BPS', `${tag}-PAIR`, new Date()),
      ...suspect,
      caseAmount: '12500.00',
    };
    const create = async (who: Officer, body: Record<string, unknown>) => {
      const record = JSON.parse((await who.http.expect(201, 'POST', '/api/records', body)).text) as CaseRecord;
      createdIds.push(record.id);
      return record;
    };
    const police = await create(bps, pair);
    const intelligence = await create(fia, {
      ...pair,
      incidentNumber: `FIA-${tag}-PAIR`,
      suspectName: 'OUTERBRIDGE, Benchmark Suspect',
    });
    for (let waited = 0; ; waited += 100) {
      const links = JSON.parse((await fia.http.expect(200, 'GET', `/api/records/${intelligence.id}/links`)).text);
      if (links.length > 0) break;
      if (waited > 60_000) throw new Error('the pair was not linked within a minute');
      await sleep(100);
    }
    const figures = history.figures;
    for (const r of [police, intelligence]) {
      const f = figures[r.organization as Agency];
      f.totalRecords++;
      if (r.internationalNexus) f.internationalCases++;
    }
    const deleted = history.deletedPerAgency.BPS;
    const listed = figures.BPS.totalRecords;

    // The Dashboard's figures as seeded (through the gateway: once the stats consumer caught up).
    log('Checking the Dashboard figures and the NAMLC check against the seeded records...');
    const settleStarted = performance.now();
    for (const officer of officers) {
      const want = figures[officer.agency];
      for (;;) {
        const got = JSON.parse((await officer.http.expect(200, 'GET', '/api/stats')).text) as DashboardStats;
        if (got.totalRecords === want.totalRecords && got.internationalCases === want.internationalCases) break;
        if (performance.now() - settleStarted > SETTLE_TIMEOUT_MS) {
          notes.push(
            `${officer.agency} Dashboard: totalRecords ${got.totalRecords}, internationalCases ${got.internationalCases}; ` +
              `the seeded records make ${want.totalRecords} and ${want.internationalCases}`,
          );
          break;
        }
        await sleep(200);
      }
    }
    // The match index as seeded: each agency's first record, checked by its exact match fields.
    for (const agency of AGENCY_CODES) {
      const s = history.samples[agency];
      if (!s) continue;
      const asker = officers.find((o) => o.agency !== agency) as Officer;
      const organization = Object.entries(NAMLC_AGENCY).find(([, a]) => a === agency)?.[0];
      const { matches } = JSON.parse(
        (
          await asker.http.expect(200, 'POST', '/api/records/check-namlc-matches', {
            namlcOrganization: organization,
            suspectName: s.suspectName,
            suspectDob: s.suspectDob,
            incidentDate: s.incidentDate,
            caseAmount: s.caseAmount,
          })
        ).text,
      ) as { matches: MatchCandidate[] };
      if (!matches.some((m) => m.id === s.id)) {
        notes.push(`the NAMLC check did not find the seeded ${agency} record ${s.id} by its own values`);
      }
    }
    // What the screen's check will find (the pair's police record, and any seeded look-alike).
    const check = {
      namlcOrganization: 'Bermuda Police Service',
      suspectName: 'Benchmark Suspekt Outerbridge',
      suspectDob: suspect.suspectDob,
      incidentDate: String(pair.incidentDate),
      caseAmount: '12500',
    };
    const { matches } = JSON.parse(
      (await fia.http.expect(200, 'POST', '/api/records/check-namlc-matches', check)).text,
    ) as { matches: MatchCandidate[] };
    if (!matches.some((m) => m.id === police.id)) notes.push("the NAMLC check did not find the pair's police record");

    const executablePath = chromiumPath();
    const browser = await chromium.launch({
      executablePath,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
    });
    cleanup.add(() => browser.close());
    const browserName = `${path.basename(executablePath)} ${browser.version()}`;
    const policePage = await pageOf(browser, base, bps);
    const intelPage = await pageOf(browser, base, fia);
    const times = { warmup: options.warmup, iterations: options.iterations };
    const { operations, add: measured } = operationLog<(typeof SCREEN_OPERATIONS)[number]>(log);
    const uploads =
      options.upload && options.upload > 0
        ? startBackgroundUploads(byAgency('CUS'), options.upload, new Random(options.seed + 1), tag, log)
        : undefined;
    if (uploads) log(`Customs uploads files of ${options.upload} rows one after another in the background...`);
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
        return timedUntil(policePage, { click: policePage.getByRole('button', { name: 'Search', exact: true }) }, () =>
          shown(rows(policePage).nth(firstPage - 1)),
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
          return timedUntil(policePage, { click: policePage.getByRole('button', { name: /^Show more/ }) }, () =>
            shown(rows(policePage).nth(Math.min(200, listed) - 1)),
          );
        }),
      );
    } else notes.push('Show more was not measured: fewer than 101 police records.');

    const policeNames = history.policeNames;
    let turn = 0;
    measured(
      'Search by suspect name (a typo)',
      await sample(times, async () => {
        const name = policeNames[turn++ % policeNames.length] as string;
        const typo = name.replace(/([a-z])([a-z])(?=[a-z]*$)/, '$2$1'); // two letters of the last word swapped
        await openSearch();
        await policePage.getByLabel('Suspect Name').fill(typo);
        return timedUntil(policePage, { click: policePage.getByRole('button', { name: 'Search', exact: true }) }, () =>
          shown(policePage.locator('.ant-notification-notice', { hasText: /^SuccessFound \d+ records\.$/ })),
        );
      }),
    );

    measured(
      'Record Details with its Record Journey',
      await sample(times, async () => {
        await intelPage.goto('/search'); // somewhere else first: the details screen is opened, not reloaded
        await intelPage.getByRole('heading', { name: 'Search Records' }).waitFor();
        return timedUntil(intelPage, { goto: `/record/${intelligence.id}` }, () =>
          shown(intelPage.getByTestId('journey-link')),
        );
      }),
    );

    measured(
      'Add New Record: NAMLC match check',
      await sample(times, async () => {
        await intelPage.goto('/records');
        await intelPage.getByRole('heading', { name: 'Add New Record' }).waitFor();
        await intelPage.getByLabel('Suspect Name').fill(check.suspectName);
        await intelPage.getByLabel('Suspect Date of Birth').fill(check.suspectDob);
        await intelPage.getByLabel('Incident Date').fill(check.incidentDate);
        await intelPage.getByLabel('Case Amount').fill(check.caseAmount);
        for (const [label, option] of [
          ['Source of Record', 'Referral from NAMLC organization'],
          ['NAMLC Organization', check.namlcOrganization],
        ] as const) {
          const box = intelPage.getByLabel(label, { exact: true });
          await box.fill(option);
          await intelPage
            .locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: option })
            .waitFor();
          await box.press('Enter');
        }
        return timedUntil(
          intelPage,
          { click: intelPage.getByRole('button', { name: 'Check for Potential Matches' }) },
          () => shown(intelPage.getByText(`Found ${matches.length} Potential Match(es)`)),
        );
      }),
    );

    if (deleted > 0) {
      measured(
        'Deleted Records: first 100 rows shown',
        await sample(times, async () => {
          await policePage.goto('/search');
          await policePage.getByRole('heading', { name: 'Search Records' }).waitFor();
          return timedUntil(policePage, { goto: '/deleted-records' }, () =>
            shown(rows(policePage).nth(Math.min(100, deleted) - 1)),
          );
        }),
      );
    } else notes.push('Deleted Records was not measured: no police record is deleted.');

    // The same requests without the browser: what of the above is the store's and the services'.
    const totals = { search: new Set<number>(), deleted: new Set<number>() };
    const api = async (method: string, pathname: string, body?: unknown, total?: Set<number>) => {
      const answer = await bps.http.expect(200, method, pathname, body);
      if (total && answer.total !== undefined) total.add(answer.total);
      return answer.ms;
    };
    measured(
      'API alone: POST /api/records/search (first page)',
      await sample(times, () => api('POST', '/api/records/search?limit=100', {}, totals.search)),
    );
    measured(
      'API alone: GET /api/records/deleted (first page)',
      await sample(times, () => api('GET', '/api/records/deleted?limit=100', undefined, totals.deleted)),
    );
    measured('API alone: GET /api/records/{id}', await sample(times, () => api('GET', `/api/records/${police.id}`)));
    for (const [what, got, want] of [
      ['search', totals.search, listed],
      ['deleted list', totals.deleted, deleted],
    ] as const) {
      if (got.size !== 1 || !got.has(want)) {
        notes.push(
          `the police ${what} counted ${[...got].join(', ') || 'nothing'} (X-Total-Count); ${want} were seeded`,
        );
      }
    }

    // ADMIN: the Admin Panel over every agency's records, the operations console, and their paths.
    const admin = await signIn(base, system.admin.email, system.admin.password);
    const adminPage = await pageOf(browser, base, system.admin);
    const openSettings = async () => {
      await adminPage.goto('/settings');
      await adminPage.getByText('Account Settings').waitFor();
    };
    const adminRows = () =>
      adminPage.locator('.ant-card', { hasText: 'All Agency Records' }).locator('tbody tr.ant-table-row');
    measured(
      'Admin Panel: counts and the first 25 of all records shown',
      await sample(times, async () => {
        await openSettings();
        return timedUntil(adminPage, { goto: '/admin' }, async () => {
          await shown(adminRows().nth(24));
          await shown(adminPage.getByTestId('count-CUS-value'));
        });
      }),
    );
    measured(
      'Admin Panel: All Agency Records, Next page',
      await sample(times, async () => {
        await openSettings();
        await adminPage.goto('/admin');
        await adminRows().nth(24).waitFor();
        const first = await adminRows().first().textContent();
        // Done when page 2's rows are shown (the table keeps the old page while the next loads).
        return timedUntil(adminPage, { click: adminPage.getByRole('button', { name: 'Next' }) }, () =>
          until(
            async () => (await adminRows().first().textContent()) !== first && (await adminRows().count()) >= 25,
            'the next page of All Agency Records',
          ),
        );
      }),
    );
    measured(
      'Operations console: services, queues, streams shown',
      await sample(times, async () => {
        await openSettings();
        return timedUntil(adminPage, { goto: '/admin/operations' }, () =>
          shown(adminPage.getByRole('region', { name: 'Consumers' }).locator('tbody tr.ant-table-row').first()),
        );
      }),
    );
    const adminApi = async (pathname: string) => (await admin.http.expect(200, 'GET', pathname)).ms;
    measured(
      'API alone: GET /api/admin/records?limit=25',
      await sample(times, () => adminApi('/api/admin/records?limit=25')),
    );
    measured('API alone: GET /api/admin/operations', await sample(times, () => adminApi('/api/admin/operations')));
    measured(
      'API alone: GET /api/admin/contact-requests',
      await sample(times, () => adminApi('/api/admin/contact-requests')),
    );
    let background: BackgroundUploads | undefined;
    if (uploads) {
      log('Waiting for the background upload in progress to end...');
      background = await uploads.stop();
      if (background.completedWhileTimed === 0) {
        notes.push('no background upload ended while the screens were timed: they were timed behind one upload only');
      }
    }

    return {
      machine: host,
      n: options.n,
      perAgency: history.perAgency,
      deletedPerAgency: history.deletedPerAgency,
      store: stores.name,
      seeding: history.seeding,
      seedVia: via,
      seedViaDefault: options.seedVia === undefined,
      deleted,
      browser: browserName,
      ...(background ? { background } : {}),
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
  const how =
    r.seedVia === 'store'
      ? ' (--seed-via store: into the records collection, the match index and the stats read model before the services started'
      : ` (--seed-via gateway: each record POSTed, ${r.deleted} police records DELETEd, through the gateway`;
  const chosen = r.seedViaDefault
    ? `, the default for ${r.n > STORE_SEEDING_ABOVE ? 'more than' : 'up to'} ${STORE_SEEDING_ABOVE.toLocaleString('en-US')} records`
    : '';
  return formatLatencyReport(
    r,
    `${how}${chosen}; the linked pair through the gateway)`,
    [
      `Browser: ${r.browser} (playwright-core), 1280×800; the police user searches ${(
        (r.perAgency.BPS ?? 0) - r.deleted + 1
      ).toLocaleString('en-US')} records and lists ${r.deleted.toLocaleString('en-US')} deleted ones`,
      `Runs:    ${r.iterations} measured per operation after ${r.warmup} warm-up runs; on the page's clock from the click it received (or the navigation's start) to the answer on screen, looked for every ${LOOK_EVERY_MS} ms`,
      ...(r.background ? [backgroundLine(r.background)] : []),
    ],
    'screen operation',
  );
}

function backgroundLine(b: BackgroundUploads): string {
  return (
    `Upload:  customs uploaded files of ${b.rows.toLocaleString('en-US')} rows one after another behind every operation: ` +
    `${b.completedWhileTimed} ended while timing, ${b.files} in all (${b.stored.toLocaleString('en-US')} records stored), ` +
    `each ${median(b.jobSeconds).toFixed(1)} s median from upload to its job's end; the last waited for ${b.waitedAfter.toFixed(1)} s after`
  );
}
