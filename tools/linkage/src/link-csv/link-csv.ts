/**
 * link-csv: links the person records of two CSV files (or finds duplicates within one) with the
 * scorer and blocking the linking service uses, and writes `left_id,right_id,confidence` for every
 * candidate pair at or above --min, or with --cluster each record's group (cluster.ts). Column
 * names are given on the command line.
 */
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  candidatePairs,
  clusterRecords,
  type DayMonthOrder,
  DEFAULT_THRESHOLD,
  detectDayMonthOrder,
  type MatchInput,
  type PreparedRecord,
  prepareRecord,
  scoreCandidatePairs,
} from '@nrad/matching';
import { parse } from 'csv-parse/sync';

export const USAGE = `Usage: link-csv --left L.csv [--right R.csv] --id COL
                (--name COL | --given COL --surname COL)
                (--dob COL | --dob-year COL --dob-month COL --dob-day COL)
                [--incident-date COL] [--amount COL] [--min N] [--dob-format auto|dmy|mdy]
                [--fixed-weights] [--strict-names] [--cluster [--threshold N]] --out pairs.csv

Links the records of L.csv with those of R.csv, or, without --right, finds the duplicates within
L.csv (each pair once, never a record with itself). Both files need the same column names and a
header row; fields are separated by ',', ';', tabs or '|' (whichever the header has most of).
Writes left_id,right_id,confidence (0-100, two decimals) for every candidate pair with
confidence >= --min (default 1), highest first. Uses the NRAD linking scorer and blocking, with
name-word frequencies and a prior taken from the input (so a larger input needs more evidence).
A pair whose records disagree somewhere (a name word, the date of birth) is kept under 20% when
each of its records has its own match with the same name and date of birth, and those two are
different people: the input then holds two people alike, each written more than once.

  --left FILE          first (or only) CSV file; header row required
  --right FILE         second CSV file (link mode)
  --id COL             record id column (written to the output)
  --name COL           full-name column, any word order
  --given COL, --surname COL
                       name in two columns (instead of --name)
  --dob COL            date-of-birth column: YYYY-MM-DD (or YYYY/MM/DD, any time after it),
                       YYYYMMDD, or DD/MM/YYYY (see --dob-format)
  --dob-year COL, --dob-month COL, --dob-day COL
                       date of birth in three numeric columns (instead of --dob)
  --incident-date COL  incident-date column (same formats as --dob)
  --amount COL         case-amount column (a number; 0 or empty = none)
  --min N              lowest confidence written (default 1)
  --dob-format F       dates written day or month first: dmy (DD/MM/YYYY), mdy (MM/DD/YYYY), or
                       auto (the default: mdy when a value's second part is over 12 and no
                       value's first part is, else dmy)
  --fixed-weights      the linking service's fixed weights, calibrated on FEBRL 1–3, instead of
                       weights estimated from the input (EM), and no weighting of name words by how
                       common they are in the input
  --strict-names       one name word agreeing beside one that disagrees outright (Manfred and
                       Gabriele Neumann born the same day) links only when that word is exact, in
                       the same part of the name, rare (1 named record in 1,000 at most) and the
                       dates of birth are the same: twins and siblings kept apart, true pairs
                       with a name word replaced missed
  --cluster            write groups of records of one person instead of pairs: id,cluster (with
                       --right: file,id,cluster, file being left or right), one row per record in
                       input order, cluster numbered from 1. A group is the records joined by
                       pairs at or above --threshold, directly or through others; it is split where
                       one link alone joins two parts of 2+ records and that link is far (5 bits of
                       log2-odds) below the group's others
  --threshold N        the confidence from which a pair joins a group (default ${DEFAULT_THRESHOLD}, the
                       linking service's); only with --cluster
  --out FILE           output CSV file
  --help               this text

Exit codes: 0 done, 1 unexpected failure, 2 bad arguments, missing file or missing column.`;

/** Where messages go (process.stdout / process.stderr, or a test double). */
export interface Output {
  write(text: string): unknown;
}

class UsageError extends Error {}

interface Columns {
  id: string;
  name?: string;
  given?: string;
  surname?: string;
  dob?: string;
  dobYear?: string;
  dobMonth?: string;
  dobDay?: string;
  incidentDate?: string;
  amount?: string;
}

/** The field separator of a CSV file: of ',', ';', tab and '|', the one its header line has most of. */
function delimiterOf(data: Buffer): string {
  const header = data.subarray(0, Math.min(data.length, 65_536)).toString('utf8').split(/\r?\n/, 1)[0] ?? '';
  let best = ',';
  let most = 0;
  for (const d of [',', ';', '\t', '|']) {
    const n = header.split(d).length - 1;
    if (n > most) [best, most] = [d, n];
  }
  return best;
}

function readCsv(file: string, label: string): Array<Record<string, string>> & { columns: string[] } {
  if (!existsSync(file)) throw new UsageError(`${label} file not found: ${file}`);
  let rows: Array<Record<string, string>>;
  let columns: string[] = [];
  const data = readFileSync(file);
  try {
    rows = parse(data, {
      bom: true,
      delimiter: delimiterOf(data),
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
      columns: (header: string[]) => {
        columns = header.map((h) => h.trim());
        return columns;
      },
    });
  } catch (error) {
    throw new UsageError(`${label} file ${file} is not valid CSV: ${(error as Error).message}`);
  }
  return Object.assign(rows, { columns });
}

function checkColumns(columns: readonly string[], wanted: Columns, file: string) {
  for (const [option, column] of Object.entries(wanted)) {
    if (column === undefined) continue;
    if (!columns.includes(column)) {
      const flag = `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
      throw new UsageError(
        `column "${column}" (${flag}) not found in ${file}; its columns are: ${columns.map((c) => JSON.stringify(c)).join(', ')}`,
      );
    }
  }
}

function toInput(row: Record<string, string>, c: Columns, internalId: string, organization?: string): MatchInput {
  let suspectDob: string | undefined;
  if (c.dob) suspectDob = row[c.dob];
  else if (c.dobYear && c.dobMonth && c.dobDay) {
    // Whole numbers, also as a spreadsheet or data frame writes them ("7.0").
    const [y, m, d] = [row[c.dobYear], row[c.dobMonth], row[c.dobDay]].map((v) =>
      /^\d+(\.0*)?$/.test((v ?? '').trim()) ? Number(v) : Number.NaN,
    );
    if (y! >= 1000 && y! <= 9999 && m! <= 99 && d! <= 99) {
      suspectDob = `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
    }
  }
  return {
    id: internalId,
    ...(organization ? { organization } : {}),
    ...(c.name
      ? { suspectName: row[c.name] ?? '' }
      : { givenName: row[c.given!] ?? '', surname: row[c.surname!] ?? '' }),
    suspectDob: suspectDob ?? null,
    incidentDate: c.incidentDate ? (row[c.incidentDate] ?? null) : null,
    caseAmount: c.amount ? (row[c.amount] ?? null) : null,
  };
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) || value !== value.trim() ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Runs link-csv; returns the exit code. */
export function runLinkCsv(argv: readonly string[], stdout: Output, stderr: Output): number {
  try {
    return link(argv, stdout, stderr);
  } catch (error) {
    if (error instanceof UsageError) {
      stderr.write(`link-csv: ${error.message}\n`);
      return 2;
    }
    stderr.write(`link-csv: ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  }
}

function link(argv: readonly string[], stdout: Output, stderr: Output): number {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        left: { type: 'string' },
        right: { type: 'string' },
        id: { type: 'string' },
        name: { type: 'string' },
        given: { type: 'string' },
        surname: { type: 'string' },
        dob: { type: 'string' },
        'dob-year': { type: 'string' },
        'dob-month': { type: 'string' },
        'dob-day': { type: 'string' },
        'incident-date': { type: 'string' },
        amount: { type: 'string' },
        min: { type: 'string' },
        'dob-format': { type: 'string' },
        'fixed-weights': { type: 'boolean' },
        'strict-names': { type: 'boolean' },
        cluster: { type: 'boolean' },
        threshold: { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${USAGE}`);
  }
  if (values.help) {
    stdout.write(`${USAGE}\n`);
    return 0;
  }
  const str = (key: string) => (typeof values[key] === 'string' ? (values[key] as string) : undefined);
  const need = (key: string) => {
    const v = str(key);
    if (!v) throw new UsageError(`--${key} is required (see --help)`);
    return v;
  };
  const leftFile = need('left');
  const out = need('out');
  const columns: Columns = { id: need('id') };
  if (str('name')) {
    if (str('given') || str('surname')) throw new UsageError('give either --name or --given and --surname, not both');
    columns.name = str('name')!;
  } else if (str('given') && str('surname')) {
    columns.given = str('given')!;
    columns.surname = str('surname')!;
  } else throw new UsageError('a name is required: --name COL, or --given COL and --surname COL');
  if (str('dob')) {
    if (str('dob-year') || str('dob-month') || str('dob-day')) {
      throw new UsageError('give either --dob or --dob-year, --dob-month and --dob-day, not both');
    }
    columns.dob = str('dob')!;
  } else if (str('dob-year') && str('dob-month') && str('dob-day')) {
    columns.dobYear = str('dob-year')!;
    columns.dobMonth = str('dob-month')!;
    columns.dobDay = str('dob-day')!;
  } else throw new UsageError('a date of birth is required: --dob COL, or --dob-year, --dob-month and --dob-day');
  if (str('incident-date')) columns.incidentDate = str('incident-date')!;
  if (str('amount')) columns.amount = str('amount')!;
  const min = str('min') === undefined ? 1 : Number(str('min'));
  if (!Number.isFinite(min) || min < 0 || min > 100) throw new UsageError('--min must be a number from 0 to 100');
  const cluster = values.cluster === true;
  if (str('threshold') !== undefined && !cluster) throw new UsageError('--threshold goes with --cluster');
  const threshold = str('threshold') === undefined ? DEFAULT_THRESHOLD : Number(str('threshold'));
  if (!Number.isFinite(threshold) || threshold <= 0 || threshold > 100) {
    throw new UsageError('--threshold must be a number above 0, at most 100');
  }
  const format = str('dob-format') ?? 'auto';
  if (!['auto', 'dmy', 'mdy'].includes(format)) throw new UsageError('--dob-format must be auto, dmy or mdy');

  const t0 = performance.now();
  const rightFile = str('right');
  const leftRows = readCsv(leftFile, 'left');
  checkColumns(leftRows.columns, columns, leftFile);
  const rightRows = rightFile ? readCsv(rightFile, 'right') : undefined;
  if (rightRows) checkColumns(rightRows.columns, columns, rightFile!);

  // Dates written day or month first: as told, or as the values show (a part over 12).
  const dateValues = function* () {
    for (const rows of [leftRows, rightRows ?? []]) {
      for (const row of rows) {
        if (columns.dob) yield row[columns.dob];
        if (columns.incidentDate) yield row[columns.incidentDate];
      }
    }
  };
  const detected = format === 'auto' ? detectDayMonthOrder(dateValues()) : undefined;
  const dayMonthOrder: DayMonthOrder = format === 'mdy' || detected === 'mdy' ? 'mdy' : 'dmy';
  const prepare = (rows: Array<Record<string, string>>, side: string, organization?: string) =>
    rows.map((row, i) => prepareRecord(toInput(row, columns, `${side}${i}`, organization), { dayMonthOrder }));
  const left: PreparedRecord[] = prepare(leftRows, 'L', rightRows ? 'left' : undefined);
  const right: PreparedRecord[] | undefined = rightRows ? prepare(rightRows, 'R', 'right') : undefined;
  const leftIds = leftRows.map((row) => row[columns.id] ?? '');
  const rightIds = rightRows?.map((row) => row[columns.id] ?? '');
  warnIds(leftIds, leftFile, stderr);
  if (rightIds) warnIds(rightIds, rightFile!, stderr);

  const { pairs, skippedKeys } = candidatePairs(left, right);
  const { options, estimate, confidences, explained, unexplained } = scoreCandidatePairs(left, pairs, right, {
    fixedWeights: values['fixed-weights'] === true,
    strictNames: values['strict-names'] === true,
  });
  const { priorBits, weights } = options;
  // Pairwise: every pair at or above --min. Clusters: the pairs at or above --threshold, with the
  // right file's records numbered after the left's.
  const lowest = cluster ? threshold : min;
  const offset = right ? left.length : 0;
  const results: Array<{ i: number; j: number; confidence: number }> = [];
  let setAside = 0;
  pairs.forEach(([i, j], k) => {
    const confidence = confidences[k]!;
    if (confidence >= lowest) results.push({ i, j, confidence });
    if (explained[k] && unexplained(k) >= threshold) setAside++;
  });
  results.sort((x, y) => y.confidence - x.confidence || x.i - y.i || x.j - y.j);
  const groups = cluster
    ? clusterRecords(
        left.length + (right?.length ?? 0),
        results.map((r) => ({ i: r.i, j: r.j + offset, confidence: r.confidence })),
        { threshold },
      )
    : undefined;

  const otherIds = rightIds ?? leftIds;
  let fd: number;
  try {
    fd = openSync(out, 'w');
  } catch (error) {
    throw new UsageError(`cannot write ${out}: ${(error as Error).message}`);
  }
  const CHUNK = 10_000;
  const lines: string[] = [];
  const flush = (force = false) => {
    if (lines.length >= CHUNK || (force && lines.length > 0)) writeSync(fd, lines.splice(0).join(''));
  };
  try {
    if (groups) {
      writeSync(fd, right ? 'file,id,cluster\n' : 'id,cluster\n');
      const rows = [
        ...leftIds.map((id) => (right ? `left,${csvField(id)}` : csvField(id))),
        ...(rightIds ?? []).map((id) => `right,${csvField(id)}`),
      ];
      rows.forEach((row, k) => {
        lines.push(`${row},${groups[k]}\n`);
        flush();
      });
    } else {
      writeSync(fd, 'left_id,right_id,confidence\n');
      for (const r of results) {
        lines.push(`${csvField(leftIds[r.i]!)},${csvField(otherIds[r.j]!)},${r.confidence.toFixed(2)}\n`);
        flush();
      }
    }
    flush(true);
  } finally {
    closeSync(fd);
  }
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  stderr.write(
    `link-csv: ${rightRows ? `${left.length} × ${right!.length} records` : `${left.length} records (dedupe)`}, ` +
      `${pairs.length} candidate pairs${skippedKeys ? ` (${skippedKeys} over-full blocking keys skipped)` : ''}, ` +
      (groups
        ? `${results.length} at or above ${threshold}, ${new Set(groups).size} groups of ${groups.length} records written`
        : `${results.length} written with confidence ≥ ${min}`) +
      ` to ${out} in ${seconds} s; ${
        weights
          ? `weights estimated from the input (EM on ${estimate!.sessions.name.pairs} + ${estimate!.sessions.dob.pairs} pairs)`
          : values['fixed-weights']
            ? 'fixed weights'
            : 'fixed weights (too few pairs to estimate them)'
      }${options.strictNames ? ', strict names' : ''}, prior ${priorBits.toFixed(2)} bits` +
      `; ${setAside} pairs of ${threshold} or more kept under 20 as explained by other matches` +
      `${detected ? `; dates like 01/02/1980 read as ${detected === 'mdy' ? 'MM/DD/YYYY' : 'DD/MM/YYYY'} (auto)` : ''}\n`,
  );
  return 0;
}

function warnIds(ids: readonly string[], file: string, stderr: Output) {
  const empty = ids.filter((id) => id === '').length;
  const duplicates = ids.length - new Set(ids).size;
  if (empty) stderr.write(`link-csv: warning: ${empty} rows of ${file} have an empty id\n`);
  if (duplicates) stderr.write(`link-csv: warning: ${file} has ${duplicates} repeated ids\n`);
}
