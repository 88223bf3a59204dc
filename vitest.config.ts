import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './infra/src/harness/sequencer.ts';

// One run, one set of infrastructure (started once by the root global setup), one project per
// package. Integration tests talk to real FerretDB, NATS and Redis; each file isolates itself by
// namespace (infra/src/harness).
const shared = {
  testTimeout: 30_000,
  hookTimeout: 90_000,
  teardownTimeout: 30_000,
  pool: 'forks' as const,
  // expect.poll's own default (1 s) is shorter than a screen takes to load on a busy 2-core machine
  // (a whole-system suite beside another): a poll still fails when its value never comes.
  expect: { poll: { timeout: 15_000 } },
};
// Stops what a test file started, whether it was started at the top of the file or in a hook
// (infra/src/harness/file-cleanup.ts).
const fileCleanup = fileURLToPath(new URL('./infra/src/harness/file-cleanup-hook.ts', import.meta.url));
const project = (name: string, root: string) => ({
  test: {
    ...shared,
    name,
    root,
    include: ['src/**/*.test.ts', 'scripts/**/*.test.ts', 'test/**/*.test.ts'],
    setupFiles: [fileCleanup],
  },
});
/**
 * A project whose files share a worker process, one after another (`isolate: false`): a package's
 * modules are loaded and compiled once per worker, not once per file (ADR 0021). Each file still
 * starts its servers in a namespace of its own and stops them after itself (file-cleanup.ts); no
 * test file of these mocks a module or changes the process's environment.
 */
const grouped = (name: string, root: string) => ({ test: { ...project(name, root).test, isolate: false } });
// Screens and browser code: components in happy-dom (the services they call run in a process of
// their own, see gateway/test/spawn-stack.ts), with Testing Library's matchers.
const screens = (name: string, root: string) => ({
  test: {
    ...shared,
    name,
    root,
    environment: 'happy-dom',
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.{ts,tsx}'],
    setupFiles: [fileURLToPath(new URL('./frontends/shared/test/setup.ts', import.meta.url))],
  },
});

/**
 * The edit–test loop's tier (`npm run test:fast`, infra/src/cli/test.ts): the unit and service
 * tests, which need no build, no browser and no whole system.
 */
const FAST = [
  grouped('contracts', './contracts'),
  grouped('matching', './matching'),
  grouped('kit', './services/kit'),
  grouped('auth', './services/auth'),
  grouped('records', './services/records'),
  grouped('linking', './services/linking'),
  grouped('stats', './services/stats'),
  grouped('ingest', './services/ingest'),
  grouped('report', './services/report'),
  grouped('ops', './services/ops'),
  grouped('audit', './services/audit'),
  grouped('gateway', './gateway'),
];
export const FAST_PROJECTS = FAST.map((p) => p.test.name);

/**
 * Three test files at once on this 2-core machine (Vitest's default there is one: cores − 1): much
 * of a file's time is spent waiting on its servers (the store, NATS, the services, Chromium), so
 * files overlap well. The suite took 1,059 s one file at a time, 745 s two at a time (session 2's
 * machine); on 2026-11-27's, 624.5 s two at a time with the cores 19% idle, 549.1 s three at a time
 * with them 4% idle (ADR 0021). Files are taken longest first across every project
 * (infra/src/harness/sequencer.ts): the whole-system suites (the browser journeys; infra's fault
 * suite, differential and `npm start` tests; the benchmarks) start at once and the short files fill
 * in beside them; three files at once means three whole systems at most.
 */
export default defineConfig({
  test: {
    ...shared,
    maxWorkers: 3,
    sequence: { sequencer: LongestFirstSequencer },
    globalSetup: [fileURLToPath(new URL('./infra/src/harness/global-setup.ts', import.meta.url))],
    projects: [
      ...FAST,
      project('infra', './infra'),
      // Whole journeys in a real browser: minutes are allowed, not 30 seconds (four: a loaded CI
      // machine ran one past two; the limit only ends a hang sooner). Their files share a
      // worker (not isolated): the services' modules and Chromium are loaded once per worker, and
      // each file starts its stack in a namespace of its own (frontends/e2e/test/web-stack.ts).
      {
        test: {
          ...project('e2e', './frontends/e2e').test,
          testTimeout: 240_000,
          isolate: false,
          setupFiles: [fileCleanup, fileURLToPath(new URL('./frontends/e2e/test/setup.ts', import.meta.url))],
        },
      },
      screens('shared', './frontends/shared'),
      screens('shell', './frontends/shell'),
      screens('settings', './frontends/settings'),
      screens('records-screens', './frontends/records'),
      screens('search', './frontends/search'),
      screens('ingest-screens', './frontends/ingest'),
      screens('dashboard', './frontends/dashboard'),
      screens('admin', './frontends/admin'),
      project('bench', './bench'),
      // Evaluations on whole data sets: CPU alone, no server to hang on, and several times slower
      // beside the whole suite on a busy 2-core machine (an EM estimate took 37 s there, 10 s alone).
      { test: { ...project('linkage', './tools/linkage').test, testTimeout: 120_000 } },
    ],
  },
});
