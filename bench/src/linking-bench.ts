import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  type Agency,
  type CheckMatches,
  IDENTITY_HEADER,
  type MatchCandidate,
  NAMLC_AGENCY,
  type NamlcOrganization,
  type RecordLinkView,
} from '@nrad/contracts';
import { loadOrCreateSecrets } from '@nrad/infra';
import { presentRecord, type RecordDoc } from '@nrad/records-service/storage';
import { parseSigner, signIdentity } from '@nrad/service-kit';
import { Types } from 'mongoose';
import {
  type AgencyUser,
  GatewayClient,
  type RunContext,
  signInAgencyUsers,
  sleep,
  startBenchSystem,
} from './harness.ts';
import {
  cells,
  comparisonRow,
  type Latency,
  latency,
  type Machine,
  machine,
  ms,
  reportFoot,
  reportHead,
  table,
} from './report.ts';
import { NAME_VARIATIONS, Random, recordBody, unknownName } from './seed.ts';
import { type SeededAgency, type Seeding, seedRecords, unsignedOwners } from './seeding.ts';
import { openServiceStores, type ServiceStores } from './stores.ts';

export interface LinkingBenchOptions extends RunContext {
  /** Records to seed (into the records collection and the match index), spread over BPS, FIA and CUS. */
  n: number;
  /** Measured runs of each measurement. */
  iterations: number;
  /** Uncounted runs of each measurement first. */
  warmup: number;
  /** PRNG seed: the same seed gives the same records and the same queries. */
  seed: number;
}

/** What the linking service logged when it had loaded its index at start. */
/** The linking service's heap once its index was loaded (its log line's `memory`). */
export interface IndexMemory {
  /** Whether a full collection ran first (the service runs with --expose-gc). */
  collected: boolean;
  heapUsedMiB: number;
  rssMiB: number;
  heapBytesPerRecord: number | null;
}

export interface IndexLoad {
  records: number;
  links: number;
  ms: number;
  /** Null when the line has none (a service from before issue 36). */
  memory: IndexMemory | null;
  /** Its estimate of r and the weights that followed (the line's `matchRate`); null when absent. */
  estimate: StartEstimate | null;
}

/** The linking service's estimate at start (its domain/match-rate.ts, as `matchRateLog` logs it). */
export interface StartEstimate {
  matchesPerRecord: number;
  /** The prior of a full search, in bits. */
  priorBits: number;
  /** The whole estimate, milliseconds. */
  ms: number;
  weights: {
    /** 'estimated' (EM on the index) or 'fixed'. */
    inUse: string;
    /** The key weights in use, in bits. */
    name: Record<string, number>;
    dob: Record<string, number>;
    /** Why the fixed weights stayed, if they did. */
    fixedBecause?: string;
    /** Estimating the weights, milliseconds (part of `ms`). */
    ms: number;
  };
}

export interface CheckResult {
  name: string;
  gateway: Latency;
  /** The same request straight to the linking service's port, with an identity token of its own. */
  direct: Latency;
  /** gateway p50 / direct p50. */
  ratio: number;
  /** Fewest and most matches a query of this kind answered. */
  matches: { min: number; max: number };
}

export interface LinkingReport {
  machine: Machine;
  n: number;
  perAgency: Record<string, number>;
  store: string;
  seeding: Seeding;
  iterations: number;
  warmup: number;
  /** From the linking service's log ('match index loaded'); null when it logged none (LOG_LEVEL). */
  indexLoad: IndexLoad | null;
  /** From spawning the linking service to its /readyz answering (the index load included). */
  linkingReadyMs: number | null;
  create: {
    /** Measured creates that produced their link. */
    linked: number;
    failures: number;
    /** POST /api/records through the gateway. */
    post: Latency;
    /** From the POST's answer to the first GET …/links that lists the link. */
    answeredToLink: Latency;
    /** From sending the POST to that GET's answer. */
    sentToLink: Latency;
    /** Links each create got in all (the seeded record's and any other match). */
    links: { min: number; max: number; total: number };
    /** Median wait, untimed, for the background work a create leaves (outbox, Linked flags). */
    settleMs: number;
  };
  checks: CheckResult[];
  notes: string[];
  seconds: number;
  loadAtEnd: number;
}

/** The measurements of check-namlc-matches, in the report's order. */
export const CHECK_NAMES = ['check-namlc-matches, matching', 'check-namlc-matches, no match'] as const;

/** How often the new record's links are asked for. */
const POLL_MS = 10;
/** How long a create may take to get its link before it counts as failed. */
const LINK_TIMEOUT_MS = 60_000;
/** How long the background work of a create may take (on unpatched FerretDB each step scans the collection). */
const SETTLE_TIMEOUT_MS = 10 * 60_000;
const DAY_MS = 86_400_000;
/** How long a service may take to get ready after seeding. */
const READY_TIMEOUT_MS = 15 * 60_000;

const NAMLC_NAME = Object.fromEntries(
  Object.entries(NAMLC_AGENCY).map(([name, agency]) => [agency, name as NamlcOrganization]),
) as Record<Agency, NamlcOrganization>;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The JSON lines of the linking service's log (`linking.log` in the system's logs) that mention
 * `key`, parsed, in order; none when there is no log.
 */
export function linkingLogEntries(logsDir: string, key: string): Array<Record<string, unknown>> {
  let text: string;
  try {
    text = readFileSync(path.join(logsDir, 'linking.log'), 'utf8');
  } catch {
    return [];
  }
  const entries: Array<Record<string, unknown>> = [];
  for (const line of text.split('\n')) {
    if (!line.includes(key)) continue;
    try {
      entries.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // not a JSON line
    }
  }
  return entries;
}

/** The last 'match index loaded' line of the linking service's log. */
export function indexLoadFrom(logsDir: string): IndexLoad | null {
  let found: IndexLoad | null = null;
  for (const line of linkingLogEntries(logsDir, 'match index loaded')) {
    const entry = line as {
      msg?: string;
      records?: number;
      links?: number;
      ms?: number;
      matchRate?: Partial<StartEstimate>;
      memory?: IndexMemory;
    };
    if (entry.msg === 'match index loaded' && typeof entry.ms === 'number') {
      const records = entry.records ?? Number.NaN;
      const estimate = entry.matchRate?.weights ? (entry.matchRate as StartEstimate) : null;
      found = { records, links: entry.links ?? Number.NaN, ms: entry.ms, estimate, memory: entry.memory ?? null };
    }
  }
  return found;
}

interface CreateOutcome {
  postMs: number;
  answeredToLink: number;
  sentToLink: number;
  links: number;
  settleMs: number;
}

/**
 * One create: a record of `user`'s agency with the suspect of the seeded record `seeded` (another
 * agency's) under a name variation, same date of birth, the incident a day or two apart, the same
 * amount; then its links are asked for every 10 ms until the link to `seeded` is there. Then,
 * untimed, waits for the background work it left: its outbox published, and the Linked flags of
 * both records set (on unpatched FerretDB each is a scan of the records collection).
 */
async function createAndWait(
  stores: ServiceStores,
  user: AgencyUser,
  seeded: SeededAgency['samples'][number],
  name: string,
  seq: string,
  rng: Random,
  created: string[],
): Promise<CreateOutcome> {
  const incidentMs = Date.parse(`${seeded.incidentDate}T00:00:00Z`) - rng.int(0, 2) * DAY_MS;
  const body = {
    ...recordBody(rng, user.agency, seq, new Date()),
    suspectName: name,
    suspectDob: seeded.suspectDob,
    incidentDate: day(incidentMs),
    caseAmount: seeded.caseAmount,
  };
  const sent = performance.now();
  const post = await user.http.expect(201, 'POST', '/api/records', body);
  const answered = performance.now();
  const id = (JSON.parse(post.text) as { id: string }).id;
  created.push(id);
  const linksPath = `/api/records/${id}/links`;
  let last = '';
  for (;;) {
    // A record made moments ago may be answered 404 after a short wait while its event is on its way.
    const res = await user.http.call('GET', linksPath);
    const readable = performance.now();
    if (res.status === 200) {
      const views = JSON.parse(res.text) as RecordLinkView[];
      if (views.some((v) => v.linkedRecordId === seeded.id)) {
        const settle = await settleCreate(stores, user, id, linksPath);
        return {
          postMs: post.ms,
          answeredToLink: readable - answered,
          sentToLink: readable - sent,
          links: settle.links,
          settleMs: performance.now() - readable,
        };
      }
      last = `${views.length} link${views.length === 1 ? '' : 's'}, none to it`;
    } else if (res.status === 404) {
      last = '404';
    } else {
      throw new Error(`GET ${linksPath} answered ${res.status}: ${res.text.slice(0, 300)}`);
    }
    if (readable - answered > LINK_TIMEOUT_MS) {
      throw new Error(`no link to ${seeded.id} within ${LINK_TIMEOUT_MS / 1000} s (last answer: ${last})`);
    }
    await sleep(POLL_MS);
  }
}

async function settleCreate(
  stores: ServiceStores,
  user: AgencyUser,
  id: string,
  linksPath: string,
): Promise<{ links: number }> {
  const deadline = performance.now() + SETTLE_TIMEOUT_MS;
  // One record at a time by `_id` alone: on FerretDB any other filter (even `$in` of two ids) is
  // applied after reading and decoding the whole collection.
  const waitFor = async (what: string, recordId: string, done: (doc: RecordDoc) => boolean) => {
    const filter = { _id: new Types.ObjectId(recordId) };
    for (;;) {
      const doc = await stores.raw.findOne(filter, { projection: { outbox: 1, linkedOrganizations: 1 } });
      if (doc && done(doc)) return;
      if (performance.now() > deadline) throw new Error(`${what} of ${recordId} not done in time`);
      await sleep(100);
    }
  };
  // The record's event is out once its outbox is empty; auto-linking has stored all its links by then.
  await waitFor('the outbox', id, (d) => d.outbox.length === 0);
  const views = JSON.parse((await user.http.expect(200, 'GET', linksPath)).text) as RecordLinkView[];
  const wanted = views.map((v) => v.linkedOrganization);
  await waitFor('the Linked flag', id, (d) => wanted.every((o) => d.linkedOrganizations.includes(o)));
  for (const v of views) {
    await waitFor('the Linked flag', v.linkedRecordId, (d) => d.linkedOrganizations.includes(user.agency));
  }
  return { links: views.length };
}

/** One check query: its body and what it must find (a seeded record's id, or nothing). */
interface CheckQuery {
  body: CheckMatches;
  expect: string | null;
}

export function matchingQuery(rng: Random, seeded: SeededAgency, turn: number): CheckQuery {
  const s = rng.pick(seeded.samples);
  const variation = NAME_VARIATIONS[turn % NAME_VARIATIONS.length] as (typeof NAME_VARIATIONS)[number];
  return {
    body: {
      namlcOrganization: NAMLC_NAME[seeded.agency],
      suspectName: variation.apply(rng, s.suspectName),
      suspectDob: s.suspectDob,
      incidentDate: s.incidentDate,
      caseAmount: s.caseAmount,
    },
    expect: s.id,
  };
}

function unmatchedQuery(rng: Random, agency: Agency): CheckQuery {
  return {
    body: {
      namlcOrganization: NAMLC_NAME[agency],
      suspectName: unknownName(rng),
      suspectDob: day(Date.UTC(1940, 0, 1) + rng.int(0, 65 * 365) * DAY_MS),
      incidentDate: day(Date.now() - rng.int(1, 3 * 365) * DAY_MS),
      caseAmount: (rng.int(5000, 500_000_000) / 100).toFixed(2),
    },
    expect: null,
  };
}

/**
 * The linking benchmark: brings the whole system up as `npm start` does, with `n` records seeded
 * into the records collection and the linking service's match index before the services start (so
 * the linking service loads them as it would after a restart), signs in one user per agency, then
 * measures, one request at a time, how soon a new record's link to a seeded record of another
 * agency can be read, and check-namlc-matches through the gateway and straight to the service.
 */
export async function runLinkingBench(options: LinkingBenchOptions): Promise<LinkingReport> {
  const { env, cleanup } = options;
  const started = performance.now();
  const host = machine();
  const rng = new Random(options.seed);
  const tag = Date.now().toString(36);
  // From the linking service's spawn to its first /readyz 200 (its match index loaded).
  let linkingReadyMs: number | null = null;
  const { log } = options;

  let stores: ServiceStores | undefined;
  let seeding: Seeding | undefined;
  // The seeded records' creators: one officer per agency, who never signs in.
  const owners = unsignedOwners();
  const createdIds: string[] = [];
  const creators = owners.map((o) => o.createdById);

  const seedStores = async (infra: { mongoUrl: string }) => {
    const s = await openServiceStores(infra.mongoUrl, env);
    stores = s;
    cleanup.add(() => s.conn.close());
    if (env.MONGO_URL) {
      // On a server of the user's, take the benchmark's records, entries and links away again.
      cleanup.add(async () => {
        const ids = creators.map((c) => new Types.ObjectId(c));
        await s.raw.deleteMany({ createdById: { $in: ids } });
        await s.linking.index.collection.deleteMany({ 'record.createdById': { $in: creators } });
        await s.linking.links.collection.deleteMany({ sourceRecordId: { $in: createdIds } });
      });
    }
    log(`Store: ${s.name}`);
    log(`Seeding ${options.n.toLocaleString('en-US')} records into the records collection and the match index...`);
    seeding = await seedRecords(owners, options.n, rng, log, async (docs) => {
      await Promise.all([s.records.insertMany(docs), s.linking.insertEntries(docs.map((d) => presentRecord(d)))]);
    });
  };

  // The linking service reads its whole index before it answers /readyz (over a minute for 100,000
  // records on FerretDB's SQLite backend), longer than startSystem waits by default.
  const { system, base, dataDir, guard } = await startBenchSystem({
    ...options,
    log,
    beforeServices: seedStores,
    readyTimeoutMs: READY_TIMEOUT_MS,
    onReady: (part, ms) => {
      if (part === 'linking') linkingReadyMs = ms;
    },
  });
  return guard(async (): Promise<LinkingReport> => {
    if (!stores || !seeding) throw new Error('the stores were not seeded');
    const s = stores;
    const linkingUrl = system.services.linking;
    if (!linkingUrl) throw new Error('the linking service is not part of the system');
    const gatewaySigner = parseSigner('gateway', loadOrCreateSecrets(dataDir).identityKeys.gateway.privateKey);
    const indexLoad = indexLoadFrom(system.logsDir);

    const users = await signInAgencyUsers(base, tag);
    creators.push(...users.map((u) => u.user.userId));
    const byAgency = new Map(owners.map((o) => [o.agency, o]));
    const notes = new Set<string>();
    const runs = options.warmup + options.iterations;

    options.log(
      `Measuring create → link readable: ${options.iterations} creates after ${options.warmup} warm-up ones...`,
    );
    const create = { post: [] as number[], answered: [] as number[], sent: [] as number[], links: [] as number[] };
    const settles: number[] = [];
    let failures = 0;
    for (let turn = 0; turn < runs; turn++) {
      const user = users[turn % users.length] as AgencyUser;
      // The seeded record is of one of the two other agencies, in turn.
      const others = owners.filter((o) => o.agency !== user.agency);
      const owner = others[Math.floor(turn / users.length) % others.length] as SeededAgency;
      const seeded = owner.samples.splice(rng.int(0, owner.samples.length - 1), 1)[0];
      if (!seeded) throw new Error(`no seeded ${owner.agency} record left to link to`);
      const variation = NAME_VARIATIONS[turn % NAME_VARIATIONS.length] as (typeof NAME_VARIATIONS)[number];
      const name = variation.apply(rng, seeded.suspectName);
      const label = `${user.agency} user, ${owner.agency} record "${seeded.suspectName}" as "${name}" (${variation.name})`;
      try {
        const outcome = await createAndWait(s, user, seeded, name, `${tag}-${turn + 1}`, rng, createdIds);
        settles.push(outcome.settleMs);
        if (turn < options.warmup) continue;
        create.post.push(outcome.postMs);
        create.answered.push(outcome.answeredToLink);
        create.sent.push(outcome.sentToLink);
        create.links.push(outcome.links);
      } catch (err) {
        if (turn >= options.warmup) failures++;
        notes.add(`create failed (${label}): ${(err as Error).message}`);
      }
    }
    const answered = latency(create.answered);
    options.log(
      `  POST answered → link readable: p50 ${ms(answered.p50)} ms (${create.answered.length} linked, ${failures} failed)`,
    );

    options.log(`Measuring check-namlc-matches: ${options.iterations} of each kind after ${options.warmup} warm-up...`);
    const checks: CheckResult[] = [];
    for (const kind of CHECK_NAMES) {
      const gateway: number[] = [];
      const direct: number[] = [];
      const found: number[] = [];
      const service = new GatewayClient(linkingUrl);
      for (let turn = 0; turn < runs; turn++) {
        const user = users[turn % users.length] as AgencyUser;
        const other = owners.filter((o) => o.agency !== user.agency)[turn % 2] as SeededAgency;
        const query =
          kind === 'check-namlc-matches, matching'
            ? matchingQuery(rng, byAgency.get(other.agency) as SeededAgency, turn)
            : unmatchedQuery(rng, other.agency);
        const pathname = '/api/records/check-namlc-matches';
        const token = await signIdentity(user.user, gatewaySigner);
        const viaGateway = () => user.http.expect(200, 'POST', pathname, query.body);
        const straight = () => service.expect(200, 'POST', pathname, query.body, { [IDENTITY_HEADER]: token });
        // Taking turns at going first, so neither path always meets a warmer cache.
        const first = turn % 2 === 0 ? await viaGateway() : await straight();
        const second = turn % 2 === 0 ? await straight() : await viaGateway();
        const [g, d] = turn % 2 === 0 ? [first, second] : [second, first];
        const gm = (JSON.parse(g.text) as { matches: MatchCandidate[] }).matches;
        const dm = (JSON.parse(d.text) as { matches: MatchCandidate[] }).matches;
        const label = `${user.agency} user, ${JSON.stringify(query.body)}`;
        if (gm.length !== dm.length)
          notes.add(`${kind}: the gateway found ${gm.length}, the service ${dm.length} (${label})`);
        if (query.expect && !gm.some((m) => m.id === query.expect)) {
          notes.add(`${kind}: the seeded record ${query.expect} was not among the ${gm.length} matches (${label})`);
        }
        if (!query.expect && gm.length > 0) notes.add(`${kind}: found ${gm.length} matches (${label})`);
        if (turn < options.warmup) continue;
        gateway.push(g.ms);
        direct.push(d.ms);
        found.push(gm.length);
      }
      const result = { name: kind, gateway: latency(gateway), direct: latency(direct) };
      checks.push({
        ...result,
        ratio: result.gateway.p50 / result.direct.p50,
        matches: { min: Math.min(...found), max: Math.max(...found) },
      });
      options.log(`  ${kind}: p50 ${ms(result.gateway.p50)} ms via gateway, ${ms(result.direct.p50)} ms direct`);
    }

    return {
      machine: host,
      n: options.n,
      perAgency: Object.fromEntries(owners.map((o) => [o.agency, o.ids.length])),
      store: s.name,
      seeding,
      iterations: options.iterations,
      warmup: options.warmup,
      indexLoad,
      linkingReadyMs,
      create: {
        linked: create.answered.length,
        failures,
        post: latency(create.post),
        answeredToLink: answered,
        sentToLink: latency(create.sent),
        links: {
          min: Math.min(...create.links),
          max: Math.max(...create.links),
          total: create.links.reduce((a, b) => a + b, 0),
        },
        settleMs: latency(settles).p50,
      },
      checks,
      notes: [...notes],
      seconds: (performance.now() - started) / 1000,
      loadAtEnd: os.loadavg()[0] ?? 0,
    };
  });
}

/** The key weights of one field as "exact 7.5, typo 6.5, conflict -3". */
const levels = (weights: Record<string, number>) =>
  Object.entries(weights)
    .map(([level, w]) => `${level} ${w}`)
    .join(', ');

/** The service's estimate at start in one line: which weights score, r, the time it took. */
function startEstimateLine(e: StartEstimate): string {
  const w = e.weights;
  const which =
    w.inUse === 'estimated' ? 'estimated from the index' : `fixed (${w.fixedBecause ?? 'no reason logged'})`;
  return (
    `${which}: name ${levels(w.name)}; date of birth ${levels(w.dob)}. r ${e.matchesPerRecord} (prior of a full ` +
    `search ${e.priorBits} bits); estimated at start in ${(e.ms / 1000).toFixed(2)} s, the weights ${(w.ms / 1000).toFixed(2)} s of it`
  );
}

/** The service's heap once loaded, and per record (issue 36's target: at most 3 KB per record). */
export function memoryLine(m: IndexMemory): string {
  const perRecord =
    m.heapBytesPerRecord === null
      ? ''
      : ` (${(m.heapBytesPerRecord / 1024).toFixed(2)} KB per record, its own heap included)`;
  return `heap ${m.heapUsedMiB.toLocaleString('en-US')} MiB once the index was loaded${
    m.collected ? ', after a full collection' : ', garbage of the load included (no --expose-gc)'
  }${perRecord}; resident ${m.rssMiB.toLocaleString('en-US')} MiB`;
}

/** The report as the terminal shows it. */
export function formatLinkingReport(r: LinkingReport): string {
  const load = r.indexLoad;
  const c = r.create;
  const head = [
    ...reportHead(r, ', each into the records collection and the match index'),
    `Start:   the linking service loaded its index (${
      load
        ? `${load.records.toLocaleString('en-US')} records, ${load.links.toLocaleString('en-US')} links) in ${(load.ms / 1000).toFixed(1)} s ('match index loaded' in its log)`
        : "no 'match index loaded' line in its log: LOG_LEVEL above info?)"
    }${r.linkingReadyMs === null ? '' : `; spawned to ready in ${(r.linkingReadyMs / 1000).toFixed(1)} s`}`,
    ...(load?.estimate ? [`Weights: ${startEstimateLine(load.estimate)}`] : []),
    ...(load?.memory ? [`Memory:  ${memoryLine(load.memory)}`] : []),
    `Runs:    ${r.iterations} measured of each, after ${r.warmup} warm-up; sequential, one agency user after another`,
    '',
    `Create → link readable: a user of one agency POSTs a record whose suspect is a seeded record's of another`,
    `agency (a one-letter typo, words swapped or accents changed in the name; the same date of birth and`,
    `amount, the incident 0–2 days earlier), then GETs /api/records/{id}/links through the gateway every`,
    `${POLL_MS} ms until the link to the seeded record is listed.`,
    '',
  ];
  const createRows = [
    ['POST /api/records (answered)', String(c.post.samples), ...cells(c.post)],
    ['POST answered → link readable', String(c.answeredToLink.samples), ...cells(c.answeredToLink)],
    ['POST sent → link readable', String(c.sentToLink.samples), ...cells(c.sentToLink)],
  ];
  const links = [
    '',
    `Linked: ${c.linked} of ${c.linked + c.failures} creates got the link to their seeded record (${c.failures} failed);`,
    `        links per create ${c.links.min}–${c.links.max}, ${c.links.total} in all. Between creates the bench waited, untimed, for`,
    `        the work each leaves behind (its event out of the outbox, both records' Linked flags set): median ${(c.settleMs / 1000).toFixed(1)} s.`,
    '',
  ];
  const checkRows = r.checks.map((k) => [
    ...comparisonRow(k),
    k.matches.min === k.matches.max ? String(k.matches.min) : `${k.matches.min}–${k.matches.max}`,
  ]);
  const foot = [
    '',
    'Milliseconds. gw = through the gateway as the agency user (HTTP, session, identity token, linking service);',
    "svc = the same request straight to the linking service's port with an identity token signed as the",
    'gateway signs it. Matching queries: a seeded suspect under a name variation, same date of birth, incident',
    "date and amount, against the seeded record's agency; no-match queries: a made-up name.",
  ];
  return [
    ...head,
    ...table(['create', 'runs', 'p50', 'p95', 'p99'], createRows),
    ...links,
    ...table(
      ['query', 'runs', 'gw p50', 'gw p95', 'gw p99', 'svc p50', 'svc p95', 'svc p99', 'gw/svc', 'matches'],
      checkRows,
    ),
    ...foot,
    ...reportFoot(r),
  ].join('\n');
}
