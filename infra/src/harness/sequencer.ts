import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { REPO_ROOT } from '../paths.ts';

/**
 * Seconds each slow test file took in a whole run on this machine (2 cores; `npm test`), by path
 * from the repository root: files of 8 s or more. Rewritten from a run's JSON report with
 * `npx tsx infra/src/cli/test-durations.ts <report.json>` when the suite changes much (ADR 0021).
 */
const DURATIONS_FILE = path.join(REPO_ROOT, 'infra', 'src', 'harness', 'durations.json');
/** A file not in the table: most are small unit or service test files. */
const UNKNOWN_SECONDS = 3;

function readDurations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/**
 * Longest first, across every project (ADR 0021): the two workers take files from this queue in
 * order, so the whole-system suites of minutes start at once and the many short files fill in
 * beside them — instead of waiting at the end of a group for its slowest file. A file's time is
 * Vitest's own record of its last run when there is one (local runs), else the committed table
 * (a clean clone, as in CI), else a few seconds.
 *
 * The files of a project that is not isolated (the browser journeys: they share a worker's
 * services and Chromium) stay together, longest first, placed as one unit by their total: Vitest
 * hands a worker's process on to the next file only when that file is next in the queue and of
 * the same project.
 */
export class LongestFirstSequencer extends BaseSequencer {
  private readonly committed = readDurations();

  private seconds(spec: TestSpecification): number {
    const relative = path.relative(REPO_ROOT, spec.moduleId).split(path.sep).join('/');
    const cached = this.ctx.cache.getTestSpecificationResult(spec);
    if (cached && !cached.failed && cached.duration > 0) return cached.duration / 1000;
    return this.committed[relative] ?? UNKNOWN_SECONDS;
  }

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = new Map(files.map((f) => [f, this.seconds(f)]));
    const longestFirst = (a: TestSpecification, b: TestSpecification) =>
      (seconds.get(b) ?? 0) - (seconds.get(a) ?? 0) || a.moduleId.localeCompare(b.moduleId);
    const units: Array<{ files: TestSpecification[]; seconds: number; name: string }> = [];
    const shared = new Map<string, TestSpecification[]>();
    for (const file of files) {
      if (file.project.config.isolate === false) {
        const group = shared.get(file.project.name) ?? [];
        group.push(file);
        shared.set(file.project.name, group);
      } else {
        units.push({ files: [file], seconds: seconds.get(file) ?? 0, name: file.moduleId });
      }
    }
    for (const [name, group] of shared) {
      const total = group.reduce((sum, f) => sum + (seconds.get(f) ?? 0), 0);
      units.push({ files: group.sort(longestFirst), seconds: total, name });
    }
    units.sort((a, b) => b.seconds - a.seconds || a.name.localeCompare(b.name));
    return units.flatMap((unit) => unit.files);
  }
}
