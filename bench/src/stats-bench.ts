/**
 * The statistics with a large history (issue 7): N records seeded into the records collection and
 * the stats service's read model before the services start (so the service loads them as after a
 * restart), then, through the gateway, the latency of each stats path and the time from a record
 * change (create, edit, delete) being sent to the changed figure being readable.
 */
import { performance } from 'node:perf_hooks';
import type { DashboardStats } from '@nrad/contracts';
import { RecordsConfigSchema } from '@nrad/records-service/config';
import { presentRecord, RecordRepository } from '@nrad/records-service/storage';
import { connectMongo } from '@nrad/service-kit';
import { StatsStore, stateOf } from '@nrad/stats-service/bench-support';
import { StatsConfigSchema } from '@nrad/stats-service/config';
import { Types } from 'mongoose';
import {
  type AgencyUser,
  describeStore,
  GatewayClient,
  type RunContext,
  signInAgencyUsers,
  sleep,
  startBenchSystem,
} from './harness.ts';
import { formatLatencyReport, type LatencyReport, latency, machine, operationLog } from './report.ts';
import { Random, recordBody } from './seed.ts';
import { type Seeding, seedRecords, unsignedOwners } from './seeding.ts';

export { Cleanup } from './harness.ts';

export interface StatsBenchOptions extends RunContext {
  n: number;
  iterations: number;
  warmup: number;
  seed: number;
}

export const STATS_OPERATIONS = [
  'GET /api/stats (agency)',
  'GET /api/stats/countries (agency)',
  'GET /api/admin/stats (ADMIN)',
  'create sent → totalRecords readable',
  'edit sent → internationalCases readable',
  'delete sent → totalRecords readable',
] as const;

export type StatsReport = LatencyReport;

/** How long a change may take to show before the run calls it a failure. */
const READABLE_TIMEOUT_MS = 60_000;
/** Loading 100,000 states (and the linking index) takes minutes on FerretDB's SQLite backend. */
const READY_TIMEOUT_MS = 15 * 60_000;

export async function runStatsBench(options: StatsBenchOptions): Promise<StatsReport> {
  const { log, cleanup } = options;
  const started = performance.now();
  const host = machine();
  const rng = new Random(options.seed);
  const tag = Date.now().toString(36);
  const owners = unsignedOwners();
  let seeding: Seeding | undefined;
  let store = '';

  const seedStores = async (infra: { mongoUrl: string }) => {
    const conn = await connectMongo({
      url: infra.mongoUrl,
      dbName: RecordsConfigSchema.shape.MONGO_DB.parse(undefined),
    });
    cleanup.add(() => conn.close());
    const records = new RecordRepository(conn);
    const stats = new StatsStore(conn.useDb(StatsConfigSchema.shape.MONGO_DB.parse(undefined), { useCache: true }));
    await Promise.all([records.init(), stats.init()]);
    if (!conn.db) throw new Error('not connected to the store');
    store = await describeStore(conn.db, options.env);
    const taken = (await records.model.estimatedDocumentCount()) + (await stats.states.estimatedDocumentCount());
    if (taken > 0) throw new Error(`${store} already holds records or states; the benchmark needs a scratch server`);
    if (options.env.MONGO_URL) {
      const ids = owners.map((o) => new Types.ObjectId(o.createdById));
      cleanup.add(() => records.model.collection.deleteMany({ createdById: { $in: ids } }));
      cleanup.add(() => stats.states.collection.drop().catch(() => undefined));
    }
    log(`Store: ${store}`);
    log(`Seeding ${options.n.toLocaleString('en-US')} records into the records collection and the stats read model...`);
    const states: Array<[string, ReturnType<typeof stateOf>]> = [];
    seeding = await seedRecords(owners, options.n, rng, log, async (docs) => {
      for (const d of docs) states.push([d._id.toHexString(), stateOf(presentRecord(d))]);
      await records.insertMany(docs);
    });
    await stats.replaceAll(states);
  };

  const { system, base, guard } = await startBenchSystem({
    ...options,
    beforeServices: seedStores,
    readyTimeoutMs: READY_TIMEOUT_MS,
  });
  return guard(async (): Promise<StatsReport> => {
    if (!seeding) throw new Error('the stores were not seeded');
    const users = await signInAgencyUsers(base, tag);
    const admin = new GatewayClient(base);
    await admin.expect(200, 'POST', '/api/auth/login', { email: system.admin.email, password: system.admin.password });
    const notes: string[] = [];
    const ops = operationLog<(typeof STATS_OPERATIONS)[number]>(log);
    const { operations } = ops;
    const runs = options.warmup + options.iterations;
    /** The measured runs' latency (the warm-up ones left out). */
    const measured = (name: (typeof STATS_OPERATIONS)[number], samples: Array<number | undefined>) =>
      ops.add(name, latency(samples.slice(options.warmup).filter((v) => v !== undefined)));
    log(`Measuring each path ${options.iterations} times after ${options.warmup} warm-up runs...`);

    const read = async (who: GatewayClient, path: string) => (await who.expect(200, 'GET', path)).ms;
    const user = (turn: number) => users[turn % users.length] as AgencyUser;
    for (const [name, who, path] of [
      ['GET /api/stats (agency)', user, '/api/stats'],
      ['GET /api/stats/countries (agency)', user, '/api/stats/countries'],
      ['GET /api/admin/stats (ADMIN)', () => ({ http: admin }), '/api/admin/stats'],
    ] as const) {
      const samples: number[] = [];
      for (let turn = 0; turn < runs; turn++) samples.push(await read(who(turn).http, path));
      measured(name, samples);
    }

    const statsOf = async (who: GatewayClient) =>
      JSON.parse((await who.expect(200, 'GET', '/api/stats')).text) as DashboardStats;
    /**
     * From just before `change` is sent until `isReadable` holds for the caller's figures; a change
     * the system refuses is a note of the run (and no sample), not its end.
     */
    const untilReadable = async (
      who: GatewayClient,
      what: string,
      change: () => Promise<unknown>,
      isReadable: (s: DashboardStats) => boolean,
    ): Promise<number | undefined> => {
      const sent = performance.now();
      try {
        await change();
      } catch (error) {
        notes.push(`${what} was refused: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      }
      for (;;) {
        if (isReadable(await statsOf(who))) return performance.now() - sent;
        if (performance.now() - sent > READABLE_TIMEOUT_MS)
          throw new Error('a change was not readable within a minute');
        await sleep(5);
      }
    };

    const created: Array<{ who: GatewayClient; id: string; body: Record<string, unknown> }> = [];
    const creates: Array<number | undefined> = [];
    for (let turn = 0; turn < runs; turn++) {
      const who = user(turn).http;
      const before = await statsOf(who);
      const body = {
        ...recordBody(rng, user(turn).agency, `${tag}-${turn}`, new Date()),
        internationalNexus: false,
        country: 'Bermuda',
      };
      creates.push(
        await untilReadable(
          who,
          `create ${turn + 1}`,
          async () => {
            const answer = await who.expect(201, 'POST', '/api/records', body);
            created.push({ who, id: (JSON.parse(answer.text) as { id: string }).id, body });
          },
          (s) => s.totalRecords === before.totalRecords + 1,
        ),
      );
    }
    measured('create sent → totalRecords readable', creates);

    const edits: Array<number | undefined> = [];
    for (const [turn, c] of created.entries()) {
      const before = await statsOf(c.who);
      const current = JSON.parse((await c.who.expect(200, 'GET', `/api/records/${c.id}`)).text) as { version: number };
      edits.push(
        await untilReadable(
          c.who,
          `edit ${turn + 1}`,
          () =>
            c.who.expect(200, 'PUT', `/api/records/${c.id}`, {
              ...c.body,
              internationalNexus: true,
              country: turn % 2 ? 'Jamaica' : 'Canada',
              version: current.version,
            }),
          (s) => s.internationalCases === before.internationalCases + 1,
        ),
      );
    }
    measured('edit sent → internationalCases readable', edits);

    const deletes: Array<number | undefined> = [];
    for (const [turn, c] of created.entries()) {
      const before = await statsOf(c.who);
      deletes.push(
        await untilReadable(
          c.who,
          `delete ${turn + 1}`,
          () => c.who.expect(200, 'DELETE', `/api/records/${c.id}`),
          (s) => s.totalRecords === before.totalRecords - 1,
        ),
      );
    }
    measured('delete sent → totalRecords readable', deletes);

    return {
      machine: host,
      n: options.n,
      perAgency: Object.fromEntries(owners.map((o) => [o.agency, o.ids.length])),
      store,
      seeding,
      iterations: options.iterations,
      warmup: options.warmup,
      operations,
      notes,
      seconds: (performance.now() - started) / 1000,
      loadAtEnd: machine().load,
    };
  });
}

export function formatStatsReport(r: StatsReport): string {
  return formatLatencyReport(
    r,
    ' (records collection and stats read model, before the services started)',
    [
      `Runs:    ${r.iterations} measured per row after ${r.warmup} warm-up runs, one at a time, through the gateway;`,
      '         a change is timed from sending it until GET /api/stats shows it (polled every 5 ms)',
    ],
    'operation',
  );
}
