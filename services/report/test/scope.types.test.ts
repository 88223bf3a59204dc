import { Scope } from '@nrad/service-kit';
import type { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import type { ReportDoc, ReportStore } from '../src/data/reports.ts';

/**
 * The report store reads and writes within a Scope only (docs/adr/0020). Checked by the compiler
 * (`tsc -p .`, npm test's typecheck): each `@ts-expect-error` must be an error, so a scope
 * parameter removed makes its directive unused and the typecheck fail.
 */
function unscoped(store: ReportStore, id: Types.ObjectId, doc: ReportDoc) {
  // @ts-expect-error a read by id takes a Scope
  void store.get(id);
  // @ts-expect-error the list takes a Scope, not an organization
  void store.list('FIA', 10, 0);
  // @ts-expect-error a save takes a Scope
  void store.save(doc);
  // @ts-expect-error an object literal claiming every agency is not a Scope
  void store.list({ kind: 'all' }, 10, 0);
}

function scoped(store: ReportStore, id: Types.ObjectId) {
  void store.get(Scope.agency('FIA'), id);
  void store.list(Scope.agency('CUS'), 10, 0);
}

describe('the report store without a scope', () => {
  it('does not compile (see the typecheck step); with one it does', () => {
    for (const f of [unscoped, scoped]) expect(f).toBeTypeOf('function');
  });
});
