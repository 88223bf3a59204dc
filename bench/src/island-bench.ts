/**
 * `npm run bench:linking -- --island U` (issue 36): does auto-linking keep up with a small island's
 * names? N − U records of the island's people (island.ts) are written into the stores before the
 * services start; then the three agencies each upload a third of U rows of such people through the
 * public batch upload at once (a tenth of each agency's rows are another agency's seeded suspects
 * under a one-letter typo, so links and possible matches are made as they would be). Meanwhile the
 * run asks the linking service's durable consumer of record events how far it is (JetStream's
 * consumer info, every half second) and keeps asking, as the agencies' users, a NAMLC check and a
 * record's links view. It reports the events the linking service consumed per second, its lag after
 * the last upload's job ended (until every uploaded record's event was consumed), the events the
 * server delivered again, the p95 of both requests during the backlog, and — after a restart of the
 * system on the same data — the linking service's heap per record with all N records loaded.
 */
import { performance } from 'node:perf_hooks';
import { RECORDS_STREAM } from '@nrad/contracts';
import { connectBus } from '@nrad/service-kit';
import { type AgencyUser, type RunContext, signInAgencyUsers, sleep, startBenchSystem } from './harness.ts';
import { Island } from './island.ts';
import { type IndexMemory, indexLoadFrom, matchingQuery, memoryLine } from './linking-bench.ts';
import { cells, type Latency, latency, type Machine, machine, machineLine, table } from './report.ts';
import { NAME_VARIATIONS, Random, recordBody } from './seed.ts';
import { type SeededAgency, type Seeding, seedRecords, unsignedOwners } from './seeding.ts';
import { openServiceStores, type ServiceStores, servicesWriter } from './stores.ts';
import { uploadAndWait, uploadFile } from './upload-file.ts';

export interface IslandBenchOptions extends RunContext {
  /** Records in all at the end: seeded, then uploaded. */
  n: number;
  /** Records uploaded (a third by each agency); the rest are seeded. */
  upload: number;
  seed: number;
  /**
   * How long each wait may take — an upload's job, then catching up — before the run reports what
   * it got (default 30 min each). A test gives less than its own timeout, so that a stuck run still
   * ends, and stops its system, inside the test.
   */
  waitMs?: number;
}

/** One look at the linking service's consumer of record events. */
export interface ConsumerSample {
  /** Since the uploads began (ms). */
  at: number;
  /** The records stream's last sequence number. */
  lastSeq: number;
  /** The consumer's acknowledged floor (stream sequence). */
  ackFloor: number;
  pending: number;
  ackPending: number;
  redelivered: number;
}

export interface IslandReport {
  machine: Machine;
  store: string;
  n: number;
  seeded: number;
  seeding: Seeding;
  /** Rows uploaded per agency, the records the jobs created, the rows naming a seeded suspect. */
  uploaded: { rows: number; created: number; near: number };
  /** From the first upload's POST until the last job ended (ms). */
  uploadMs: number;
  /** The records stream's events from the uploads' start until the linking service had consumed every one. */
  events: number;
  /** Events consumed per second, from the first upload's POST until caught up. */
  eventsPerSecond: number;
  /** From the last job's end until the consumer had acknowledged every event (ms); null if not within the time allowed. */
  lagMs: number | null;
  /** The most events waiting for the linking service at one look. */
  maxBehind: number;
  /** Events the server delivered to the linking service again (the consumer's num_redelivered at the end). */
  redelivered: number;
  /** During the backlog (from the first POST until caught up). */
  check: Latency;
  links: Latency;
  /** Links and possible matches made during the run (the linking store's counts). */
  made: { links: number; possibleMatches: number };
  /** The linking service's heap with all N records loaded (after a restart); null without the log line. */
  memory: IndexMemory | null;
  notes: string[];
  seconds: number;
}

/** How long the linking service may take after the last job before the run stops waiting. */
const CATCH_UP_TIMEOUT_MS = 30 * 60_000;
const JOB_TIMEOUT_MS = 30 * 60_000;
/** Share of each agency's uploaded rows naming another agency's seeded suspect (a one-letter typo). */
const NEAR_SHARE = 0.1;

/** One agency's file: its rows of the island's people, a tenth of them another agency's seeded suspects. */
function agencyFile(
  rng: Random,
  island: Island,
  user: AgencyUser,
  rows: number,
  others: readonly SeededAgency[],
): { file: Uint8Array; near: number } {
  const bodies: Array<Record<string, unknown>> = [];
  let near = 0;
  const now = new Date();
  for (let i = 0; i < rows; i++) {
    const body = recordBody(rng, user.agency, `I${String(i + 1).padStart(6, '0')}`, now);
    const source = rng.chance(NEAR_SHARE) ? rng.pick(rng.pick(others).samples) : undefined;
    if (source) {
      near++;
      Object.assign(body, {
        suspectName: (NAME_VARIATIONS[0] as (typeof NAME_VARIATIONS)[number]).apply(rng, source.suspectName),
        suspectDob: source.suspectDob,
        incidentDate: source.incidentDate,
        caseAmount: source.caseAmount,
      });
    } else {
      Object.assign(body, island.person(rng));
    }
    bodies.push(body);
  }
  return { file: uploadFile(bodies), near };
}

/** The linking service's durable consumer of record events, and the records stream, as they stand. */
export async function consumerSample(
  bus: Awaited<ReturnType<typeof connectBus>>,
  since: number,
): Promise<ConsumerSample> {
  const [stream, info] = await Promise.all([
    bus.jsm.streams.info(RECORDS_STREAM),
    bus.jsm.consumers.info(RECORDS_STREAM, LINKING_CONSUMER),
  ]);
  return {
    at: performance.now() - since,
    lastSeq: stream.state.last_seq,
    ackFloor: info.ack_floor.stream_seq,
    pending: info.num_pending,
    ackPending: info.num_ack_pending,
    redelivered: info.num_redelivered,
  };
}

/** The linking service's consumer of `records.*` (its RECORDS_CONSUMER's default). */
const LINKING_CONSUMER = 'linking';

export async function runIslandBench(options: IslandBenchOptions): Promise<IslandReport> {
  const { env, log, cleanup } = options;
  const started = performance.now();
  const host = machine();
  const rng = new Random(options.seed);
  const island = new Island(new Random(options.seed * 7919 + 1));
  const seeded = options.n - options.upload;
  const notes: string[] = [];
  const { top, topTen } = island.surnameShares();
  log(
    `The island: ${island.surnames.length} surnames (the most common on ${(top * 100).toFixed(1)}% of records, the ten most common on ${(topTen * 100).toFixed(1)}%), ${island.givenNames.length} given names, born 1945–2004`,
  );

  const owners = unsignedOwners();
  let stores: ServiceStores | undefined;
  let seeding: Seeding = { seconds: 0, perSecond: 0 };
  const seed = async (infra: { mongoUrl: string }) => {
    const s = await openServiceStores(infra.mongoUrl, env);
    stores = s;
    cleanup.add(() => s.conn.close());
    log(`Store: ${s.name}`);
    log(`Seeding ${seeded.toLocaleString('en-US')} records of the island's people into the stores...`);
    const writer = servicesWriter(s);
    seeding = await seedRecords(owners, seeded, rng, log, (docs) => writer.write(docs), {
      person: (r) => island.person(r),
    });
    await writer.finish();
  };
  const bench = await startBenchSystem({ ...options, beforeServices: seed, readyTimeoutMs: 30 * 60_000 });
  return bench.guard(async () => {
    const s = stores as ServiceStores;
    const users = await signInAgencyUsers(bench.base, Date.now().toString(36));
    const perAgency = Math.floor(options.upload / users.length);
    const files = users.map((user) => ({
      user,
      ...agencyFile(
        rng,
        island,
        user,
        perAgency,
        owners.filter((o) => o.agency !== user.agency),
      ),
    }));
    const near = files.reduce((sum, f) => sum + f.near, 0);
    log(
      `Files: ${users.length} × ${perAgency.toLocaleString('en-US')} rows, ${near} naming another agency's seeded suspect`,
    );
    const linksBefore = await s.linking.links.countDocuments({});

    const bus = await connectBus({ url: bench.system.infra.natsUrl, name: 'bench-island' });
    const t0 = performance.now();
    const first = await consumerSample(bus, t0);
    const samples: ConsumerSample[] = [first];
    let caughtUp: number | null = null;
    let expectedSeq = Number.POSITIVE_INFINITY;
    let running = true;

    // The consumer's progress every half second.
    const watching = (async () => {
      while (running && caughtUp === null) {
        const sample = await consumerSample(bus, t0);
        samples.push(sample);
        if (sample.ackFloor >= expectedSeq && sample.pending === 0 && sample.ackPending === 0) {
          caughtUp = sample.at;
          return;
        }
        await sleep(500);
      }
    })();

    // A NAMLC check and a links view, turn about, by the agencies' users, until caught up.
    const checks: number[] = [];
    const views: number[] = [];
    const probing = (async () => {
      for (let turn = 0; running && caughtUp === null; turn++) {
        // (A failed request ends the probing with a note; the run goes on.)
        const user = users[turn % users.length] as AgencyUser;
        const other = owners.find((o) => o.agency !== user.agency && o.samples.length > 0);
        const own = owners.find((o) => o.agency === user.agency);
        if (turn % 2 === 0 && other) {
          const { body } = matchingQuery(rng, other, turn);
          const res = await user.http.call('POST', '/api/records/check-namlc-matches', body);
          if (res.status === 200) checks.push(res.ms);
          else notes.push(`a NAMLC check answered ${res.status}: ${res.text.slice(0, 200)}`);
        } else if (own && own.ids.length > 0) {
          const res = await user.http.call('GET', `/api/records/${rng.pick(own.ids)}/links`);
          if (res.status === 200) views.push(res.ms);
          else notes.push(`a links view answered ${res.status}: ${res.text.slice(0, 200)}`);
        }
        await sleep(100);
      }
    })().catch((err: unknown) => {
      notes.push(`probing stopped: ${(err as Error).message}`);
    });

    log('Uploading the three files at once (POST /api/records/batch-upload?async=1)...');
    const uploads = Promise.all(
      files.map(({ user, file }) =>
        uploadAndWait(user, file, {
          name: `island-${user.agency}.xlsx`,
          waitMs: options.waitMs ?? JOB_TIMEOUT_MS,
          onBusy: () => notes.push('a job poll answered 503 (the ingest service busy); asked again'),
        }),
      ),
    );
    const jobs = await uploads.catch(async (err: unknown) => {
      running = false;
      await Promise.allSettled([watching, probing]);
      await bus.nc.close();
      throw err;
    });
    const uploadMs = performance.now() - t0;
    const created = jobs.reduce((sum, j) => sum + (j.result?.successfulRecords ?? 0), 0);
    log(`  jobs done in ${(uploadMs / 1000).toFixed(1)} s: ${created.toLocaleString('en-US')} records created`);
    if (created !== perAgency * users.length)
      notes.push(`the jobs created ${created} of ${perAgency * users.length} rows`);
    // Every created record's event: the stream holds at least that many more (the Linked flags' updates besides).
    expectedSeq = first.lastSeq + created;

    const deadline = performance.now() + (options.waitMs ?? CATCH_UP_TIMEOUT_MS);
    while (caughtUp === null && performance.now() < deadline) {
      const last = samples.at(-1) as ConsumerSample;
      log(
        `  ${((performance.now() - t0) / 1000).toFixed(0)} s: ${(last.lastSeq - last.ackFloor).toLocaleString('en-US')} events behind, ${last.redelivered} redelivered`,
      );
      await sleep(Math.min(10_000, options.waitMs ?? 10_000));
    }
    running = false;
    await Promise.all([watching, probing]);
    await bus.nc.close();
    const end = caughtUp ?? performance.now() - t0;
    const last = samples.at(-1) as ConsumerSample;
    const events = last.ackFloor - first.ackFloor;
    if (caughtUp === null) {
      notes.push(
        `the linking service had not caught up ${(options.waitMs ?? CATCH_UP_TIMEOUT_MS) / 1000} s after the jobs`,
      );
    }
    const made = {
      links: (await s.linking.links.countDocuments({})) - linksBefore,
      possibleMatches: await s.linking.possibleMatches.countDocuments({}),
    };

    log('Restarting the system to read the linking service heap with every record loaded...');
    await bench.restart();
    const memory = indexLoadFrom(bench.system.logsDir)?.memory ?? null;
    return {
      machine: host,
      store: s.name,
      n: options.n,
      seeded,
      seeding,
      uploaded: { rows: perAgency, created, near },
      uploadMs,
      events,
      eventsPerSecond: events / (end / 1000),
      lagMs: caughtUp === null ? null : Math.max(0, caughtUp - uploadMs),
      maxBehind: Math.max(...samples.map((x) => x.lastSeq - x.ackFloor)),
      redelivered: last.redelivered - first.redelivered,
      check: latency(checks),
      links: latency(views),
      made,
      memory,
      notes: [...new Set(notes)],
      seconds: (performance.now() - started) / 1000,
    };
  });
}

/** The report as the terminal shows it. */
export function formatIslandReport(r: IslandReport): string {
  const m = r.machine;
  const seconds = (v: number) => `${(v / 1000).toFixed(1)} s`;
  return [
    machineLine(m),
    `N:       ${r.n.toLocaleString('en-US')} records of a small island's people: ${r.seeded.toLocaleString('en-US')} seeded (${r.seeding.seconds.toFixed(1)} s), then ${r.uploaded.created.toLocaleString('en-US')} uploaded`,
    `Store:   ${r.store}`,
    `Upload:  the three agencies at once, ${r.uploaded.rows.toLocaleString('en-US')} rows each (${r.uploaded.near} naming another agency's seeded suspect); the jobs ended after ${seconds(r.uploadMs)}`,
    '',
    "Auto-linking behind the uploads (the linking service's consumer of record events):",
    `  events consumed:     ${r.events.toLocaleString('en-US')} (${r.eventsPerSecond.toFixed(0)} a second, from the first upload until caught up)`,
    `  most behind:         ${r.maxBehind.toLocaleString('en-US')} events`,
    `  lag after the jobs:  ${r.lagMs === null ? 'not caught up' : seconds(r.lagMs)} (target ≤ 60 s)`,
    `  delivered again:     ${r.redelivered} (target 0)`,
    `  made:                ${r.made.links.toLocaleString('en-US')} links, ${r.made.possibleMatches.toLocaleString('en-US')} possible matches`,
    '',
    'During the backlog, through the gateway (target p95 ≤ 300 ms):',
    ...table(
      ['request', 'runs', 'p50', 'p95', 'p99'],
      [
        ['POST /api/records/check-namlc-matches', String(r.check.samples), ...cells(r.check)],
        ['GET /api/records/{id}/links', String(r.links.samples), ...cells(r.links)],
      ],
    ).map((line) => `  ${line}`),
    '',
    `Memory:  ${r.memory ? memoryLine(r.memory) : "no 'match index loaded' line with memory in the linking log"} (target ≤ 3 KB per record)`,
    `Total run ${(r.seconds / 60).toFixed(1)} min.`,
    ...(r.notes.length ? ['', 'Notes:', ...r.notes.map((n) => `- ${n}`)] : []),
  ].join('\n');
}
