import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/paths.ts';

/**
 * The first step of `npm start`, `npm test` and every script (scripts/bootstrap.mjs, ADR 0024), as
 * a fresh machine runs it: started by a Node that is not the project's (Debian's Node 20 here),
 * it runs the script again on node_modules/.bin/node (Node 24), whose children find that Node
 * first on PATH, passes SIGINT on and ends with the script's exit status.
 */
const bin = path.join(REPO_ROOT, 'node_modules', '.bin');
const projectNode = realpathSync(path.join(bin, 'node'));
const PROBE = path.join(REPO_ROOT, 'infra', 'test', 'runtime', 'probe.mjs');
const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

/** The machine's own `node` (PATH without node_modules/.bin), when it is another binary. */
const systemPath = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter((dir) => dir !== '' && !dir.includes(`${path.sep}node_modules${path.sep}`))
  .join(path.delimiter);
const systemNode = systemPath
  .split(path.delimiter)
  .map((dir) => path.join(dir, 'node'))
  .find((file) => existsSync(file) && realpathSync(file) !== projectNode);
const env: NodeJS.ProcessEnv = { ...process.env, PATH: systemPath };
delete env.NRAD_REEXEC_FROM;

function probeLine(output: string) {
  const line = output.split('\n').find((l) => l.startsWith('probe '));
  if (!line) throw new Error(`no probe line in:\n${output}`);
  return JSON.parse(line.slice('probe '.length)) as { version: string; execPath: string; childNode: string };
}

it('the pinned Node is a Node 24 that package.json engines names', () => {
  expect(pkg.devDependencies.node).toMatch(/^24\.\d+\.\d+$/);
  expect(pkg.engines.node).toMatch(/^\^24\./);
});

describe.skipIf(!systemNode)(`bootstrap, started by ${systemNode}`, () => {
  it('runs the script on the project Node 24, and its children too', () => {
    const run = spawnSync(systemNode as string, [PROBE, '--announce'], { cwd: REPO_ROOT, env, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const probe = probeLine(run.stdout);
    expect(probe.version).toBe(`v${pkg.devDependencies.node}`);
    expect(realpathSync(probe.execPath)).toBe(projectNode);
    expect(probe.childNode).toBe(probe.version);
    expect(run.stdout).toContain(`Node ${probe.version} (node_modules/.bin/node)`);
  });

  it('passes SIGINT on to the script and ends with its exit status', async () => {
    const child = spawn(systemNode as string, [PROBE, '--wait'], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await expect.poll(() => output, { timeout: 30_000 }).toContain('probe ');
    child.kill('SIGINT');
    expect(await exited, output).toBe(7);
  });
});
