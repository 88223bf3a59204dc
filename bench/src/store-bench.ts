/**
 * The records collection's inserts on the embedded store alone (ADR 0002 item 11): N records built
 * by the records service's own `newRecordDoc` (the island's people, seedRecords) inserted into a
 * fresh store through `RecordRepository.insertMany` — the collection's indexes and elements table,
 * 4,000 documents a request, as an upload's import requests send them — on our build and on our
 * build with the SQLite FerretDB v1.24.2 was published with, alternately (`rounds` times each, so
 * that a machine whose speed drifts treats both alike). Each run times the inserts and reads the
 * server's CPU time (utime + stime of its process).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureFerretdbBinary, ensurePublishedSqliteFerretdbBinary, startFerretdb } from '@nrad/infra';
import { type RecordDoc, RecordRepository } from '@nrad/records-service/storage';
import { connectMongo } from '@nrad/service-kit';
import { cpuSeconds, machineLine, median } from './report.ts';
import { Random } from './seed.ts';
import { seedRecords, unsignedOwners } from './seeding.ts';

/** Documents per insertMany: INGEST_BATCH_ROWS, an import request's rows (ADR 0011). */
const BATCH = 4000;

export interface StoreBenchOptions {
  n: number;
  rounds: number;
  seed: number;
  log: (line: string) => void;
}

export interface StoreRun {
  build: string;
  ms: number;
  cpuSeconds: number;
  /** Each insertMany's time (ms). */
  batches: number[];
}

/** The server's CPU seconds so far (its process is running while this is asked). */
function serverCpuSeconds(pid: number): number {
  const seconds = cpuSeconds(pid);
  if (seconds === undefined) throw new Error(`the store's process ${pid} is gone`);
  return seconds;
}

async function insertRun(build: string, binary: string, docs: readonly RecordDoc[]): Promise<StoreRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nrad-bench-store-'));
  const { url, process: server } = await startFerretdb({ binary, sqliteDir: dir });
  try {
    const conn = await connectMongo({ url, dbName: 'nrad_records' });
    try {
      const records = new RecordRepository(conn);
      await records.init();
      const pid = server.child.pid as number;
      const cpuBefore = serverCpuSeconds(pid);
      const batches: number[] = [];
      const started = performance.now();
      for (let at = 0; at < docs.length; at += BATCH) {
        const t = performance.now();
        await records.insertMany(docs.slice(at, at + BATCH));
        batches.push(performance.now() - t);
      }
      return { build, ms: performance.now() - started, cpuSeconds: serverCpuSeconds(pid) - cpuBefore, batches };
    } finally {
      await conn.close();
    }
  } finally {
    await server.stop(5000);
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runStoreBench(options: StoreBenchOptions): Promise<StoreRun[]> {
  const builds: Array<[string, string]> = [
    ['ours (SQLite 3.54.1)', ensureFerretdbBinary(options.log)],
    ['ours on FerretDB’s published SQLite (3.46.0)', ensurePublishedSqliteFerretdbBinary(options.log)],
  ];
  const docs: RecordDoc[] = [];
  await seedRecords(
    unsignedOwners(),
    options.n,
    new Random(options.seed),
    () => {},
    async (batch) => {
      docs.push(...batch);
      return [];
    },
  );
  const runs: StoreRun[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    for (const [build, binary] of builds) {
      const run = await insertRun(build, binary, docs);
      options.log(
        `  round ${round}, ${build}: ${(run.ms / 1000).toFixed(1)} s, server ${run.cpuSeconds.toFixed(1)} CPU-s`,
      );
      runs.push(run);
    }
  }
  return runs;
}

export function formatStoreReport(runs: readonly StoreRun[], options: { n: number }): string {
  const builds = [...new Set(runs.map((r) => r.build))];
  const lines = [
    machineLine(),
    `Store:   FerretDB 1.24.2 (embedded, SQLite backend), a fresh one per run`,
    `Work:    ${options.n.toLocaleString('en-US')} records into the records collection (its indexes), ${BATCH.toLocaleString('en-US')} per insertMany`,
    '',
    '| build | runs | median s | median server CPU-s | median insertMany ms |',
    '|---|---|---|---|---|',
  ];
  for (const build of builds) {
    const of = runs.filter((r) => r.build === build);
    lines.push(
      `| ${build} | ${of.length} | ${(median(of.map((r) => r.ms)) / 1000).toFixed(1)} | ${median(of.map((r) => r.cpuSeconds)).toFixed(1)} | ${median(of.flatMap((r) => r.batches)).toFixed(0)} |`,
    );
  }
  return lines.join('\n');
}
