// `npm run typecheck`: every workspace's TypeScript checked, in as few compiler runs as there are
// different sets of compiler options (two today: Node and the browser), not one per workspace
// (ADR 0021). Each workspace's tsconfig.json still says what it includes and with which options;
// workspaces of the same options are checked as one program, so the libraries they share (Node's
// types, zod, mongoose, Koa, React, antd) are read once: 9 s instead of 67 s on this machine.
// `npm run typecheck:workspaces` runs each workspace's own `tsc -p .` (slower; the same files).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../paths.ts';

const TSC = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');

interface WorkspaceConfig {
  extends?: string;
  compilerOptions?: Record<string, unknown>;
  include?: string[];
  exclude?: string[];
}

const { workspaces } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  workspaces: string[];
};

/** Workspaces by the options they are checked with (their base and their own compilerOptions). */
const programs = new Map<
  string,
  { base: string; options: Record<string, unknown>; include: string[]; exclude: string[]; names: string[] }
>();
/**
 * Checked beside the workspaces: the screens' test files (browser code that also uses Node's types:
 * Vitest, the stack host), which each frontend's own tsconfig.json leaves out so that Node's
 * globals stay out of the app.
 */
const EXTRA_CONFIGS = ['frontends/tsconfig.tests.json'];

for (const configFile of [...workspaces.map((w) => path.join(w, 'tsconfig.json')), ...EXTRA_CONFIGS]) {
  const dir = path.join(REPO_ROOT, path.dirname(configFile));
  const workspace = path.basename(configFile) === 'tsconfig.json' ? path.dirname(configFile) : configFile;
  let config: WorkspaceConfig;
  try {
    config = JSON.parse(readFileSync(path.join(REPO_ROOT, configFile), 'utf8')) as WorkspaceConfig;
  } catch {
    continue; // a workspace without TypeScript
  }
  const base = config.extends ? path.resolve(dir, config.extends) : '';
  const options = config.compilerOptions ?? {};
  const key = JSON.stringify([base, options]);
  const program = programs.get(key) ?? { base, options, include: [], exclude: [], names: [] };
  program.include.push(...(config.include ?? ['**/*']).map((p) => path.join(dir, p)));
  program.exclude.push(...(config.exclude ?? []).map((p) => path.join(dir, p)));
  program.names.push(workspace);
  programs.set(key, program);
}

const out = path.join(REPO_ROOT, 'node_modules', '.cache', 'nrad-typecheck');
mkdirSync(out, { recursive: true });

/** One program's `tsc -p`, its output kept until it ends (programs run side by side). */
function check(program: NonNullable<ReturnType<typeof programs.get>>, i: number): Promise<boolean> {
  const file = path.join(out, `tsconfig.${i}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      ...(program.base ? { extends: program.base } : {}),
      compilerOptions: program.options,
      include: program.include,
      // An empty list would drop TypeScript's default (node_modules and the like).
      ...(program.exclude.length ? { exclude: program.exclude } : {}),
    }),
  );
  const started = Date.now();
  const tsc = spawn(process.execPath, [TSC, '-p', file], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: Buffer[] = [];
  tsc.stdout.on('data', (chunk: Buffer) => output.push(chunk));
  tsc.stderr.on('data', (chunk: Buffer) => output.push(chunk));
  return new Promise((resolve) => {
    tsc.on('close', (code) => {
      process.stdout.write(Buffer.concat(output));
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`${code === 0 ? 'ok  ' : 'FAIL'} tsc: ${program.names.join(', ')} (${seconds} s)`);
      resolve(code === 0);
    });
  });
}

// As many compiler runs at once as there are cores (each is one thread): on two cores the four
// programs take about half as long as one after another. The largest start first.
const queue = [...programs.values()]
  .map((program, i) => ({ program, i }))
  .sort((a, b) => b.program.names.length - a.program.names.length);
let failed = false;
await Promise.all(
  Array.from({ length: Math.min(availableParallelism(), queue.length) }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      if (!(await check(next.program, next.i))) failed = true;
    }
  }),
);
process.exit(failed ? 1 : 0);
