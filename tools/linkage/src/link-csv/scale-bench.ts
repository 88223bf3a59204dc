/**
 * link-csv at scale (issue 36: 50,000 records in groups of up to 20, in ≤ 60 s and ≤ 2 GB): writes
 * a largeClusters set (heldout.ts: the embedded, skewed names) as a CSV, runs `bin/link-csv` on it
 * in a process of its own twice — writing the scored pairs, then the groups (`--cluster`) — and
 * reports each run's wall time and peak resident memory with the quality of what it wrote against
 * the set's truth.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { REPO_ROOT } from '@nrad/infra';
import { DEFAULT_THRESHOLD } from '@nrad/matching';
import { type HeldoutRecord, largeClusters, type PairQuality, pairQuality, truePairCount } from '../eval/heldout.ts';

export interface ScaleBenchOptions {
  readonly records: number;
  readonly largest: number;
  readonly seed?: number;
}

export interface ScaleRun {
  /** link-csv's own summary line (candidate pairs, weights, prior). */
  readonly summary: string;
  readonly seconds: number;
  /** Peak resident memory of the link-csv process, MiB. */
  readonly maxRssMiB: number;
  /** Pairs (or pairs within the groups) at or above DEFAULT_THRESHOLD against the true pairs. */
  readonly quality: PairQuality;
}

export interface ScaleBenchReport {
  readonly machine: string;
  readonly records: number;
  readonly people: number;
  readonly largest: number;
  readonly truePairs: number;
  readonly candidatePairs: number;
  readonly pairs: ScaleRun;
  readonly cluster: ScaleRun;
}

const LINK_CSV = path.join(REPO_ROOT, 'tools', 'linkage', 'bin', 'link-csv');

/** Writes the peak resident memory (KiB) of the process it is loaded into to NRAD_MAX_RSS_FILE at exit. */
const MAX_RSS_PRELOAD =
  "data:text/javascript,import{writeFileSync}from'node:fs';process.on('exit',()=>writeFileSync(process.env.NRAD_MAX_RSS_FILE,String(process.resourceUsage().maxRSS)))";

const csvField = (value: string) => `"${value.replaceAll('"', '""')}"`;

function writeCsv(file: string, records: readonly HeldoutRecord[]) {
  const lines = ['id,given,surname,dob'];
  for (const r of records) {
    lines.push([r.id, r.givenName ?? '', r.surname ?? '', r.suspectDob ?? ''].map(csvField).join(','));
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

function runLinkCsv(dir: string, args: readonly string[]): Omit<ScaleRun, 'quality'> {
  const rssFile = path.join(dir, 'max-rss');
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--import', MAX_RSS_PRELOAD, LINK_CSV, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NRAD_MAX_RSS_FILE: rssFile },
    maxBuffer: 16 * 2 ** 20,
  });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`link-csv failed (${result.status}): ${result.stderr}`);
  const summary = result.stderr.trim().split('\n').at(-1) ?? '';
  return { summary, seconds, maxRssMiB: Number(readFileSync(rssFile, 'utf8')) / 1024 };
}

/** Rows of a CSV link-csv wrote, header left out. */
const rowsOf = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(','));

export function runScaleBench(options: ScaleBenchOptions): ScaleBenchReport {
  const records = largeClusters(options);
  const entity = new Map(records.map((r) => [r.id, r.entity]));
  const truePairs = truePairCount(records);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'link-csv-scale-'));
  try {
    const input = path.join(dir, 'records.csv');
    writeCsv(input, records);
    const common = ['--left', input, '--id', 'id', '--given', 'given', '--surname', 'surname', '--dob', 'dob'];

    const pairsFile = path.join(dir, 'pairs.csv');
    const pairsRun = runLinkCsv(dir, [...common, '--min', String(DEFAULT_THRESHOLD), '--out', pairsFile]);
    const linked = rowsOf(pairsFile);
    const linkedTrue = linked.filter(([a, b]) => entity.get(a as string) === entity.get(b as string)).length;

    const groupsFile = path.join(dir, 'groups.csv');
    const clusterRun = runLinkCsv(dir, [...common, '--cluster', '--out', groupsFile]);
    const groups = new Map<string, string[]>();
    for (const [id, group] of rowsOf(groupsFile))
      groups.set(group as string, [...(groups.get(group as string) ?? []), id as string]);
    let grouped = 0;
    let groupedTrue = 0;
    for (const ids of groups.values()) {
      for (let i = 0; i < ids.length; i++) {
        for (let j = i + 1; j < ids.length; j++) {
          grouped++;
          if (entity.get(ids[i] as string) === entity.get(ids[j] as string)) groupedTrue++;
        }
      }
    }
    const candidates = /(\d+) candidate pairs/.exec(pairsRun.summary);
    const cpus = os.cpus();
    return {
      machine: `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`,
      records: records.length,
      people: new Set(entity.values()).size,
      largest: options.largest,
      truePairs,
      candidatePairs: candidates ? Number(candidates[1]) : Number.NaN,
      pairs: { ...pairsRun, quality: pairQuality(linked.length, linkedTrue, truePairs) },
      cluster: { ...clusterRun, quality: pairQuality(grouped, groupedTrue, truePairs) },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatScaleBench(r: ScaleBenchReport): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const line = (name: string, run: ScaleRun) =>
    `${name.padEnd(22)} ${run.seconds.toFixed(1).padStart(6)} s ${run.maxRssMiB.toFixed(0).padStart(6)} MiB   ` +
    `precision ${run.quality.precision.toFixed(4)}  recall ${run.quality.recall.toFixed(4)}  (${n(run.quality.links)} pairs)`;
  return [
    `Machine: ${r.machine}`,
    `Input:   ${n(r.records)} records of ${n(r.people)} people, groups of 1 to ${r.largest} (largeClusters, embedded skewed names), ${n(r.truePairs)} true pairs; ${n(r.candidatePairs)} candidate pairs after blocking`,
    `Target:  ≤ 60 s and ≤ 2,048 MiB per run (issue 36); quality at confidence ≥ ${DEFAULT_THRESHOLD}`,
    '',
    `${'run'.padEnd(22)} ${'wall'.padStart(8)} ${'peak RSS'.padStart(10)}`,
    line('link-csv (pairs)', r.pairs),
    line('link-csv --cluster', r.cluster),
    '',
    `link-csv said: ${r.pairs.summary}`,
  ].join('\n');
}
