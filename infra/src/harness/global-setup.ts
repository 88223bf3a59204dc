import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureFerretdbBinary } from '../ferretdb.ts';
import { givenUrls, type InfraUrls, startLocalInfra } from '../stack.ts';
import { ensureDebianPackages, SERVER_PACKAGES } from '../system-packages.ts';
import { dockerAnswers, startContainers } from './containers.ts';

import './provided.ts';

/**
 * Starts the infrastructure a test run uses, once, and hands its URLs to every test file:
 * MONGO_URL / NATS_URL / REDIS_URL from the environment when all are set; else containers when a
 * Docker engine answers; else throwaway local processes on free ports (data in a temp directory
 * removed afterwards). Test files isolate themselves by namespace (see `testNamespace`).
 */
export default async function setup(project: TestProject) {
  // Every answer of a declared route is checked against its declaration (services/kit/src/routes.ts);
  // the test workers and the processes they start inherit it.
  process.env.NRAD_CHECK_ANSWERS = '1';
  const given = givenUrls();
  if (given.mongoUrl && given.natsUrl && given.redisUrl) {
    project.provide('infra', { ...(given as InfraUrls), source: 'environment' });
    return;
  }
  if (await dockerAnswers()) {
    const containers = await startContainers();
    project.provide('infra', { ...containers.urls, source: 'testcontainers' });
    return () => containers.stop();
  }
  ensureDebianPackages(SERVER_PACKAGES);
  ensureFerretdbBinary();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nrad-test-'));
  const infra = await startLocalInfra({ dataDir: dir, persist: false, given });
  project.provide('infra', {
    mongoUrl: infra.mongoUrl,
    natsUrl: infra.natsUrl,
    redisUrl: infra.redisUrl,
    source: 'local processes',
  });
  return async () => {
    await infra.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
