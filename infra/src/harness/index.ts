import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { cleanupNamespace } from './cleanup.ts';
import { deferCleanup } from './file-cleanup.ts';
import { namespaceFor, type TestNamespace } from './namespace.ts';
import './provided.ts';

export { freePort, waitUntil } from '../ports.ts';
export { cleanupNamespace, closeHttpServer } from './cleanup.ts';
export { deferCleanup } from './file-cleanup.ts';
export { namespaceFor, type TestNamespace } from './namespace.ts';

/**
 * A new namespace on this run's infrastructure, which the caller removes (cleanupNamespace) —
 * testNamespace below, or the stack host for a browser-environment test file (ADR 0021).
 */
export function newNamespace(): TestNamespace {
  return namespaceFor(`t${Date.now().toString(36)}${randomBytes(3).toString('hex')}`, inject('infra'));
}

/**
 * This test file's namespace, removed after its tests (deferCleanup: wherever it is called — at
 * the top of a file, in a describe block or inside a beforeAll).
 */
export function testNamespace(): TestNamespace {
  const t = newNamespace();
  deferCleanup(() => cleanupNamespace(t, t.ns));
  return t;
}
