import { describe, expect, it } from 'vitest';
import { activeItem, navigationItems } from './navigation.ts';

describe('navigationItems', () => {
  it('is SPEC §2’s navigation while nothing awaits review; Admin only for ADMIN', () => {
    expect(navigationItems('BPS').map((i) => i.label)).toEqual(['Dashboard', 'Add Record', 'Batch Upload', 'Search']);
    expect(navigationItems('ADMIN', 0).map((i) => i.label)).toEqual([
      'Dashboard',
      'Add Record',
      'Batch Upload',
      'Search',
      'Admin',
    ]);
  });

  it('adds Review with its count while possible matches await the user, and while the user is on it', () => {
    expect(navigationItems('FIA', 3).at(-1)).toEqual({ key: '/review', label: 'Review', count: 3 });
    expect(navigationItems('ADMIN', 2).map((i) => i.key)).toEqual([
      '/',
      '/records',
      '/batch-upload',
      '/search',
      '/review',
      '/admin',
    ]);
    expect(navigationItems('CUS', 0, true).at(-1)).toEqual({ key: '/review', label: 'Review' });
    expect(activeItem('/review')).toBe('/review');
    expect(activeItem('/review/')).toBe('/review');
  });
});
