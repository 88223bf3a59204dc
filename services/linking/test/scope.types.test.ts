import { Scope } from '@nrad/service-kit';
import { describe, expect, it } from 'vitest';
import type { LinkingStore } from '../src/data/store.ts';
import type { LinkRegistry } from '../src/domain/link-registry.ts';

/**
 * Linking's whole-store reads and its registry's view of active links take a Scope
 * (docs/adr/0020). Checked by the compiler (`tsc -p .`, npm test's typecheck): each
 * `@ts-expect-error` must be an error, so a scope parameter removed makes its directive unused and
 * the typecheck fail.
 */
function unscoped(store: LinkingStore, links: LinkRegistry) {
  // @ts-expect-error the index's records are read within a Scope
  void store.allRecords();
  // @ts-expect-error the links are read within a Scope
  void store.allLinks();
  // @ts-expect-error the active links are seen within a Scope
  void links.active();
  // @ts-expect-error an object literal claiming every agency is not a Scope
  void links.active({ kind: 'all' });
}

function scoped(store: LinkingStore, links: LinkRegistry) {
  void store.allRecords(Scope.system('a service job'));
  void links.active(Scope.agency('FIA'));
}

describe('the linking store and registry without a scope', () => {
  it('do not compile (see the typecheck step); with one they do', () => {
    for (const f of [unscoped, scoped]) expect(f).toBeTypeOf('function');
  });
});
