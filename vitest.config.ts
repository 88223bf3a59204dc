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
};
const project = (name: string, root: string) => ({
  test: { ...shared, name, root, include: ['src/**/*.test.ts', 'scripts/**/*.test.ts', 'test/**/*.test.ts'] },
});
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
 * Two test files at once (Vitest's default on two cores is one: cores − 1): most of a file's time
 * is spent waiting on its servers (the store, NATS, the services, Chromium), so two overlap well —
 * the suite took 1,059 s one file at a time on this machine, 745 s two at a time. Files are taken
 * longest first across every project (infra/src/harness/sequencer.ts, ADR 0021): the whole-system
 * suites (the browser journeys; infra's fault suite, differential and `npm start` tests; the
 * benchmarks) start at once and the short files fill in beside them; two files at once means two
 * whole systems at most.
 */
export default defineConfig({
  test: {
    ...shared,
    maxWorkers: 2,
    sequence: { sequencer: LongestFirstSequencer },
    globalSetup: [fileURLToPath(new URL('./infra/src/harness/global-setup.ts', import.meta.url))],
    projects: [
      project('contracts', './contracts'),
      project('matching', './matching'),
      project('infra', './infra'),
      project('kit', './services/kit'),
      project('auth', './services/auth'),
      project('records', './services/records'),
      project('linking', './services/linking'),
      project('stats', './services/stats'),
      project('ingest', './services/ingest'),
      project('report', './services/report'),
      project('ops', './services/ops'),
      project('audit', './services/audit'),
      project('gateway', './gateway'),
      // Whole journeys in a real browser: minutes are allowed, not 30 seconds.
      { test: { ...project('e2e', './frontends/e2e').test, testTimeout: 120_000 } },
      screens('shared', './frontends/shared'),
      screens('shell', './frontends/shell'),
      screens('settings', './frontends/settings'),
      screens('records-screens', './frontends/records'),
      screens('search', './frontends/search'),
      screens('ingest-screens', './frontends/ingest'),
      screens('dashboard', './frontends/dashboard'),
      screens('admin', './frontends/admin'),
      project('bench', './bench'),
      project('linkage', './tools/linkage'),
    ],
  },
});
