import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { centsToMoney, moneyToCents, PAGE_DEFAULT_LIMIT, RecordSearchSchema } from '@nrad/contracts';
import { RecordsConfigSchema } from '@nrad/records-service/config';
import { scopeOf, searchFilter } from '@nrad/records-service/queries';
import { newRecordDoc, type RecordDoc, RecordRepository } from '@nrad/records-service/storage';
import { nameMatches, words } from '@nrad/records-service/text';
import { connectMongo } from '@nrad/service-kit';
import { type mongo, Types } from 'mongoose';
import {
  type AgencyUser,
  describeStore,
  type RunContext,
  signInAgencyUsers,
  startBenchSystem,
  timed,
} from './harness.ts';
import { type BenchReport, latency, machine, type OperationResult } from './report.ts';
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
}

/** The operations of the report, in its order. */
export const OPERATION_NAMES = [
  'list',
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
] as const;

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
  trial(run: AgencyRun, rng: Random): Trial;
}

/** The operations, each as the service runs it and as the same query made directly. */
function operations(repo: RecordRepository, tag: string): Operation[] {
  const limit = PAGE_DEFAULT_LIMIT;
  let created = 0;
  const list: Operation = {
    name: 'list',
    trial: (run) => ({
      label: 'GET /api/records',
      gateway: () => run.http.expect(200, 'GET', '/api/records'),
      direct: async () => {
        // listRecords: the user's active records, newest first, one page and the total.
        const filter = { deleted: false, ...scopeOf(run.user) };
        const { ms, value } = await timed(() => repo.page(filter, limit, undefined, 'createdAt'));
        return { ms, total: value.total };
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
          const { ms, value } = await timed(() => repo.findById(new Types.ObjectId(id)));
          const visible = value && !value.deleted && value.organization === run.user.organization;
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
        direct: async () => ({ ms: (await timed(() => repo.insert(doc))).ms }),
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
        const filter = searchFilter(run.user, search);
        const nameWords = words(search.suspectName);
        return {
          label: `POST /api/records/search ${JSON.stringify(body)}`,
          gateway: () => run.http.expect(200, 'POST', '/api/records/search', body),
          direct: async () => {
            if (nameWords.length === 0) {
              const { ms, value } = await timed(() => repo.page(filter, limit, undefined, 'createdAt'));
              return { ms, total: value.total };
            }
            // searchRecords by name: candidates by stored variants, edit distance in code, then the page.
            const { ms, value } = await timed(async () => {
              const candidates = await repo.nameCandidates(filter, 'createdAt');
              const matching = candidates.filter((c) => nameMatches(nameWords, c.suspectNameWords));
              await repo.findByIds(matching.slice(0, limit).map((c) => c._id));
              return matching.length;
            });
            return { ms, total: value };
          },
        };
      },
    }),
  );
  return [list, get, create, ...searches];
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
  let warmed = 0;
  let failed = 0;
  for (let i = 0; i < options.warmup + options.iterations && gateway.length < options.iterations; i++) {
    const spent = (performance.now() - started) / 1000;
    if (spent >= options.budgetSeconds && gateway.length + failed > 0) break;
    const turn = turns.next++;
    const run = runs[turn % runs.length] as AgencyRun;
    const trial = op.trial(run, rng);
    let g: Outcome;
    let d: Outcome;
    let waited = 0;
    try {
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
      notes.add(`${op.name} failed (${run.agency}, ${trial.label}): ${(err as Error).message}`);
      continue;
    }
    if (g.total !== d.total) {
      notes.add(`${op.name}: the gateway counted ${g.total}, the store ${d.total} (${run.agency}, ${trial.label})`);
    } else if (g.total === 0 && op.name.startsWith('search')) {
      notes.add(`${op.name} found nothing although its value comes from a record (${run.agency}, ${trial.label})`);
    }
    // A run that is slow (its background work included) is measured: warming up would cost too much.
    if (warmed < options.warmup && Math.max(g.ms, d.ms, waited) < WARM_ENOUGH_MS) {
      warmed++;
      continue;
    }
    gateway.push(g.ms);
    direct.push(d.ms);
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
  };
  return { ...result, ratio: result.gateway.p50 / result.direct.p50 };
}

/**
 * The records benchmark: brings the whole system up as `npm start` does (in a throwaway data
 * directory, on a free port), signs in one user per agency, seeds `n` records, then runs each
 * operation through the gateway and directly against the store, one request at a time.
 */
export async function runRecordsBench(options: BenchOptions): Promise<BenchReport> {
  const { env, log, cleanup } = options;
  const started = performance.now();
  const host = machine();
  const rng = new Random(options.seed);
  const tag = Date.now().toString(36);

  const { system, base, guard } = await startBenchSystem(options);

  return guard(async (): Promise<BenchReport> => {
    const conn = await connectMongo({
      url: system.infra.mongoUrl,
      dbName: RecordsConfigSchema.shape.MONGO_DB.parse(undefined),
    });
    cleanup.add(() => conn.close());
    const repo = new RecordRepository(conn);
    await repo.init();
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
    const runs: AgencyRun[] = users.map((u) => ({ ...u, createdById: u.user.userId, ids: [], samples: [] }));
    if (env.MONGO_URL) {
      // On a server of the user's, take the benchmark's records away again (its users stay).
      const owners = runs.map((r) => new Types.ObjectId(r.user.userId));
      cleanup.add(() => repo.model.collection.deleteMany({ createdById: { $in: owners } }));
    }

    log(`Seeding ${options.n.toLocaleString('en-US')} records...`);
    const collection = repo.model.collection as unknown as mongo.Collection<RecordDoc>;
    const seeding = await seedRecords(runs, options.n, rng, log, (docs) =>
      collection.insertMany(docs, { ordered: false }),
    );
    const perAgency = Object.fromEntries(runs.map((r) => [r.agency, r.ids.length]));

    log(
      `Measuring: each operation up to ${options.iterations} times or for ${options.budgetSeconds} s, after up to ${options.warmup} warm-up runs while it is fast...`,
    );
    const notes = new Set<string>();
    const results: OperationResult[] = [];
    // Users and the order of the two paths take turns across operations too, so that operations
    // measured once (slow ones) do not all run as the same agency, gateway first.
    const turns = { next: 0 };
    for (const op of operations(repo, tag)) {
      const result = await measure(op, runs, rng, options, notes, turns);
      results.push(result);
      log(
        `  ${op.name}: p50 ${result.gateway.p50.toFixed(1)} ms via gateway, ${result.direct.p50.toFixed(1)} ms direct (${result.gateway.samples} run${result.gateway.samples === 1 ? '' : 's'}, ${result.seconds.toFixed(1)} s)`,
      );
    }
    return {
      machine: host,
      n: options.n,
      perAgency,
      store,
      seeding,
      iterations: options.iterations,
      warmup: options.warmup,
      budgetSeconds: options.budgetSeconds,
      operations: results,
      notes: [...notes],
      seconds: (performance.now() - started) / 1000,
      loadAtEnd: os.loadavg()[0] ?? 0,
    };
  });
}
