import { Scope } from '@nrad/service-kit';
import { describe, expect, it } from 'vitest';
import type { RecordOwners } from '../src/data/owners.ts';
import type { AuditStore } from '../src/data/store.ts';

/**
 * The audit trail's reads of agency data take a Scope (docs/adr/0020). Checked by the compiler
 * (`tsc -p .`, npm test's typecheck): each `@ts-expect-error` must be an error, so a scope
 * parameter removed makes its directive unused and the typecheck fail.
 */
function unscoped(store: AuditStore, owners: RecordOwners) {
  // @ts-expect-error a page of the trail takes a Scope
  void store.page({ recordId: 'r' }, 10, 0);
  // @ts-expect-error a record's owner is looked up within a Scope
  void owners.ownerOf('r');
  // @ts-expect-error an object literal claiming every agency is not a Scope
  void store.page({ kind: 'all' }, {}, 10, 0);
}

function scoped(store: AuditStore, owners: RecordOwners) {
  void store.page(Scope.agency('BPS'), { recordId: 'r' }, 10, 0);
  void owners.ownerOf(Scope.agency('BPS'), 'r');
}

describe('the audit store without a scope', () => {
  it('does not compile (see the typecheck step); with one it does', () => {
    for (const f of [unscoped, scoped]) expect(f).toBeTypeOf('function');
  });
});
