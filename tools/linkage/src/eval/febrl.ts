/**
 * FEBRL synthetic person data (shared/data/linkage, see SOURCE.md) as scorer input: given_name +
 * surname → suspect name, date_of_birth (YYYYMMDD) → suspect DOB; no incident date or amount.
 */

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  candidatePairs,
  estimatePairsPrior,
  type MatchInput,
  nameFrequencies,
  type PreparedRecord,
  prepareRecord,
  scoreCandidatePairs,
  scorePrepared,
} from '@nrad/matching';
import { parse } from 'csv-parse/sync';
import { truePairCount } from './heldout.ts';
import type { ScoredPair } from './metrics.ts';

/**
 * LINKAGE_DATA_DIR, else the nearest `shared/data/linkage` beside the repository or beside one of
 * its parent folders (…/work/main → …/work/shared; a clone in …/work/ci/main finds it too), else
 * the place beside the repository (absent: the evaluation says so, its test is skipped).
 */
export function linkageDataDir(): string {
  if (process.env.LINKAGE_DATA_DIR) return process.env.LINKAGE_DATA_DIR;
  const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
  const beside = path.resolve(repoRoot, '..', 'shared', 'data', 'linkage');
  for (let dir = path.dirname(repoRoot); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared', 'data', 'linkage');
    if (existsSync(path.join(candidate, 'dataset4a.csv'))) return candidate;
    if (path.dirname(dir) === dir) return beside;
  }
}

export interface FebrlRecord extends MatchInput {
  readonly id: string;
  /** The person: `rec-<N>-org` and `rec-<N>-dup-<k>` share N. */
  readonly entity: string;
}

/** Reads one FEBRL CSV (CRLF, a space after each comma, fields trimmed) as scorer input. */
export function loadFebrl(file: string, organization?: string): FebrlRecord[] {
  const rows: Array<Record<string, string>> = parse(readFileSync(file), {
    columns: true,
    bom: true,
    trim: true,
    skip_empty_lines: true,
  });
  return rows.map((row) => {
    const id = row.rec_id ?? '';
    const entity = /^rec-(\d+)-/.exec(id)?.[1];
    if (!entity) throw new Error(`${file}: unexpected rec_id ${JSON.stringify(id)}`);
    return {
      id,
      entity,
      ...(organization ? { organization } : {}),
      givenName: row.given_name ?? '',
      surname: row.surname ?? '',
      suspectDob: row.date_of_birth ?? '',
    };
  });
}

/**
 * One FEBRL file deduplicated as `link-csv` does without `--right` (link-csv/score.ts; with
 * `strictNames`, as `link-csv --strict-names`; with `service`, as the service scores:
 * scoreAsService): its true pairs (records of one person), the candidate pairs of blocking and
 * each one's confidence and truth.
 */
export function dedupeFebrl(file: string, how: { service?: boolean; strictNames?: boolean } = {}) {
  const raw = loadFebrl(file);
  const records = raw.map((r) => prepareRecord(r));
  const truePairs = truePairCount(raw);
  const { pairs } = candidatePairs(records);
  const { options, confidences } = how.service
    ? scoreAsService(records, pairs)
    : scoreCandidatePairs(records, pairs, undefined, { strictNames: how.strictNames === true });
  const scored: ScoredPair[] = pairs.map(([i, j], k) => ({
    confidence: confidences[k]!,
    isMatch: raw[i]!.entity === raw[j]!.entity,
  }));
  return { records: records.length, truePairs, scored, priorBits: options.priorBits };
}

/**
 * Candidate pairs (within `left`, or between `left` and `right`) scored as the service scores
 * (serviceOptions), each pair on its own (no pair explained by other matches).
 */
export function scoreAsService(
  left: readonly PreparedRecord[],
  pairs: ReadonlyArray<readonly [number, number]>,
  right?: readonly PreparedRecord[],
) {
  const options = serviceOptions(left, pairs, right);
  const other = right ?? left;
  const confidences = Float64Array.from(pairs, ([i, j]) => scorePrepared(left[i]!, other[j]!, options).confidence);
  return { options, confidences };
}

/**
 * The score options of the service's fixed, calibrated weights for these records and candidate
 * pairs (within `left`, or between `left` and `right`): name-word frequencies from the records
 * and the prior estimated from the candidate pairs (matching/prior.ts). What the calibration of
 * the fixed weights is fitted and checked on.
 */
export function serviceOptions(
  left: readonly PreparedRecord[],
  pairs: ReadonlyArray<readonly [number, number]>,
  right?: readonly PreparedRecord[],
) {
  const frequencies = nameFrequencies([...left, ...(right ?? [])].map((r) => r.name));
  return { frequencies, priorBits: estimatePairsPrior(left, pairs, right, { frequencies }).priorBits };
}
