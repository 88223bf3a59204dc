import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

/** Latency figures of one side of a comparison, in milliseconds. */
export interface Latency {
  p50: number;
  p95: number;
  p99: number;
  samples: number;
}

export interface OperationResult {
  name: string;
  gateway: Latency;
  direct: Latency;
  /** gateway p50 / direct p50: how much the HTTP path (gateway, service, presenters) adds. */
  ratio: number;
  /** Wall time spent on the operation (warm-up and waits included). */
  seconds: number;
  /** The fewest and the most records a measured run found in all (lists, counts and searches). */
  found?: { min: number; max: number };
}

export interface Machine {
  cpu: string;
  cpus: number;
  memoryGiB: number;
  node: string;
  platform: string;
  /** 1-minute load average when the run started (other work on the machine skews latencies). */
  load: number;
}

/** What every benchmark report holds besides its operations: where, on what, and how it ran. */
export interface RunReport {
  machine: Machine;
  n: number;
  /** Records seeded per agency (deleted ones included). */
  perAgency: Record<string, number>;
  /** How many of each agency's seeded records are deleted, when some are. */
  deletedPerAgency?: Record<string, number>;
  store: string;
  seeding: { seconds: number; perSecond: number };
  iterations: number;
  warmup: number;
  /** Things a reader should know: totals that differ between the two paths, empty results. */
  notes: string[];
  seconds: number;
  /** 1-minute load average when the measuring ended. */
  loadAtEnd: number;
}

/** bench:records: each operation both ways (through the gateway, straight on the store). */
export interface BenchReport extends RunReport {
  budgetSeconds: number;
  operations: OperationResult[];
  /** The first requests after restarts of the whole system (absent when none was asked for). */
  restarts?: RestartReport;
}

/** Restarts of the whole system on its data: each step over every restart. */
export interface RestartReport {
  /** Restarts made (each one a sample of every row). */
  count: number;
  /** The processes stopped and started again each time. */
  restarted: string[];
  rows: Array<{ name: string; latency: Latency }>;
}

/** The machine the run is on. */
export function machine(): Machine {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown CPU',
    cpus: cpus.length,
    memoryGiB: os.totalmem() / 2 ** 30,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    load: os.loadavg()[0] ?? 0,
  };
}

/** The machine as a report's first line names it. */
export function machineLine(m: Machine = machine()): string {
  return `Machine: ${m.cpu} × ${m.cpus}, ${m.memoryGiB.toFixed(1)} GiB, Node ${m.node}, ${m.platform} (load ${m.load.toFixed(2)} at start)`;
}

/** Clock ticks a second in /proc (CLK_TCK). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat; undefined once it is gone. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** Nearest-rank percentile of sorted samples. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/** Nearest-rank median of unsorted figures, as every report here takes it. */
export function median(xs: readonly number[]): number {
  return percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
}

export function latency(samples: readonly number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    samples: sorted.length,
  };
}

/** Milliseconds as the tables show them: three significant figures or so. */
export const ms = (v: number) =>
  Number.isNaN(v) ? '—' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);

/** The ratio of two p50s, "1.23×". */
export const ratio = (v: number) => (Number.isNaN(v) ? '—' : `${v.toFixed(2)}×`);

/** The machine, N (with each agency's share), the store and the seeding: what every report starts with. */
export function reportHead(
  r: Pick<BenchReport, 'machine' | 'n' | 'perAgency' | 'deletedPerAgency' | 'store' | 'seeding'>,
  seededNote = '',
): string[] {
  const m = r.machine;
  const agencies = Object.entries(r.perAgency)
    .map(([a, count]) => {
      const deleted = r.deletedPerAgency?.[a];
      return `${a} ${count.toLocaleString('en-US')}${deleted === undefined ? '' : ` (${deleted.toLocaleString('en-US')} deleted)`}`;
    })
    .join(', ');
  return [
    `Machine: ${m.cpu} × ${m.cpus}, ${m.memoryGiB.toFixed(1)} GiB, Node ${m.node}, ${m.platform} (load ${m.load.toFixed(2)} at start)`,
    `N:       ${r.n.toLocaleString('en-US')} records (${agencies})`,
    `Store:   ${r.store}`,
    `Seeded:  ${r.seeding.seconds.toFixed(1)} s, ${Math.round(r.seeding.perSecond).toLocaleString('en-US')} records/s${seededNote}`,
  ];
}

/** How long the run took, the load at its end, and the notes: what every report ends with. */
export function reportFoot(r: Pick<BenchReport, 'seconds' | 'loadAtEnd' | 'notes'>): string[] {
  return [
    `Total run ${(r.seconds / 60).toFixed(1)} min; load ${r.loadAtEnd.toFixed(2)} at the end.`,
    ...(r.notes.length ? ['', 'Notes:', ...r.notes.map((n) => `- ${n}`)] : []),
  ];
}

/** A table: the first column left-aligned, the others right-aligned, a rule under the header. */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] as string).length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/** p50, p95 and p99 of one side, as table cells. */
export const cells = (l: Latency) => [ms(l.p50), ms(l.p95), ms(l.p99)];

/** A row of a two-path table: its name, the runs, both sides' percentiles and the ratio of the p50s. */
export const comparisonRow = (o: { name: string; gateway: Latency; direct: Latency; ratio: number }) => [
  o.name,
  String(o.gateway.samples),
  ...cells(o.gateway),
  ...cells(o.direct),
  ratio(o.ratio),
];

/** "1,234", or "17–1,204" when the runs found different totals, or "—" for no totals. */
export const found = (f: OperationResult['found']) =>
  !f
    ? '—'
    : f.min === f.max
      ? f.min.toLocaleString('en-US')
      : `${f.min.toLocaleString('en-US')}–${f.max.toLocaleString('en-US')}`;

/**
 * How to read percentiles of few runs: nearest rank over the runs of the row (never interpolated),
 * so p95 is the slowest run when there are fewer than 20 and p99 when fewer than 100.
 */
export function percentileNote(runs: number[]): string[] {
  const fewest = Math.min(...runs);
  const most = Math.max(...runs);
  const range = fewest === most ? `${fewest}` : `${fewest} to ${most}`;
  return [
    `Percentiles are nearest-rank over the row's runs (${range} here; never interpolated): p50 is the`,
    'ceil(runs/2)-th fastest, p95 is the slowest run when there are fewer than 20 runs, and p99 when fewer',
    'than 100 (so with 20 runs p99 is the maximum; with 1 run all three are that run).',
  ];
}

/** The report as the terminal shows it: machine, N and store, then one row per operation. */
export function formatReport(r: BenchReport): string {
  const head = [
    ...reportHead(r),
    `Runs:    per operation up to ${r.iterations} measured (or as many as fit in ${r.budgetSeconds} s, at least one), after up to ${r.warmup}`,
    `         warm-up runs while it takes under 1 s; sequential, one agency user after another`,
    '',
  ];
  const header = ['operation', 'runs', 'found', 'gw p50', 'gw p95', 'gw p99', 'db p50', 'db p95', 'db p99', 'gw/db'];
  const rows = r.operations.map((o) => {
    const [name, runs, ...rest] = comparisonRow(o) as [string, string, ...string[]];
    return [name, runs, found(o.found), ...rest];
  });
  const restarts = r.restarts ? restartSection(r.restarts) : [];
  const runs = [
    ...r.operations.map((o) => o.gateway.samples),
    ...(r.restarts?.rows.map((row) => row.latency.samples) ?? []),
  ];
  const foot = [
    '',
    'Milliseconds. gw = through the gateway as the agency user (ADMIN for the admin list: HTTP, session,',
    'identity token, service, presenter); db = the same query straight to the store through the records',
    "service's RecordRepository (the filter, sort, page size and count the service's own functions give).",
    'found = the total of the list or search (X-Total-Count), fewest–most over the runs.',
    ...(runs.length ? percentileNote(runs) : []),
    ...reportFoot(r),
  ];
  return [...head, ...table(header, rows), ...restarts, ...foot].join('\n');
}

/** The restarts: one row per step, each restart a sample. */
function restartSection(r: RestartReport): string[] {
  return [
    '',
    `Restarts: ${r.count} × stop every process as Ctrl-C of npm start does (${r.restarted.join(', ')})`,
    '          and start again on the same data directory; then one agency user (in turn) signs in again,',
    '          as a new browser (sessions are in Redis, restarted too), and reads the first page of records.',
    '          "- " rows: each part of the start until it was ready (the services start together, so they overlap).',
    '',
    ...table(
      ['after a restart', 'runs', 'p50 ms', 'p95 ms', 'p99 ms'],
      r.rows.map((row) => [row.name, String(row.latency.samples), ...cells(row.latency)]),
    ),
  ];
}

/** A report of single-path latencies (bench:screens, bench:stats). */
export interface LatencyReport extends RunReport {
  operations: Array<{ name: string; latency: Latency }>;
}

/** Machine, N, store and seeding, then `runs` (how it measured), one row per operation, the foot. */
export function formatLatencyReport(r: LatencyReport, seededNote: string, runs: string[], firstColumn: string): string {
  return [
    ...reportHead(r, seededNote),
    ...runs,
    '',
    ...table(
      [firstColumn, 'runs', 'p50 ms', 'p95 ms', 'p99 ms'],
      r.operations.map((o) => [o.name, String(o.latency.samples), ...cells(o.latency)]),
    ),
    '',
    ...reportFoot(r),
  ].join('\n');
}

/** Collects a report's operations in order, logging each as it is measured. */
export function operationLog<Name extends string>(log: (line: string) => void) {
  const operations: LatencyReport['operations'] = [];
  return {
    operations,
    add(name: Name, l: Latency) {
      operations.push({ name, latency: l });
      log(`  ${name}: p50 ${ms(l.p50)} ms, p95 ${ms(l.p95)} ms (${l.samples} runs)`);
    },
  };
}
