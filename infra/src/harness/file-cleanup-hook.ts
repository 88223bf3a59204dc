// A setup file of every Node project (vitest.config.ts): runs before each test file and registers
// the one after-file hook that stops what the file started (file-cleanup.ts, ADR 0021).
import { afterAll } from 'vitest';
import { markCleanupHook, runDeferredCleanups } from './file-cleanup.ts';

markCleanupHook();
afterAll(runDeferredCleanups, 120_000);
