import { Scope } from '@nrad/service-kit';
import { describe, expect, it } from 'vitest';
import type { UploadStore } from '../src/data/uploads.ts';

/**
 * The upload store reads and writes within a Scope only (docs/adr/0020). Checked by the compiler
 * (`tsc -p .`, npm test's typecheck): each `@ts-expect-error` must be an error, so a scope
 * parameter removed makes its directive unused and the typecheck fail.
 */
function unscoped(store: UploadStore) {
  // @ts-expect-error a read by id takes a Scope
  void store.get('u');
  // @ts-expect-error the file takes a Scope
  void store.file('u');
  // @ts-expect-error progress takes a Scope
  void store.progress('u', { state: 'failed' });
  // @ts-expect-error deleting the file takes a Scope
  void store.deleteFile('u');
  // @ts-expect-error an agency's jobs under way take a Scope
  void store.activeCount();
  // @ts-expect-error the sweep of kept files takes a Scope
  void store.sweep(new Date());
  // @ts-expect-error an object literal claiming every agency is not a Scope
  void store.get({ kind: 'all' }, 'u');
}

function scoped(store: UploadStore) {
  void store.get(Scope.agency('CUS'), 'u');
  void store.progress(Scope.agency('CUS'), 'u', { state: 'failed' });
}

describe('the upload store without a scope', () => {
  it('does not compile (see the typecheck step); with one it does', () => {
    for (const f of [unscoped, scoped]) expect(f).toBeTypeOf('function');
  });
});
