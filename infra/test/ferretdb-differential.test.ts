import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Comparison,
  compareReads,
  compareWrites,
  restart,
  startComparison,
  startLearned,
  widenKinds,
} from './differential/compare.ts';

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

describe('our FerretDB build answers exactly as the unpatched module', () => {
  let cmp: Comparison;

  beforeAll(async () => {
    cmp = await startComparison(SEED, DOCS);
  }, 300_000);
  afterAll(() => cmp?.cleanup());

  const expectNoDifferences = () => {
    const { found, compared } = cmp.differences;
    if (process.env.NRAD_DIFF_OUT) writeFileSync(process.env.NRAD_DIFF_OUT, found.join('\n\n'));
    expect(compared).toBeGreaterThan(0);
    expect(found.slice(0, 5).join('\n\n'), `${found.length} differences in ${compared} operations`).toBe('');
  };

  it('reads alike', async () => {
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
  }, 300_000);

  it('writes through filters alike', async () => {
    await compareWrites(cmp, FILTERS / 2);
    expectNoDifferences();
  }, 300_000);

  it('reads alike after a restart, the planning thresholds lowered so that every plan is taken', async () => {
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
  }, 300_000);

  it('reads alike after writes that widen the stored kinds, and after another restart', async () => {
    await widenKinds(cmp);
    await compareReads(cmp, cmp.patched, cmp.upstream, FILTERS / 3, 0.12);
    await restart(cmp);
    await compareReads(cmp, cmp.patched, cmp.upstream, FILTERS / 3, 0.12);
    await compareWrites(cmp, FILTERS / 4);
    expectNoDifferences();
  }, 300_000);

  it('reads alike on data the unpatched module wrote (kinds learned from the stored documents)', async () => {
    const learned = await startLearned(cmp);
    await compareReads(cmp, learned, cmp.upstream, FILTERS / 2, 0.25);
    expectNoDifferences();
  }, 300_000);
});
