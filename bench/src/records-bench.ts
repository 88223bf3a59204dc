import os from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  centsToMoney,
  moneyToCents,
  PAGE_DEFAULT_LIMIT,
  PAGE_MAX_LIMIT,
  type PageQuery,
  PageQuerySchema,
  RecordSearchSchema,
} from '@nrad/contracts';
import { SERVICES } from '@nrad/infra/system';
import { RecordsConfigSchema } from '@nrad/records-service/config';
import {
  listAllRecords,
  listDeletedRecords,
  listRecords,
  nearTerms,
  type RecordDeps,
  searchCriteria,
} from '@nrad/records-service/queries';
import { newRecordDoc, RecordRepository, scopedFilter } from '@nrad/records-service/storage';
import { nameMatches, words } from '@nrad/records-service/text';
import { connectMongo, scopeOf } from '@nrad/service-kit';
import { type Connection, Types } from 'mongoose';
import {
  type AgencyUser,
  type BenchSystem,
  describeStore,
  type GatewayClient,
  type RunContext,
  signIn,
  signInAgencyUsers,
  startBenchSystem,
  timed,
} from './harness.ts';
import { type BenchReport, latency, machine, type OperationResult, type RestartReport } from './report.ts';
import { Random, recordBody, recordInput, withTypo } from './seed.ts';
import { type SeededAgency, seedRecords } from './seeding.ts';

export { Cleanup } from './harness.ts';

export interface BenchOptions extends RunContext {
  /** Records to seed, spread evenly over BPS, FIA and CUS. */
  n: number;
  /** Measured runs of each operation (each run: once through the gateway, once direct). */
  iterations: number;
  /** Runs of each operation before measuring (not counted; only while the operation is fast). */
  warmup: number;
  /** Seconds an operation may take in all before it stops at the runs it has (at least one). */
  budgetSeconds: number;
  /** PRNG seed: the same seed gives the same records and the same queries. */
  seed: number;
  /**
   * Restarts of the whole system (every process stopped as Ctrl-C of `npm start` does, then started
   * on the same data) after the operations, each timing the start and a user's first requests
   * (default 3; 0 for none).
   */
  restarts?: number;
  /** Percent of the records seeded as deleted, drawn per record (default 2). */
  deletedPercent?: number;
}

export const DEFAULT_RESTARTS = 3;
export const DEFAULT_DELETED_PERCENT = 2;

/** The operations of the report, in its order. */
export const OPERATION_NAMES = [
  'list',
  'count',
  'get',
  'create',
  'search freeText',
  'search incidentNumber',
  'search suspectName',
  'search suspectDob',
  'search incidentDate',
  'search amount',
  'search caseAmount',
  'search seizedAmount',
  'search confiscatedAmount',
  'search country',
  'search crimeType',
  'search cyberAssisted',
  'deleted list',
  'admin list',
  'keyset page (middle)',
] as const;

/** The rows of the restart table that every restart gives (its start's steps go between them). */
export const RESTART_ROWS = {
  stop: 'stop → every process exited',
  ready: 'start → gateway ready',
  signIn: 'sign-in (POST /api/auth/login)',
  firstList: 'first GET /api/records',
} as const;

/** A step of the start in the restart table, by the name `startSystem` logs it under. */
export const restartStepRow = (step: string) => `  - ${step}`;

/** About this many pages are followed through X-Next-Cursor to reach the middle of a user's list. */
const WALK_PAGES = 10;

/** How long a created record's event may take to leave its outbox. */
const SETTLE_TIMEOUT_MS = 10 * 60_000;

/** One agency's signed-in user and what was seeded for it. */
type AgencyRun = AgencyUser & SeededAgency;

interface Outcome {
  ms: number;
  /** How many records the list or search found in all (to compare both paths). */
  total?: number;
}

/** One run of an operation: the same request made both ways. */
interface Trial {
  label: string;
  /** Who makes the request, when not the run's agency user (for the notes). */
  who?: string;
  gateway(): Promise<Outcome>;
  direct(): Promise<Outcome>;
  /** Waits (untimed) until work the request left running in the background is done; ms waited. */
  settle?(): Promise<number>;
}

type SearchBody = Record<string, unknown>;
type Sample = AgencyRun['samples'][number];

/**
 * Each search filter alone, its value taken from a random record of the user's agency (so it finds
 * at least that record). Amounts that are mostly zero and the crime type, which may be empty, are
 * taken from records that have one.
 */
const SEARCHES: ReadonlyArray<{
  filter: string;
  usable?: (s: Sample) => boolean;
  body(s: Sample, rng: Random): SearchBody;
}> = [
  { filter: 'freeText', body: (s) => ({ freeText: s.suspectName.split(' ').at(-1) }) },
  { filter: 'incidentNumber', body: (s) => ({ incidentNumber: s.incidentNumber.slice(0, -2).toLowerCase() }) },
  { filter: 'suspectName', body: (s, rng) => ({ suspectName: withTypo(rng, s.suspectName) }) },
  { filter: 'suspectDob', body: (s) => ({ suspectDob: s.suspectDob }) },
  { filter: 'incidentDate', body: (s) => ({ incidentDate: s.incidentDate }) },
  {
    filter: 'amount',
    body: (s) => ({
      amount: centsToMoney(
        moneyToCents(s.caseAmount) + moneyToCents(s.seizedAmount) + moneyToCents(s.confiscatedAmount),
      ),
    }),
  },
  { filter: 'caseAmount', body: (s) => ({ caseAmount: s.caseAmount }) },
  {
    filter: 'seizedAmount',
    usable: (s) => s.seizedAmount !== '0.00',
    body: (s) => ({ seizedAmount: s.seizedAmount }),
  },
  {
    filter: 'confiscatedAmount',
    usable: (s) => s.confiscatedAmount !== '0.00',
    body: (s) => ({ confiscatedAmount: s.confiscatedAmount }),
  },
  { filter: 'country', body: (s) => ({ country: s.country }) },
  { filter: 'crimeType', usable: (s) => s.crimeType != null, body: (s) => ({ crimeType: s.crimeType }) },
  { filter: 'cyberAssisted', body: (s) => ({ cyberAssisted: s.cyberAssisted }) },
];

interface Operation {
  name: string;
  /** Untimed work before the first run (e.g. walking to the middle of each user's list). */
  prepare?(runs: AgencyRun[]): Promise<void>;
  trial(run: AgencyRun, rng: Random): Trial;
}

/** The arguments of one `RecordRepository.page` call. */
type PageCall = Parameters<RecordRepository['page']>;

/**
 * The page query a use-case of the records service makes, taken from the service itself: the
 * use-case runs on a repository that only notes its call (and answers an empty page). So the
 * direct path queries exactly the filter, page size, cursor and sort the service would.
 */
async function pageCallOf(useCase: (deps: RecordDeps) => Promise<unknown>): Promise<PageCall> {
  let call: PageCall | undefined;
  const recorder: Pick<RecordRepository, 'page'> = {
    page: async (...args: PageCall) => {
      call = args;
      return { items: [], total: 0, nextCursor: null };
    },
  };
  await useCase({ records: recorder } as unknown as RecordDeps);
  if (!call) throw new Error('the use-case made no page query');
  return call;
}

/** The paging of a request with these query parameters, as the service's routes parse it. */
const paging = (query: { limit?: number; cursor?: string } = {}): PageQuery =>
  PageQuerySchema.parse({ limit: query.limit === undefined ? undefined : String(query.limit), cursor: query.cursor });

/** Where each agency user's walk through X-Next-Cursor ended: the cursor of the middle of the list. */
interface Walk {
  cursor: string;
  /** Records on the pages followed (before the cursor) and in the whole list. */
  behind: number;
  total: number;
  pages: number;
  pageSize: number;
}

/** The operations, each as the service runs it and as the same query made directly. */
function operations(
  repo: RecordRepository,
  tag: string,
  admin: GatewayClient,
  budgetSeconds: number,
  notes: Set<string>,
): Operation[] {
  const limit = PAGE_DEFAULT_LIMIT;
  let created = 0;
  /** The page the use-case asks for, straight to the store through the repository. */
  const directPage = async (useCase: (deps: RecordDeps) => Promise<unknown>): Promise<Outcome> => {
    // The page's filter, size, cursor and sort as the service asks them; its total counted here
    // (the service's list totals are its process's, ADR 0006).
    const [scope, criteria, limit, after, sort] = await pageCallOf(useCase);
    const { ms, value } = await timed(() => repo.page(scope, criteria, limit, after, sort));
    return { ms, total: value.total };
  };
  const list: Operation = {
    name: 'list',
    trial: (run) => ({
      label: 'GET /api/records',
      gateway: () => run.http.expect(200, 'GET', '/api/records'),
      // listRecords: the user's active records, newest first, one page and the total.
      direct: () => directPage((deps) => listRecords(deps, run.user, paging())),
    }),
  };
  const count: Operation = {
    name: 'count',
    trial: (run) => ({
      label: 'GET /api/records?limit=1 (X-Total-Count)',
      // The service has no count alone: a page of one still computes X-Total-Count.
      gateway: () => run.http.expect(200, 'GET', '/api/records?limit=1'),
      direct: async () => {
        // The repository counts a page's total with countDocuments of the list's filter.
        const [scope, criteria] = await pageCallOf((deps) => listRecords(deps, run.user, paging({ limit: 1 })));
        const { ms, value } = await timed(() => repo.model.countDocuments(scopedFilter(scope, criteria)));
        return { ms, total: value };
      },
    }),
  };
  const get: Operation = {
    name: 'get',
    trial: (run, rng) => {
      const id = rng.pick(run.ids);
      return {
        label: `GET /api/records/${id}`,
        gateway: () => run.http.expect(200, 'GET', `/api/records/${id}`),
        direct: async () => {
          // getRecord: read by id alone (an index lookup on every store), scope checked in code.
          const { ms, value } = await timed(() => repo.findById(scopeOf(run.user), new Types.ObjectId(id)));
          const visible = value && !value.deleted;
          if (!visible) throw new Error(`record ${id} not found directly`);
          return { ms };
        },
      };
    },
  };
  const create: Operation = {
    name: 'create',
    trial: (run, rng) => {
      const now = new Date();
      const viaGateway = recordBody(rng, run.agency, `${tag}-${++created}`, now);
      const doc = newRecordDoc(recordInput(recordBody(rng, run.agency, `${tag}-${++created}`, now)), {
        organization: run.agency,
        createdById: run.user.userId,
      });
      let createdId: string | undefined;
      let answeredAt = 0;
      return {
        label: 'POST /api/records',
        gateway: async () => {
          const res = await run.http.expect(201, 'POST', '/api/records', viaGateway);
          answeredAt = performance.now();
          createdId = (JSON.parse(res.text) as { id: string }).id;
          return res;
        },
        // createRecord writes the document (with its event) in one insertOne.
        direct: async () => ({ ms: (await timed(() => repo.insert(scopeOf(run.user), doc))).ms }),
        // The service publishes the event and then removes it from the record's outbox, in the
        // background; that must not run into the next measurement.
        settle: async () => {
          const id = new Types.ObjectId(createdId);
          const deadline = performance.now() + SETTLE_TIMEOUT_MS;
          for (;;) {
            const state = await repo.outboxOf(id);
            if (!state || state.outbox.length === 0) return performance.now() - answeredAt;
            if (performance.now() > deadline) throw new Error(`the outbox of ${createdId} was not cleared in time`);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        },
      };
    },
  };
  const searches = SEARCHES.map(
    (s): Operation => ({
      name: `search ${s.filter}`,
      trial: (run, rng) => {
        const usable = s.usable ? run.samples.filter(s.usable) : run.samples;
        const body = s.body(rng.pick(usable.length ? usable : run.samples), rng);
        const search = RecordSearchSchema.parse(body);
        const scope = scopeOf(run.user);
        const criteria = searchCriteria(search);
        const nameWords = words(search.suspectName);
        return {
          label: `POST /api/records/search ${JSON.stringify(body)}`,
          gateway: () => run.http.expect(200, 'POST', '/api/records/search', body),
          direct: async () => {
            if (nameWords.length === 0) {
              const { ms, value } = await timed(() => repo.page(scope, criteria, limit, undefined, 'createdAt'));
              return { ms, total: value.total };
            }
            // searchRecords by name: the terms near each word in the vocabulary, the candidates
            // holding them, edit distance in code, then the page.
            const { ms, value } = await timed(async () => {
              const near = await nearTerms({ records: repo }, search);
              const candidates = await repo.nameCandidates(scope, searchCriteria(search, near), 'createdAt');
              const matching = candidates.filter((c) =>
                nameMatches(nameWords, c.suspectNameWords, c.suspectNameCompounds),
              );
              await repo.findByIds(
                scope,
                matching.slice(0, limit).map((c) => c._id),
              );
              return matching.length;
            });
            return { ms, total: value };
          },
        };
      },
    }),
  );
  const deletedList: Operation = {
    name: 'deleted list',
    trial: (run) => ({
      label: 'GET /api/records/deleted',
      gateway: () => run.http.expect(200, 'GET', '/api/records/deleted'),
      // listDeletedRecords: the user's deleted records, most recently deleted first.
      direct: () => directPage((deps) => listDeletedRecords(deps, run.user, paging())),
    }),
  };
  const adminList: Operation = {
    name: 'admin list',
    trial: () => ({
      label: 'GET /api/admin/records',
      who: 'ADMIN',
      gateway: () => admin.expect(200, 'GET', '/api/admin/records'),
      // listAllRecords: every organization's active records, newest first.
      direct: () => directPage((deps) => listAllRecords(deps, scopeOf({ organization: 'ADMIN' }), paging())),
    }),
  };
  const walks = new Map<string, Walk>();
  const middlePage: Operation = {
    name: 'keyset page (middle)',
    // Each user follows X-Next-Cursor from the first page to about the middle of their list, in
    // about WALK_PAGES pages (at most PAGE_MAX_LIMIT records each), for at most the budget.
    prepare: async (runs) => {
      for (const run of runs) {
        const started = performance.now();
        const first = await run.http.expect(200, 'GET', '/api/records?limit=1');
        const total = first.total ?? 0;
        const middle = Math.floor(total / 2);
        const pageSize = Math.min(PAGE_MAX_LIMIT, Math.max(1, Math.ceil(middle / WALK_PAGES)));
        let cursor: string | undefined;
        let behind = 0;
        let pages = 0;
        while (behind < middle) {
          const query = new URLSearchParams({ limit: String(pageSize), ...(cursor ? { cursor } : {}) });
          const page = await run.http.expect(200, 'GET', `/api/records?${query}`);
          if (!page.next) break;
          behind += (JSON.parse(page.text) as unknown[]).length;
          cursor = page.next;
          pages++;
          if ((performance.now() - started) / 1000 >= budgetSeconds) break;
        }
        if (!cursor) throw new Error(`${run.agency}'s list (${total} records) has no second page to start from`);
        walks.set(run.agency, { cursor, behind, total, pages, pageSize });
      }
      const depths = runs.map((r) => {
        const w = walks.get(r.agency) as Walk;
        return `${r.agency} after ${w.behind.toLocaleString('en-US')} of ${w.total.toLocaleString('en-US')} (${w.pages} page${w.pages === 1 ? '' : 's'} of ${w.pageSize})`;
      });
      notes.add(
        `keyset page (middle): the cursor was reached by following X-Next-Cursor through the gateway from the first page: ${depths.join('; ')}; each run fetches the default page of ${limit} after it`,
      );
    },
    trial: (run) => {
      const walk = walks.get(run.agency);
      if (!walk) throw new Error(`no walk for ${run.agency}`);
      return {
        label: `GET /api/records?cursor=${walk.cursor}`,
        gateway: () => run.http.expect(200, 'GET', `/api/records?cursor=${encodeURIComponent(walk.cursor)}`),
        // listRecords with the cursor: the repository's page() after it.
        direct: () => directPage((deps) => listRecords(deps, run.user, paging({ cursor: walk.cursor }))),
      };
    },
  };
  return [list, count, get, create, ...searches, deletedList, adminList, middlePage];
}

/** A run slower than this is measured from the first go: warming up is lost in the store's time. */
const WARM_ENOUGH_MS = 1000;

/**
 * Runs one operation again and again, one agency user after another, each time through the
 * gateway and directly (taking turns at going first, so neither always meets a warmer cache):
 * warm-up runs while the operation is fast, then measured runs until `iterations` or the time
 * budget is spent (at least one). A failed run is noted and left out.
 */
async function measure(
  op: Operation,
  runs: AgencyRun[],
  rng: Random,
  options: Pick<BenchOptions, 'iterations' | 'warmup' | 'budgetSeconds'>,
  notes: Set<string>,
  turns: { next: number },
): Promise<OperationResult> {
  const started = performance.now();
  const gateway: number[] = [];
  const direct: number[] = [];
  const settled: number[] = [];
  const totals: number[] = [];
  let warmed = 0;
  let failed = 0;
  for (let i = 0; i < options.warmup + options.iterations && gateway.length < options.iterations; i++) {
    const spent = (performance.now() - started) / 1000;
    if (spent >= options.budgetSeconds && gateway.length + failed > 0) break;
    const turn = turns.next++;
    const run = runs[turn % runs.length] as AgencyRun;
    let trial: Trial | undefined;
    let g: Outcome;
    let d: Outcome;
    let waited = 0;
    try {
      trial = op.trial(run, rng);
      if (turn % 2 === 0) {
        g = await trial.gateway();
        d = await trial.direct();
      } else {
        d = await trial.direct();
        g = await trial.gateway();
      }
      if (trial.settle) {
        waited = await trial.settle();
        settled.push(waited);
      }
    } catch (err) {
      failed++;
      notes.add(
        `${op.name} failed (${trial?.who ?? run.agency}, ${trial?.label ?? 'setting up'}): ${(err as Error).message}`,
      );
      continue;
    }
    const who = trial.who ?? run.agency;
    if (g.total !== d.total) {
      notes.add(`${op.name}: the gateway counted ${g.total}, the store ${d.total} (${who}, ${trial.label})`);
    } else if (g.total === 0 && op.name.startsWith('search')) {
      notes.add(`${op.name} found nothing although its value comes from a record (${who}, ${trial.label})`);
    }
    // A run that is slow (its background work included) is measured: warming up would cost too much.
    if (warmed < options.warmup && Math.max(g.ms, d.ms, waited) < WARM_ENOUGH_MS) {
      warmed++;
      continue;
    }
    gateway.push(g.ms);
    direct.push(d.ms);
    if (g.total !== undefined) totals.push(g.total);
  }
  if (settled.length) {
    const median = latency(settled).p50 / 1000;
    notes.add(
      `create: the service cleared a new record's outbox (event published, entry removed) ${median.toFixed(1)} s after answering (median of ${settled.length}); the bench waited for it, untimed, before the next run`,
    );
  }
  const result = {
    name: op.name,
    gateway: latency(gateway),
    direct: latency(direct),
    seconds: (performance.now() - started) / 1000,
    ...(totals.length ? { found: { min: Math.min(...totals), max: Math.max(...totals) } } : {}),
  };
  return { ...result, ratio: result.gateway.p50 / result.direct.p50 };
}

/** The records service's collection on the system's store, as the service itself opens it. */
async function openRecords(mongoUrl: string): Promise<{ conn: Connection; repo: RecordRepository }> {
  const conn = await connectMongo({ url: mongoUrl, dbName: RecordsConfigSchema.shape.MONGO_DB.parse(undefined) });
  const repo = new RecordRepository(conn);
  await repo.init();
  return { conn, repo };
}

/**
 * Restarts the whole system `count` times (every process stopped, as Ctrl-C of `npm start` does,
 * then started on the same data directory) and times each stop, the start until the gateway is
 * ready (and each of its steps), a user's sign-in (sessions are in Redis, which restarts too) and
 * that user's first GET /api/records; the users take turns. A first list whose total differs from
 * the one before the restarts is a note.
 */
async function measureRestarts(
  bench: BenchSystem,
  runs: AgencyRun[],
  count: number,
  log: (line: string) => void,
  notes: Set<string>,
): Promise<RestartReport> {
  const before = new Map<string, number | undefined>();
  for (const run of runs) before.set(run.agency, (await run.http.expect(200, 'GET', '/api/records?limit=1')).total);
  const restarted = [...bench.system.infra.started, ...SERVICES.map((s) => s.name), 'gateway'];
  const stops: number[] = [];
  const ready: number[] = [];
  const steps = new Map<string, number[]>();
  const signIns: number[] = [];
  const firstLists: number[] = [];
  for (let i = 0; i < count; i++) {
    const run = runs[i % runs.length] as AgencyRun;
    log(`  restart ${i + 1} of ${count}: stopping every process...`);
    const timing = await bench.restart();
    stops.push(timing.stopMs);
    ready.push(timing.readyMs);
    for (const step of timing.steps) steps.set(step.name, [...(steps.get(step.name) ?? []), step.ms]);
    const session = await signIn(bench.base, run.email, run.password);
    signIns.push(session.ms);
    const first = await session.http.expect(200, 'GET', '/api/records');
    firstLists.push(first.ms);
    run.http = session.http;
    if (first.total !== before.get(run.agency)) {
      notes.add(
        `restart ${i + 1}: ${run.agency}'s first list counted ${first.total} records, ${before.get(run.agency)} before the restarts`,
      );
    }
    log(
      `  restart ${i + 1}: stopped in ${(timing.stopMs / 1000).toFixed(1)} s, gateway ready ${(timing.readyMs / 1000).toFixed(1)} s after starting; ${run.agency} signed in in ${session.ms.toFixed(0)} ms, first GET /api/records ${first.ms.toFixed(0)} ms`,
    );
  }
  return {
    count,
    restarted,
    rows: [
      { name: RESTART_ROWS.stop, latency: latency(stops) },
      { name: RESTART_ROWS.ready, latency: latency(ready) },
      ...[...steps].map(([name, samples]) => ({ name: restartStepRow(name), latency: latency(samples) })),
      { name: RESTART_ROWS.signIn, latency: latency(signIns) },
      { name: RESTART_ROWS.firstList, latency: latency(firstLists) },
    ],
  };
}

/** Services may take long to get ready on a large store after a restart. */
const READY_TIMEOUT_MS = 15 * 60_000;

/**
 * The records benchmark: brings the whole system up as `npm start` does (in a throwaway data
 * directory, on a free port), signs in one user per agency and ADMIN, seeds `n` records (a share of
 * them deleted), then runs each operation through the gateway and directly against the store, one
 * request at a time; last, restarts the whole system and times the first requests after each restart.
 */
export async function runRecordsBench(options: BenchOptions): Promise<BenchReport> {
  const { env, log, cleanup } = options;
  const started = performance.now();
  const host = machine();
  const rng = new Random(options.seed);
  const tag = Date.now().toString(36);
  const restarts = options.restarts ?? DEFAULT_RESTARTS;
  const deletedShare = (options.deletedPercent ?? DEFAULT_DELETED_PERCENT) / 100;

  // Every operation runs through the gateway and, as the same query, straight on the store, whose
  // creates are another writer's to the service: the lists' totals, which the service keeps for
  // 10 s and moves with its own changes only (ADR 0006), would lag them. Counted for every page
  // (LIST_TOTAL_TTL_MS=0), a list's total is compared like for like, and its time is the uncached
  // one, an upper bound.
  const bench = await startBenchSystem({
    ...options,
    readyTimeoutMs: READY_TIMEOUT_MS,
    serviceEnv: { records: { LIST_TOTAL_TTL_MS: '0' } },
  });
  const { system, base, guard } = bench;

  return guard(async (): Promise<BenchReport> => {
    let { conn, repo } = await openRecords(system.infra.mongoUrl);
    cleanup.add(() => conn.close());
    if (!conn.db) throw new Error('not connected to the store');
    const store = await describeStore(conn.db, env);
    const existing = await repo.model.estimatedDocumentCount();
    if (existing > 0) {
      throw new Error(
        `the records collection of ${store} already holds ${existing} documents; the benchmark needs an empty one (a scratch server)`,
      );
    }
    log(`Store: ${store}`);

    const users = await signInAgencyUsers(base, tag);
    const admin = await signIn(base, system.admin.email, system.admin.password);
    const runs: AgencyRun[] = users.map((u) => ({ ...u, createdById: u.user.userId, ids: [], samples: [] }));
    if (env.MONGO_URL) {
      // On a server of the user's, take the benchmark's records away again (its users stay).
      const owners = runs.map((r) => new Types.ObjectId(r.user.userId));
      cleanup.add(() => repo.model.collection.deleteMany({ createdById: { $in: owners } }));
    }

    log(`Seeding ${options.n.toLocaleString('en-US')} records (about ${(deletedShare * 100).toFixed(1)}% deleted)...`);
    const seeding = await seedRecords(runs, options.n, rng, log, (docs) => repo.insertMany(docs), { deletedShare });
    const perAgency = Object.fromEntries(runs.map((r) => [r.agency, r.ids.length + (r.deleted?.length ?? 0)]));
    const deletedPerAgency = Object.fromEntries(runs.map((r) => [r.agency, r.deleted?.length ?? 0]));

    log(
      `Measuring: each operation up to ${options.iterations} times or for ${options.budgetSeconds} s, after up to ${options.warmup} warm-up runs while it is fast...`,
    );
    const notes = new Set<string>();
    const results: OperationResult[] = [];
    // Users and the order of the two paths take turns across operations too, so that operations
    // measured once (slow ones) do not all run as the same agency, gateway first.
    const turns = { next: 0 };
    for (const op of operations(repo, tag, admin.http, options.budgetSeconds, notes)) {
      if (op.prepare) {
        const prepared = await timed(async () => {
          try {
            await op.prepare?.(runs);
          } catch (err) {
            notes.add(`${op.name}: could not prepare: ${(err as Error).message}`);
          }
        });
        log(`  ${op.name}: prepared in ${(prepared.ms / 1000).toFixed(1)} s (untimed)`);
      }
      const result = await measure(op, runs, rng, options, notes, turns);
      results.push(result);
      log(
        `  ${op.name}: p50 ${result.gateway.p50.toFixed(1)} ms via gateway, ${result.direct.p50.toFixed(1)} ms direct (${result.gateway.samples} run${result.gateway.samples === 1 ? '' : 's'}, ${result.seconds.toFixed(1)} s)`,
      );
    }

    let restartReport: RestartReport | undefined;
    if (restarts > 0) {
      log(`Restarting the whole system ${restarts} times on its data...`);
      await conn.close(); // its store stops too; reopened on the one started last
      restartReport = await measureRestarts(bench, runs, restarts, log, notes);
      ({ conn, repo } = await openRecords(bench.system.infra.mongoUrl));
    }
    return {
      machine: host,
      n: options.n,
      perAgency,
      deletedPerAgency,
      store,
      seeding,
      iterations: options.iterations,
      warmup: options.warmup,
      budgetSeconds: options.budgetSeconds,
      operations: results,
      ...(restartReport ? { restarts: restartReport } : {}),
      notes: [...notes],
      seconds: (performance.now() - started) / 1000,
      loadAtEnd: os.loadavg()[0] ?? 0,
    };
  });
}
