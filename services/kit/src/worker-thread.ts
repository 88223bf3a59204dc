import { createRequire } from 'node:module';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts the worker thread `name` that lives beside the calling module (`from`, its
 * `import.meta.url`): the bundle's `<name>.js` beside the service's `dist/main.js` (its build writes
 * both), or, when the caller runs from its TypeScript source (tests, `node --import tsx`),
 * `<name>.ts` through tsx (a worker thread does not inherit the loader).
 */
export function startWorkerThread(from: string, name: string, options: WorkerOptions): Worker {
  if (!from.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, from), options);
  const tsx = createRequire(from).resolve('tsx/esm/api');
  const entry = new URL(`./${name}.ts`, from).href;
  return new Worker(`require(${JSON.stringify(tsx)}).register(); import(${JSON.stringify(entry)});`, {
    ...options,
    eval: true,
  });
}
