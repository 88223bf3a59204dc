import { Scope } from '@nrad/service-kit';
import { describe, expect, it } from 'vitest';
import { adminStatsOf, type StatsModel } from '../src/domain/figures.ts';

/**
 * The figures are read within a Scope only (docs/adr/0020): null no longer means every agency.
 * Checked by the compiler (`tsc -p .`, npm test's typecheck): each `@ts-expect-error` must be an
 * error, so a scope parameter removed makes its directive unused and the typecheck fail.
 */
function unscoped(model: StatsModel) {
  // @ts-expect-error null is not every agency: a Scope says so
  void model.figures(null);
  // @ts-expect-error an agency code is not a Scope
  void model.figures('BPS');
  // @ts-expect-error an object literal claiming every agency is not a Scope
  void model.figures({ kind: 'all' });
  // @ts-expect-error the admin figures take a Scope
  void adminStatsOf(model);
}

function scoped(model: StatsModel) {
  void model.figures(Scope.agency('BPS'));
  void adminStatsOf(model, Scope.system('a service job'));
}

describe('the stats figures without a scope', () => {
  it('do not compile (see the typecheck step); with one they do', () => {
    for (const f of [unscoped, scoped]) expect(f).toBeTypeOf('function');
  });
});
