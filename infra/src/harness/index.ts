import { randomBytes } from 'node:crypto';
import { afterAll, inject } from 'vitest';
import { cleanupNamespace } from './cleanup.ts';
import { namespaceFor, type TestNamespace } from './namespace.ts';
import './provided.ts';

export { freePort, waitUntil } from '../ports.ts';
export { cleanupNamespace } from './cleanup.ts';
export { namespaceFor, type TestNamespace } from './namespace.ts';

/**
 * A new namespace on this run's infrastructure, which the caller removes (cleanupNamespace) —
 * testNamespace below, or the stack host for a browser-environment test file (ADR 0021).
 */
export function newNamespace(): TestNamespace {
  return namespaceFor(`t${Date.now().toString(36)}${randomBytes(3).toString('hex')}`, inject('infra'));
}

/**
 * This test file's namespace, removed after its tests. Call it at the top of a file or in a
 * describe block: an after-hook registered while a hook runs (inside a beforeAll) is never run.
 */
export function testNamespace(): TestNamespace {
  const t = newNamespace();
  afterAll(() => cleanupNamespace(t, t.ns), 60_000);
  return t;
}
