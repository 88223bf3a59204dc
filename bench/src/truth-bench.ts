/**
 * `npm run linkage:service -- --set S` (issue 36, "How it will be checked"): a labelled person set
 * through the running service, as an evaluator would run it. Each record of the set (FEBRL 1–4
 * from ../shared/data/linkage, or one of our held-out sets) goes to one of the three agencies at
 * random; the agencies upload their files through the public batch upload at once; once the linking
 * service has consumed every record event and ended its passes of linking again (relinkingSettled),
 * its auto-links and possible matches are counted against the truth: the pairs of records of one
 * person held by two different agencies (records of one agency are never linked). Rows the upload
 * refuses (no date of birth, an impossible one, no name) are counted and left out of the truth:
 * the service never saw them.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AGENCY_CODES, type Agency, type UncertainClass, UncertainClassSchema } from '@nrad/contracts';
import {
  generateHeldout,
  HELDOUT_KINDS,
  type HeldoutKind,
  linkageDataDir,
  loadFebrl,
  uncertainClassOf,
} from '@nrad/linkage-tools';
import { MATCH_RATE_QUIET_MS } from '@nrad/linking-service/bench-support';
import { connectBus } from '@nrad/service-kit';
import { type RunContext, signInAgencyUsers, sleep, startBenchSystem } from './harness.ts';
import { type ConsumerSample, consumerSample } from './island-bench.ts';
import { linkingLogEntries } from './linking-bench.ts';
import { type Machine, machine, table } from './report.ts';
import { Random, recordBody } from './seed.ts';
import { openServiceStores, type ServiceStores } from './stores.ts';
import { uploadAndWait, uploadFile } from './upload-file.ts';

const UNCERTAIN_CLASSES = UncertainClassSchema.options;

export const TRUTH_SETS = ['febrl1', 'febrl2', 'febrl3', 'febrl4', ...HELDOUT_KINDS] as const;
export type TruthSet = (typeof TRUTH_SETS)[number];

/** One labelled record: a name, a date of birth as written, and the person it is of. */
export interface LabelledRecord {
  readonly entity: string;
  readonly name: string;
  readonly dob: string;
}

/** FEBRL's YYYYMMDD as the upload's YYYY-MM-DD; anything else as written (the upload judges it). */
function febrlDob(dob: string): string {
  return /^\d{8}$/.test(dob) ? `${dob.slice(0, 4)}-${dob.slice(4, 6)}-${dob.slice(6)}` : dob;
}

const joinName = (given: string | null | undefined, surname: string | null | undefined) =>
  [given ?? '', surname ?? ''].filter((w) => w.trim() !== '').join(' ');

/** The set's records (FEBRL 4: 4a then 4b, the entity shared by a record and its duplicate). */
export function labelledSet(set: TruthSet, seed = 1): LabelledRecord[] {
  if (set.startsWith('febrl')) {
    const files = set === 'febrl4' ? ['dataset4a.csv', 'dataset4b.csv'] : [`dataset${set.slice(5)}.csv`];
    return files.flatMap((file) =>
      loadFebrl(path.join(linkageDataDir(), file)).map((r) => ({
        entity: r.entity,
        name: joinName(r.givenName, r.surname),
        dob: febrlDob(r.suspectDob ?? ''),
      })),
    );
  }
  return generateHeldout(set as HeldoutKind, seed).map((r) => ({
    entity: r.entity,
    name: joinName(r.givenName, r.surname),
    dob: r.suspectDob,
  }));
}

export interface TruthBenchOptions extends RunContext {
  set: TruthSet;
  seed: number;
  /** Only the first N records of the set (a test's small run); all of them by default. */
  limit?: number;
  /** How long each wait may take (an upload's job, then catching up); default 30 min each. */
  waitMs?: number;
}

/** Pairs, and of them the pairs of one person. */
export interface Count {
  pairs: number;
  truePairs: number;
}

export interface TruthReport {
  machine: Machine;
  store: string;
  set: TruthSet;
  records: number;
  /** Rows the upload created, and the refused ones (with the first few reasons). */
  created: number;
  refused: number;
  refusals: string[];
  /** Pairs of records of one person held by two agencies, among the created records. */
  truePairs: number;
  /**
   * The true pairs of no uncertain class (as the scorer judges them on the created records: the
   * pairs auto-linking may link), and how many of them it linked.
   */
  noClass: { truePairs: number; auto: number };
  auto: Count;
  review: Count;
  /** Possible matches per uncertain class ('none': a pair of no class between the thresholds). */
  classes: Record<UncertainClass | 'none', Count>;
  /** The first few links between two people: each side's name and date of birth, the confidence. */
  falseLinks: string[];
  /** From the first upload until the linking service had consumed every record event (ms). */
  linkedMs: number;
  /** What the passes of linking again after a change of the weights added before the count. */
  relinked: Relinked;
  /** The linking service's last estimate of the match rate and weights (its log), if any. */
  estimate: LastEstimate | null;
  notes: string[];
  seconds: number;
}

/** What the linking service's last 'match rate estimated' (or 'match index loaded') line said. */
export interface LastEstimate {
  /** 'estimated' (EM's weights adopted) or 'fixed'. */
  inUse: string;
  fixedBecause?: string;
  /** The date-of-birth levels taken from the estimate (weeks apart, two parts agreeing), bits. */
  dobLevels?: Record<string, number>;
  priorBits: number;
  matchesPerRecord: number;
}

/** The last estimate the linking service logged (linking.log in the system's logs). */
export function lastEstimateFrom(logsDir: string): LastEstimate | null {
  let found: LastEstimate | null = null;
  for (const entry of linkingLogEntries(logsDir, '"matchRate"')) {
    const m = entry.matchRate as
      | {
          priorBits?: number;
          matchesPerRecord?: number;
          weights?: { inUse?: string; fixedBecause?: string; dobLevels?: Record<string, number> };
        }
      | undefined;
    if (m?.weights?.inUse && typeof m.priorBits === 'number' && typeof m.matchesPerRecord === 'number') {
      found = {
        inUse: m.weights.inUse,
        ...(m.weights.fixedBecause ? { fixedBecause: m.weights.fixedBecause } : {}),
        ...(m.weights.dobLevels ? { dobLevels: m.weights.dobLevels } : {}),
        priorBits: m.priorBits,
        matchesPerRecord: m.matchesPerRecord,
      };
    }
  }
  return found;
}

/** What the linking service's passes after a change of the weights added (relinking.ts), from its log. */
export interface Relinked {
  passes: number;
  links: number;
  possibleMatches: number;
}

/**
 * How long the linking log must stay unchanged, with every pass ended, to call linking settled
 * (ms): 3 s, and the pause of the record events after which a short run's re-estimate begins.
 */
const LOG_QUIET_MS = 3000 + MATCH_RATE_QUIET_MS;

/**
 * Waits until the linking service has no pass of linking again under way (the last pass asked
 * for has ended: a request during a pass starts that pass again, so one end may answer several
 * requests) and its log has not changed for LOG_QUIET_MS — an estimate after the last record event
 * may yet start one (some 1–2 s at 10,000 records) — and sums what the passes added.
 */
export async function relinkingSettled(logsDir: string, waitMs: number): Promise<Relinked> {
  const deadline = performance.now() + waitMs;
  const lastTime = (entries: ReadonlyArray<Record<string, unknown>>) => Number(entries.at(-1)?.time ?? -1);
  let seen = -1;
  let quietSince = performance.now();
  for (;;) {
    // The log read once a turn: every line (whether it grew), the passes asked for and ended.
    const lines = linkingLogEntries(logsDir, '"level"');
    const asked = lines.filter((e) => e.msg === 'linking again after the weights changed');
    const endings = lines.filter((e) => e.relinked !== undefined);
    const ended = endings.map((e) => e.relinked as Partial<Relinked>);
    if (lines.length !== seen) {
      seen = lines.length;
      quietSince = performance.now();
    } else if (lastTime(endings) >= lastTime(asked) && performance.now() - quietSince >= LOG_QUIET_MS) {
      return {
        passes: ended.length,
        links: ended.reduce((sum, e) => sum + (e.links ?? 0), 0),
        possibleMatches: ended.reduce((sum, e) => sum + (e.possibleMatches ?? 0), 0),
      };
    }
    if (performance.now() > deadline) throw new Error('the linking service did not settle in time');
    await sleep(500);
  }
}

/** ", date-of-birth levels estimated: twoParts 3.4 bits" (empty when none were taken). */
const dobLevelsText = (levels: Record<string, number> | undefined) =>
  levels && Object.keys(levels).length > 0
    ? `, date-of-birth levels estimated: ${Object.entries(levels)
        .map(([level, bits]) => `${level} ${bits} bits`)
        .join(', ')}`
    : '';

const FALSE_LINKS_SHOWN = 10;
const JOB_TIMEOUT_MS = 30 * 60_000;
const CATCH_UP_TIMEOUT_MS = 30 * 60_000;

/**
 * The truth of a set of created records: the pairs of one person's records held by two agencies,
 * as positions in `records`.
 */
export function crossAgencyPairs(records: ReadonlyArray<{ entity: string; agency: Agency }>): Array<[number, number]> {
  const byEntity = new Map<string, number[]>();
  records.forEach((r, k) => {
    const members = byEntity.get(r.entity);
    if (members) members.push(k);
    else byEntity.set(r.entity, [k]);
  });
  const pairs: Array<[number, number]> = [];
  for (const members of byEntity.values()) {
    for (let x = 0; x < members.length; x++) {
      for (let y = x + 1; y < members.length; y++) {
        const [i, j] = [members[x] as number, members[y] as number];
        if (records[i]?.agency !== records[j]?.agency) pairs.push([i, j]);
      }
    }
  }
  return pairs;
}

export async function runTruthBench(options: TruthBenchOptions): Promise<TruthReport> {
  const { env, log, cleanup } = options;
  const started = performance.now();
  const host = machine();
  const rng = new Random(options.seed);
  const all = labelledSet(options.set, options.seed);
  const set = options.limit ? all.slice(0, options.limit) : all;
  const agencyOf = set.map(() => rng.pick(AGENCY_CODES));
  log(`${options.set}: ${set.length.toLocaleString('en-US')} records, each to one of ${AGENCY_CODES.join(', ')}`);

  let stores: ServiceStores | undefined;
  const bench = await startBenchSystem({
    ...options,
    beforeServices: async (infra) => {
      const s = await openServiceStores(infra.mongoUrl, env);
      stores = s;
      cleanup.add(() => s.conn.close());
    },
  });
  return bench.guard(async () => {
    const s = stores as ServiceStores;
    const users = await signInAgencyUsers(bench.base, Date.now().toString(36));
    const now = new Date();
    // The incident number says which record of the set a row is: `${agency}-T-${index}`.
    const files = users.map((user) => {
      const bodies: Array<Record<string, unknown>> = [];
      set.forEach((r, i) => {
        if (agencyOf[i] !== user.agency) return;
        const body = recordBody(rng, user.agency, String(i), now);
        bodies.push({ ...body, incidentNumber: `${user.agency}-T-${i}`, suspectName: r.name, suspectDob: r.dob });
      });
      return { user, rows: bodies.length, file: uploadFile(bodies) };
    });
    const bus = await connectBus({ url: bench.system.infra.natsUrl, name: 'bench-truth' });
    cleanup.add(() => bus.nc.close());
    const t0 = performance.now();
    const first = await consumerSample(bus, t0);
    log(`Uploading ${files.map((f) => `${f.user.agency} ${f.rows}`).join(', ')} rows at once...`);
    const jobs = await Promise.all(
      files.map((f) =>
        uploadAndWait(f.user, f.file, {
          name: `truth-${f.user.agency}.xlsx`,
          waitMs: options.waitMs ?? JOB_TIMEOUT_MS,
        }),
      ),
    );
    const created = jobs.reduce((sum, j) => sum + (j.result?.successfulRecords ?? 0), 0);
    const refusals = jobs.flatMap((j) =>
      (j.result?.errors ?? []).slice(0, 2).map((e) => `row ${e.row}, ${e.field}: ${e.message}`),
    );
    log(`  jobs done in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${created} records created`);

    // Every created record's event consumed (and nothing pending: the Linked flags' events besides).
    const expectedSeq = first.lastSeq + created;
    const deadline = performance.now() + (options.waitMs ?? CATCH_UP_TIMEOUT_MS);
    let last: ConsumerSample = first;
    for (;;) {
      last = await consumerSample(bus, t0);
      if (last.ackFloor >= expectedSeq && last.pending === 0 && last.ackPending === 0) break;
      if (performance.now() > deadline) throw new Error('the linking service did not catch up in time');
      await sleep(1000);
    }
    const linkedMs = last.at;
    log(`  linking caught up after ${(linkedMs / 1000).toFixed(1)} s`);
    const relinked = await relinkingSettled(bench.system.logsDir, options.waitMs ?? CATCH_UP_TIMEOUT_MS);
    if (relinked.passes > 0) {
      log(
        `  linked again after the weights changed: ${relinked.passes} pass(es), ${relinked.links} links and ${relinked.possibleMatches} possible matches added, settled after ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
    }

    // What was created, as the records store has it (the set's index from the incident number),
    // each record at its position in `stored`.
    const stored: Array<LabelledRecord & { id: string; agency: Agency }> = [];
    const positionOf = new Map<string, number>();
    for await (const doc of s.raw.find({}, { projection: { incidentNumber: 1, organization: 1 } })) {
      const record = set[Number(/^[A-Z]+-T-(\d+)$/.exec(doc.incidentNumber)?.[1])];
      if (!record) continue;
      positionOf.set(String(doc._id), stored.length);
      stored.push({ ...record, id: String(doc._id), agency: doc.organization as Agency });
    }
    const truth = crossAgencyPairs(stored);
    const truePairs = truth.length;
    // Which of the true pairs the scorer puts in an uncertain class (never auto-linked), judged on
    // the created records: the rest is what auto-linking may find.
    const classOf = uncertainClassOf(
      stored.map((r) => ({ id: r.id, organization: r.agency, suspectName: r.name, suspectDob: r.dob })),
    );
    const classTruePairs = truth.filter(([i, j]) => classOf(i, j) !== undefined).length;
    const pairClass = (a: string, b: string) => classOf(positionOf.get(a) ?? -1, positionOf.get(b) ?? -1);
    const recordOf = (id: string) => stored[positionOf.get(id) ?? -1];
    const same = (a: string, b: string) => {
      const x = recordOf(a);
      return x !== undefined && x.entity === recordOf(b)?.entity;
    };
    const auto: Count = { pairs: 0, truePairs: 0 };
    let autoOfNoClass = 0;
    const manual: Count = { pairs: 0, truePairs: 0 };
    const falseLinks: string[] = [];
    const shown = (id: string) => {
      const r = recordOf(id);
      return r ? `${r.name} ${r.dob}` : id;
    };
    for await (const link of s.linking.links.find({}).lean()) {
      const count = link.linkType === 'auto' ? auto : manual;
      count.pairs++;
      if (same(link.sourceRecordId, link.linkedRecordId)) {
        count.truePairs++;
        if (link.linkType === 'auto' && !pairClass(link.sourceRecordId, link.linkedRecordId)) autoOfNoClass++;
      } else if (falseLinks.length < FALSE_LINKS_SHOWN) {
        falseLinks.push(
          `${shown(link.sourceRecordId)} ~ ${shown(link.linkedRecordId)}: ${link.confidence.toFixed(1)}% (${link.linkType})`,
        );
      }
    }
    const notes: string[] = [];
    if (manual.pairs) notes.push(`${manual.pairs} manual links (none expected)`);
    const review: Count = { pairs: 0, truePairs: 0 };
    const classes = Object.fromEntries(
      [...UNCERTAIN_CLASSES, 'none'].map((c) => [c, { pairs: 0, truePairs: 0 }]),
    ) as Record<UncertainClass | 'none', Count>;
    for await (const pm of s.linking.possibleMatches.find({}).lean()) {
      const truth = same(pm.recordIds[0] ?? '', pm.recordIds[1] ?? '');
      for (const count of [review, classes[pm.uncertain ?? 'none']]) {
        count.pairs++;
        if (truth) count.truePairs++;
      }
    }
    return {
      machine: host,
      store: s.name,
      set: options.set,
      records: set.length,
      created,
      refused: set.length - created,
      refusals,
      truePairs,
      noClass: { truePairs: truePairs - classTruePairs, auto: autoOfNoClass },
      auto,
      review,
      classes,
      linkedMs,
      relinked,
      falseLinks,
      estimate: lastEstimateFrom(bench.system.logsDir),
      notes,
      seconds: (performance.now() - started) / 1000,
    };
  });
}

const share = (part: number, whole: number) => (whole > 0 ? (part / whole).toFixed(3) : '—');

/** The report as the terminal shows it. */
export function formatTruthReport(r: TruthReport): string {
  const m = r.machine;
  const rows = [
    ['auto-links (≥ LINK_THRESHOLD)', r.auto],
    ['possible matches (review)', r.review],
    ...[...UNCERTAIN_CLASSES, 'none' as const].map((c): [string, Count] => [
      `  of them ${c === 'none' ? 'no class (between the thresholds)' : c}`,
      r.classes[c],
    ]),
  ] as const;
  return [
    `Machine: ${m.cpu} × ${m.cpus}, ${m.memoryGiB.toFixed(1)} GiB, Node ${m.node}, ${m.platform}`,
    `Store:   ${r.store}`,
    `Set:     ${r.set}, ${r.records.toLocaleString('en-US')} records spread at random over BPS, FIA and CUS; the batch upload created ${r.created.toLocaleString('en-US')}, refused ${r.refused}${r.refusals.length ? ` (${r.refusals.join('; ')})` : ''}`,
    `Truth:   ${r.truePairs.toLocaleString('en-US')} pairs of one person's records held by two agencies`,
    `Linking: caught up ${(r.linkedMs / 1000).toFixed(1)} s after the uploads began; ${
      r.estimate
        ? `its last estimate: ${r.estimate.inUse} weights${r.estimate.fixedBecause ? ` (${r.estimate.fixedBecause})` : ''}${dobLevelsText(r.estimate.dobLevels)}, prior ${r.estimate.priorBits} bits (${r.estimate.matchesPerRecord} matches a record)`
        : 'no estimate in its log'
    }`,
    `         linked again after the weights changed: ${
      r.relinked.passes === 0
        ? 'no pass'
        : `${r.relinked.passes} pass(es), adding ${r.relinked.links} links and ${r.relinked.possibleMatches} possible matches (counted below)`
    }`,
    '',
    ...table(
      ['', 'pairs', 'of one person', 'precision', 'recall'],
      rows.map(([label, c]) => [
        label,
        String(c.pairs),
        String(c.truePairs),
        share(c.truePairs, c.pairs),
        share(c.truePairs, r.truePairs),
      ]),
    ),
    '',
    `Auto-links: precision ${share(r.auto.truePairs, r.auto.pairs)} (target ≥ 0.99), recall ${share(r.auto.truePairs, r.truePairs)} (target ≥ 0.90)`,
    `  of the ${r.noClass.truePairs.toLocaleString('en-US')} true pairs of no uncertain class (the scorer's classes on the created records; the others always go to review): ${share(r.noClass.auto, r.noClass.truePairs)}`,
    `Auto + review recall: ${share(r.auto.truePairs + r.review.truePairs, r.truePairs)} (target ≥ 0.97)`,
    ...(r.falseLinks.length
      ? ['', 'Links between two people (the first few):', ...r.falseLinks.map((l) => `  ${l}`)]
      : []),
    `Total run ${(r.seconds / 60).toFixed(1)} min.`,
    ...(r.notes.length ? ['', 'Notes:', ...r.notes.map((n) => `- ${n}`)] : []),
  ].join('\n');
}
