import { Scope, scopeOf } from '@nrad/service-kit';
import type { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import type { RecordDoc, RecordRepository } from '../src/data/records.ts';

/**
 * The records repository's agency data is read and written within a Scope only (docs/adr/0020).
 * Checked by the compiler (`tsc -p .`, the typecheck step of `npm test`; this folder is in the
 * workspace's tsconfig): every `@ts-expect-error` below must be an error. Should a method lose its
 * scope parameter, its call without one compiles, the directive is unused, and the typecheck fails.
 * Never called: the calls are for the compiler.
 */
function unscopedCalls(repo: RecordRepository, id: Types.ObjectId, doc: RecordDoc) {
  // @ts-expect-error a read by id takes a Scope
  void repo.findById(id);
  // @ts-expect-error a read by ids takes a Scope
  void repo.findByIds([id]);
  // @ts-expect-error a page takes a Scope
  void repo.page({ deleted: false }, 10, undefined, 'createdAt');
  // @ts-expect-error a count takes a Scope
  void repo.count({ deleted: false });
  // @ts-expect-error a name search's candidates take a Scope
  void repo.nameCandidates({ deleted: false }, 'createdAt');
  // @ts-expect-error an insert takes a Scope
  void repo.insert(doc);
  // @ts-expect-error a change takes a Scope
  void repo.updateAtVersion(id, 1, { suspectName: 'X' }, []);
}

function forgedScopes(repo: RecordRepository, id: Types.ObjectId) {
  // @ts-expect-error an object literal claiming every agency is not a Scope
  void repo.findById({ kind: 'all' }, id);
  const lookAlike = {
    isAll: true,
    reason: null,
    organizations: ['BPS', 'FIA', 'CUS'] as const,
    includes: () => true,
    agencyOr: <T>(all: T) => all,
    filter: () => ({}),
  };
  // @ts-expect-error nor is an object with every public member of one (the class has a private field)
  void repo.page(lookAlike, { deleted: false }, 10, undefined, 'createdAt');
  // @ts-expect-error only the kit makes a Scope (its constructor is private)
  void new Scope(null, null);
}

function scopedCalls(repo: RecordRepository, id: Types.ObjectId) {
  const scope = scopeOf({ organization: 'BPS' });
  void repo.findById(scope, id);
  void repo.page(scope, { deleted: false }, 10, undefined, 'createdAt');
  void repo.count(Scope.system('a service job'), { deleted: true });
}

describe('the records repository without a scope', () => {
  it('does not compile (see the typecheck step); the calls with one do', () => {
    for (const f of [unscopedCalls, forgedScopes, scopedCalls]) expect(f).toBeTypeOf('function');
  });
});
