import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

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

export default defineConfig({
  test: {
    ...shared,
    globalSetup: [fileURLToPath(new URL('./infra/src/harness/global-setup.ts', import.meta.url))],
    projects: [
      project('contracts', './contracts'),
      project('infra', './infra'),
      project('kit', './services/kit'),
      project('auth', './services/auth'),
      project('records', './services/records'),
      project('linking', './services/linking'),
      project('gateway', './gateway'),
      project('e2e', './frontends/e2e'),
      project('bench', './bench'),
    ],
  },
});
