import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { testNamespace } from '@nrad/infra/harness';
import { afterAll } from 'vitest';

/**
 * The test stack in a process of its own (serve-stack.ts), in this test file's namespace: for tests
 * running in a browser environment. Resolves with the gateway's URL; stopped after the file.
 */
export async function spawnStack(options: { frontendsDir?: string } = {}): Promise<{ url: string }> {
  const t = testNamespace();
  const child: ChildProcess = spawn(
    process.execPath,
    // A string, not a URL object: in a browser environment `URL` is the browser's.
    ['--import', 'tsx', path.join(path.dirname(fileURLToPath(import.meta.url)), 'serve-stack.ts')],
    {
      env: {
        ...process.env,
        NRAD_TEST_NS: t.ns,
        MONGO_URL: t.mongoUrl,
        NATS_URL: t.natsUrl,
        REDIS_URL: t.redisUrl,
        ...(options.frontendsDir ? { FRONTENDS_DIR: options.frontendsDir } : {}),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  afterAll(async () => {
    child.stdin?.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /ready (\S+)/.exec(out);
      if (ready?.[1]) resolve(ready[1]);
    });
    child.once('exit', (code) => reject(new Error(`the test stack stopped (code ${code}) before it was ready`)));
  });
  return { url };
}
