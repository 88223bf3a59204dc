import { describe, expect, it } from 'vitest';
import { deferCleanup, runDeferredCleanups } from './file-cleanup.ts';

describe('deferred cleanups', () => {
  it('run last deferred first, and are gone once run', async () => {
    const ran: string[] = [];
    deferCleanup(() => ran.push('namespace'));
    deferCleanup(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      ran.push('stack');
    });
    await runDeferredCleanups();
    expect(ran).toEqual(['stack', 'namespace']);
    await runDeferredCleanups();
    expect(ran).toEqual(['stack', 'namespace']);
  });

  it('all run when one fails, and the failure is thrown', async () => {
    const ran: string[] = [];
    deferCleanup(() => ran.push('first'));
    deferCleanup(() => {
      throw new Error('the stack would not stop');
    });
    deferCleanup(() => ran.push('last'));
    await expect(runDeferredCleanups()).rejects.toThrow('the stack would not stop');
    expect(ran).toEqual(['last', 'first']);

    deferCleanup(() => Promise.reject(new Error('one')));
    deferCleanup(() => Promise.reject(new Error('two')));
    await expect(runDeferredCleanups()).rejects.toThrow('2 cleanups failed after the file');
  });
});
