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

export interface BenchReport {
  machine: Machine;
  n: number;
  perAgency: Record<string, number>;
  store: string;
  seeding: { seconds: number; perSecond: number };
  iterations: number;
  warmup: number;
  budgetSeconds: number;
  operations: OperationResult[];
  /** Things a reader should know: totals that differ between the two paths, empty results. */
  notes: string[];
  seconds: number;
  /** 1-minute load average when the measuring ended. */
  loadAtEnd: number;
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

/** Nearest-rank percentile of sorted samples. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
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

const ms = (v: number) => (Number.isNaN(v) ? '—' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

/** The report as the terminal shows it: machine, N and store, then one row per operation. */
export function formatReport(r: BenchReport): string {
  const m = r.machine;
  const agencies = Object.entries(r.perAgency)
    .map(([a, count]) => `${a} ${count.toLocaleString('en-US')}`)
    .join(', ');
  const head = [
    `Machine: ${m.cpu} × ${m.cpus}, ${m.memoryGiB.toFixed(1)} GiB, Node ${m.node}, ${m.platform} (load ${m.load.toFixed(2)} at start)`,
    `N:       ${r.n.toLocaleString('en-US')} records (${agencies})`,
    `Store:   ${r.store}`,
    `Seeded:  ${r.seeding.seconds.toFixed(1)} s, ${Math.round(r.seeding.perSecond).toLocaleString('en-US')} records/s`,
    `Runs:    per operation up to ${r.iterations} measured (or as many as fit in ${r.budgetSeconds} s, at least one), after up to ${r.warmup}`,
    `         warm-up runs while it takes under 1 s; sequential, one agency user after another`,
    '',
  ];
  const header = ['operation', 'runs', 'gw p50', 'gw p95', 'gw p99', 'db p50', 'db p95', 'db p99', 'gw/db'];
  const rows = r.operations.map((o) => [
    o.name,
    String(o.gateway.samples),
    ms(o.gateway.p50),
    ms(o.gateway.p95),
    ms(o.gateway.p99),
    ms(o.direct.p50),
    ms(o.direct.p95),
    ms(o.direct.p99),
    Number.isNaN(o.ratio) ? '—' : `${o.ratio.toFixed(2)}×`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] as string).length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  const table = [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
  const foot = [
    '',
    'Milliseconds. gw = through the gateway as the agency user (HTTP, session, identity token, service,',
    'presenter); db = the same query straight to the store with mongoose (filter, sort, limit and count).',
    `Total run ${(r.seconds / 60).toFixed(1)} min; load ${r.loadAtEnd.toFixed(2)} at the end.`,
    ...(r.notes.length ? ['', 'Notes:', ...r.notes.map((n) => `- ${n}`)] : []),
  ];
  return [...head, ...table, ...foot].join('\n');
}
