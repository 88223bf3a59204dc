/**
 * What a test file started, stopped after the file (ADR 0021). Vitest never runs an after-hook
 * registered while a hook runs — `afterAll` inside a `beforeAll` is dropped without a word — so a
 * helper that starts servers for a file (testNamespace, the gateway's startAuthStack, the browser
 * journeys' web stack) cannot stop them with a hook of its own when it is called in a beforeAll.
 * It calls deferCleanup instead; the setup file `file-cleanup-hook.ts` (in every Node project's
 * setupFiles, run before each file, in isolated and shared workers alike) registers one afterAll
 * per file that runs them, last started first.
 *
 * No vitest import here: the stack host (a plain Node process) shares namespace code with it.
 */
type Cleanup = () => unknown;

const pending: Cleanup[] = [];
let hooked = false;

/** Marks this file's worker as having the after-file hook (file-cleanup-hook.ts). */
export function markCleanupHook(): void {
  hooked = true;
}

/** Runs `cleanup` after this test file (its after-hooks), whether or not a hook is running now. */
export function deferCleanup(cleanup: Cleanup): void {
  if (!hooked) {
    throw new Error(
      'deferCleanup needs infra/src/harness/file-cleanup-hook.ts in the project’s setupFiles (vitest.config.ts)',
    );
  }
  pending.push(cleanup);
}

/** Runs every deferred cleanup, last first; all of them run, and the first failure is thrown. */
export async function runDeferredCleanups(): Promise<void> {
  const failures: unknown[] = [];
  for (let cleanup = pending.pop(); cleanup; cleanup = pending.pop()) {
    try {
      await cleanup();
    } catch (err) {
      failures.push(err);
    }
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, `${failures.length} cleanups failed after the file`);
}
