/**
 * Reports with a large history (issue 18): N records seeded into the records collection, the
 * linking service's match index (with links between agencies, one per hundred records) and the
 * stats read model before the services start; the report service's model is a local
 * OpenAI-compatible server that answers at once, so the figures are NRAD's own time, not a model's.
 * Measured: collecting a scope's figures as the worker does (its own client, signed as the user,
 * to the stats and linking services), the breakdown path through the gateway, and the whole
 * `POST /api/generate-report` through the gateway (queue, worker, figures, model, store, answer).
 */
import { performance } from 'node:perf_hooks';
import { AGENCY_CODES, type CaseRecord, GeneratedReportSchema, type UserIdentity } from '@nrad/contracts';
import { loadOrCreateSecrets } from '@nrad/infra';
import { figuresClient } from '@nrad/report-service/figures-client';
import { completion, startModelServer } from '@nrad/report-service/model-server';
import { parseSigner, signGrant } from '@nrad/service-kit';
import { Types } from 'mongoose';
import {
  type AgencyUser,
  type GatewayClient,
  type RunContext,
  signIn,
  signInAgencyUsers,
  startBenchSystem,
} from './harness.ts';
import { formatLatencyReport, type LatencyReport, latency, machine, operationLog } from './report.ts';
import { Random } from './seed.ts';
import { type Seeding, seedRecords, unsignedOwners } from './seeding.ts';
import { openServiceStores, type ServiceStores, servicesWriter } from './stores.ts';

export { Cleanup } from './harness.ts';

export interface ReportBenchOptions extends RunContext {
  n: number;
  iterations: number;
  warmup: number;
  seed: number;
}

export const REPORT_OPERATIONS = [
  'figures collected (agency), as the worker does',
  'figures collected (ADMIN, every agency), as the worker does',
  'GET /api/stats/breakdown (agency)',
  'GET /api/links/summary (agency)',
  'POST /api/generate-report (agency), model answering at once',
  'POST /api/generate-report (ADMIN), model answering at once',
  'GET /api/reports (agency)',
] as const;
type Operation = (typeof REPORT_OPERATIONS)[number];

export interface ReportBenchReport extends LatencyReport {
  links: number;
}

/** Loading 100,000 records (the linking index, the stats states) takes minutes on FerretDB's SQLite backend. */
const READY_TIMEOUT_MS = 15 * 60_000;
/** One link between agencies per this many records. */
const RECORDS_PER_LINK = 100;

/** Links between records of different agencies, as the linking service stores them (published). */
async function seedLinks(s: ServiceStores, byAgency: Map<string, CaseRecord[]>, count: number): Promise<number> {
  const agencies = [...AGENCY_CODES];
  const docs = [];
  for (let i = 0; i < count; i++) {
    const a = agencies[i % 3] as string;
    const b = agencies[(i + 1) % 3] as string;
    const source = byAgency.get(a)?.[Math.floor(i / 3)];
    const linked = byAgency.get(b)?.[Math.floor(i / 3) + 1];
    if (!source || !linked) break;
    const [x, y] = source.id < linked.id ? [source.id, linked.id] : [linked.id, source.id];
    docs.push({
      _id: new Types.ObjectId(),
      pairKey: `${x}:${y}`,
      sourceRecordId: source.id,
      linkedRecordId: linked.id,
      sourceOrganization: a,
      linkedOrganization: b,
      linkType: i % 5 === 0 ? 'manual' : 'auto',
      confidence: 95,
      matchCriteria: { suspectName: true, suspectDob: true, incidentDate: false, caseAmount: false },
      explanation: [],
      createdAt: new Date(),
      createdById: null,
      event: '{}',
      published: true,
    });
  }
  if (docs.length) await s.linking.links.collection.insertMany(docs, { ordered: false });
  return docs.length;
}

export async function runReportBench(options: ReportBenchOptions): Promise<ReportBenchReport> {
  const { log, cleanup } = options;
  const started = performance.now();
  const host = machine();
  const rng = new Random(options.seed);
  const owners = unsignedOwners();
  let seeding: Seeding | undefined;
  let store = '';
  let links = 0;

  const model = await startModelServer(() => ({ body: completion('# Report\n\nWritten at once by the bench model.') }));
  cleanup.add(() => model.close());

  const seedStores = async (infra: { mongoUrl: string }) => {
    const s = await openServiceStores(infra.mongoUrl, options.env);
    cleanup.add(() => s.conn.close());
    store = s.name;
    log(`Store: ${store}`);
    log(
      `Seeding ${options.n.toLocaleString('en-US')} records into records, the linking index and the stats read model...`,
    );
    const writer = servicesWriter(s);
    const byAgency = new Map<string, CaseRecord[]>();
    seeding = await seedRecords(owners, options.n, rng, log, async (docs) => {
      for (const r of await writer.write(docs)) {
        const list = byAgency.get(r.organization) ?? [];
        byAgency.set(r.organization, list);
        list.push(r);
      }
    });
    await writer.finish();
    links = await seedLinks(s, byAgency, Math.floor(options.n / RECORDS_PER_LINK));
    log(`Seeded ${links.toLocaleString('en-US')} links between agencies.`);
  };

  const { system, base, dataDir, guard } = await startBenchSystem({
    ...options,
    env: { ...options.env, OPENAI_MODEL: 'bench-model', OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: '' },
    beforeServices: seedStores,
    readyTimeoutMs: READY_TIMEOUT_MS,
  });
  return guard(async (): Promise<ReportBenchReport> => {
    if (!seeding) throw new Error('the stores were not seeded');
    const users = await signInAgencyUsers(base, Date.now().toString(36));
    const admin = await signIn(base, system.admin.email, system.admin.password);
    const ops = operationLog<Operation>(log);
    const runs = options.warmup + options.iterations;
    const measured = (name: Operation, samples: number[]) => ops.add(name, latency(samples.slice(options.warmup)));
    const user = (turn: number) => users[turn % users.length] as AgencyUser;
    log(`Measuring each operation ${options.iterations} times after ${options.warmup} warm-up runs...`);

    // The worker's own client, signed with the report service's key on the user's behalf with a
    // grant the gateway's key signed, as the gateway gives one with each report asked for.
    const keys = loadOrCreateSecrets(dataDir).identityKeys;
    const client = figuresClient(
      { stats: system.services.stats as string, linking: system.services.linking as string },
      parseSigner('report', keys.report.privateKey),
    );
    const gateway = parseSigner('gateway', keys.gateway.privateKey);
    const collect = async (who: UserIdentity) => {
      const requester = { user: who, grant: await signGrant(who, 'report', gateway) };
      const t0 = performance.now();
      await Promise.all([client.breakdown(requester), client.links(requester)]);
      return performance.now() - t0;
    };
    for (const [name, who] of [
      ['figures collected (agency), as the worker does', (turn: number) => user(turn).user],
      ['figures collected (ADMIN, every agency), as the worker does', () => admin.user],
    ] as const) {
      const samples: number[] = [];
      for (let turn = 0; turn < runs; turn++) samples.push(await collect(who(turn)));
      measured(name, samples);
    }

    const read = async (who: GatewayClient, path: string) => (await who.expect(200, 'GET', path)).ms;
    for (const [name, path] of [
      ['GET /api/stats/breakdown (agency)', '/api/stats/breakdown'],
      ['GET /api/links/summary (agency)', '/api/links/summary'],
    ] as const) {
      const samples: number[] = [];
      for (let turn = 0; turn < runs; turn++) samples.push(await read(user(turn).http, path));
      measured(name, samples);
    }

    const generate = async (who: GatewayClient) => {
      const answer = await who.expect(200, 'POST', '/api/generate-report', { parameters: 'Benchmark run' });
      const report = GeneratedReportSchema.parse(JSON.parse(answer.text));
      if (report.model !== 'bench-model') throw new Error(`the report was written by ${report.model}`);
      return answer.ms;
    };
    for (const [name, who] of [
      ['POST /api/generate-report (agency), model answering at once', (turn: number) => user(turn).http],
      ['POST /api/generate-report (ADMIN), model answering at once', () => admin.http],
    ] as const) {
      const samples: number[] = [];
      for (let turn = 0; turn < runs; turn++) samples.push(await generate(who(turn)));
      measured(name, samples);
    }
    const listed: number[] = [];
    for (let turn = 0; turn < runs; turn++) listed.push(await read(user(turn).http, '/api/reports'));
    measured('GET /api/reports (agency)', listed);

    return {
      machine: host,
      n: options.n,
      perAgency: Object.fromEntries(owners.map((o) => [o.agency, o.ids.length])),
      store,
      seeding,
      iterations: options.iterations,
      warmup: options.warmup,
      operations: ops.operations,
      notes: [`The model server received ${model.received.length} requests.`],
      seconds: (performance.now() - started) / 1000,
      loadAtEnd: machine().load,
      links,
    };
  });
}

export function formatReportBench(r: ReportBenchReport): string {
  return formatLatencyReport(
    r,
    ` (records, linking index with ${r.links.toLocaleString('en-US')} links, stats read model, before the services started)`,
    [
      `Runs:    ${r.iterations} measured per row after ${r.warmup} warm-up runs, one at a time; the agency rows`,
      '         take BPS, FIA and CUS in turn. "Figures collected" is the worker\'s own client (stats breakdown',
      '         and links summary in parallel, signed as the user); the rest go through the gateway. The model',
      '         is a local OpenAI-compatible server answering at once (the real SDK, real HTTP).',
    ],
    'operation',
  );
}
