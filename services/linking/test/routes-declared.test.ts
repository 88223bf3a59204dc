import { routesOwnedBy } from '@nrad/contracts';
import { declaredRoutes, mountedRoutes } from '@nrad/service-kit';
import { describe, expect, it } from 'vitest';
import { apiRoutes } from '../src/http/routes.ts';

describe('the linking service routes (docs/adr/0019)', () => {
  it('mount each declared route once, and nothing undeclared', () => {
    const mounted = mountedRoutes(apiRoutes({} as never));
    expect(mounted.sort()).toEqual(declaredRoutes(routesOwnedBy('linking')).sort());
  });
});
