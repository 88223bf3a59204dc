import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSources, ferretdbSourcesDigest, UPSTREAM_SOURCES } from '../src/ferretdb.ts';
import { FERRETDB_SOURCE_DIR, REPO_ROOT } from '../src/paths.ts';
import {
  type Comparison,
  compareReads,
  compareWrites,
  restart,
  startComparison,
  startLearned,
  widenKinds,
} from './differential/compare.ts';
import { passRecord } from './pass-record.ts';

/**
 * Our FerretDB build (infra/ferretdb/patches.json: SQL pushdown of filters, sorts, limits and
 * counts) must answer exactly as FerretDB v1.24.2 as published: the same documents in the same
 * order, the same counts, the same errors. Both servers get the same edge-case documents (arrays,
 * mixed types, nulls, missing fields, -0, dates before 2001 and after 2286, strings that look like
 * ObjectIds, accents, `<` `%` `_` in strings) and the same generated finds, counts, aggregations,
 * keyset walks and writes — before and after a restart, after writes that widen the stored kinds,
 * and with our build started on data the unpatched one wrote. NRAD_DIFF_SEED picks other
 * documents and queries (`NRAD_DIFF_SEED=7 npx vitest run infra/test/ferretdb-differential.test.ts`).
 */
const SEED = Number(process.env.NRAD_DIFF_SEED ?? 20261123);
const DOCS = 100;
const FILTERS = 60;

/**
 * What this comparison depends on: our build's sources (infra/ferretdb), the reference's modules
 * (go.upstream.mod), how both are built
 * (infra/src/ferretdb.ts), this file and the comparison's own (differential/), the MongoDB driver
 * and the seed. While none changes, the comparison — deterministic for them — is not repeated
 * (about three minutes on 2 cores): each test checks instead that it passed on exactly these
 * inputs (infra/ferretdb/differential.json, committed; pass-record.ts, ADR 0021). Any change runs it
 * again, in CI too, and a whole pass rewrites the record, to be committed with the change.
 * `NRAD_FERRETDB_DIFFERENTIAL=always`, or another `NRAD_DIFF_SEED`, runs it regardless.
 */
const HERE = path.dirname(fileURLToPath(import.meta.url));
const RECORD = path.join(FERRETDB_SOURCE_DIR, 'differential.json');
const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string }>;
};
const inputs = [
  ferretdbSourcesDigest([
    ...new Set([...buildSources(), ...UPSTREAM_SOURCES]),
    path.join(REPO_ROOT, 'infra', 'src', 'ferretdb.ts'),
    path.join(REPO_ROOT, 'infra', 'src', 'digest.ts'),
    fileURLToPath(import.meta.url),
    path.join(HERE, 'differential', 'cases.ts'),
    path.join(HERE, 'differential', 'compare.ts'),
  ]),
  `mongodb ${lock.packages['node_modules/mongodb']?.version}`,
  `seed ${SEED}`,
].join(' ');

/** Each check's operations compared and differences found, when it passed. */
type Checks = Record<string, { compared: number; differences: number }>;
const record = passRecord<{ tests: Checks }>(
  RECORD,
  inputs,
  process.env.NRAD_FERRETDB_DIFFERENTIAL === 'always' || process.env.NRAD_DIFF_SEED !== undefined,
);

describe('our FerretDB build answers exactly as the unpatched module', () => {
  let cmp: Comparison;
  const passed: Checks = {};
  const checks: Array<[string, () => Promise<void>]> = [];
  /** A check of the comparison (run as a test below, or its record checked). */
  const check = (name: string, run: () => Promise<void>) => checks.push([name, run]);

  const expectNoDifferences = () => {
    const { found, compared } = cmp.differences;
    if (process.env.NRAD_DIFF_OUT) writeFileSync(process.env.NRAD_DIFF_OUT, found.join('\n\n'));
    expect(compared).toBeGreaterThan(0);
    expect(found.slice(0, 5).join('\n\n'), `${found.length} differences in ${compared} operations`).toBe('');
  };

  check('reads alike', async () => {
    await compareReads(cmp, cmp.patched, cmp.upstream, FILTERS, 0.6);
    expectNoDifferences();
    // the invalid filters failed on both, alike
    expect(cmp.differences.errorsAlike).toBeGreaterThan(20);
    // and the comparison went through every kind of plan of our build
    const { plans } = cmp.differences;
    expect(plans.pushed, JSON.stringify(plans)).toBeGreaterThan(plans.filters / 3);
    expect(plans.exact).toBeGreaterThan(plans.filters / 5);
    expect(plans.pushed - plans.exact).toBeGreaterThan(5);
    for (const kind of ['elements', 'sorted', 'limited', 'counted', 'rangeOrPrefix'] as const) {
      expect(plans[kind], kind).toBeGreaterThan(5);
    }
  });

  check('writes through filters alike', async () => {
    await compareWrites(cmp, FILTERS / 2);
    expectNoDifferences();
  });

  check('reads alike after a restart, the planning thresholds lowered so that every plan is taken', async () => {
    // A hundred documents never reach the thresholds that choose where a query starts and which
    // conditions are read from each row (nradProbeCap, nradDriveMax): lowered from here on, the
    // comparison goes through those plans too (the servers inherit the environment at start).
    process.env.NRAD_PUSHDOWN_PROBE_CAP = '3';
    process.env.NRAD_PUSHDOWN_DRIVE_MAX = '2';
    await restart(cmp);
    const before = { ...cmp.differences.plans };
    await compareReads(cmp, cmp.patched, cmp.upstream, FILTERS * 2, 0.12);
    expectNoDifferences();
    const { plans } = cmp.differences;
    for (const kind of ['driven', 'walked', 'onDocument'] as const) {
      expect(plans[kind] - before[kind], `${kind}: ${JSON.stringify(plans)}`).toBeGreaterThan(3);
    }
  });

  check('reads alike after writes that widen the stored kinds, and after another restart', async () => {
    await widenKinds(cmp);
    await compareReads(cmp, cmp.patched, cmp.upstream, FILTERS / 3, 0.12);
    await restart(cmp);
    await compareReads(cmp, cmp.patched, cmp.upstream, FILTERS / 3, 0.12);
    await compareWrites(cmp, FILTERS / 4);
    expectNoDifferences();
  });

  check('reads alike on data the unpatched module wrote (kinds learned from the stored documents)', async () => {
    const learned = await startLearned(cmp);
    await compareReads(cmp, learned, cmp.upstream, FILTERS / 2, 0.25);
    expectNoDifferences();
  });

  // One test per check, never a skipped one: the comparison is run, or its record is checked.
  if (!record.again) {
    for (const [name] of checks)
      it(name, () => {
        const { tests } = record.expectPassed();
        expect(tests[name]?.compared).toBeGreaterThan(0);
        expect(tests[name]?.differences).toBe(0);
      });
    return;
  }
  beforeAll(async () => {
    cmp = await startComparison(SEED, DOCS);
  }, 300_000);
  afterAll(() => cmp?.cleanup());
  for (const [name, run] of checks)
    it(name, async () => {
      await run();
      passed[name] = { compared: cmp.differences.compared, differences: cmp.differences.found.length };
    }, 300_000);
  afterAll(() => {
    if (Object.keys(passed).length !== checks.length) return;
    record.write({ tests: passed });
  });
});
