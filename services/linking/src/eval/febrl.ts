/**
 * FEBRL synthetic person data (shared/data/linkage, see SOURCE.md) as scorer input: given_name +
 * surname → suspect name, date_of_birth (YYYYMMDD) → suspect DOB; no incident date or amount.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import type { MatchInput } from '../matching/scorer.ts';

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
