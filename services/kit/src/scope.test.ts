import { describe, expect, it } from 'vitest';
import { Scope, scopeOf, scopeOfRequest } from './scope.ts';

const user = (organization: 'BPS' | 'FIA' | 'CUS' | 'ADMIN') => ({
  kind: 'user' as const,
  userId: '0123456789abcdef01234567',
  name: 'N',
  organization,
  role: 'user',
});

describe('Scope', () => {
  it('is one agency for an agency user', () => {
    const s = scopeOf(user('FIA'));
    expect(s.isAll).toBe(false);
    expect(s.organizations).toEqual(['FIA']);
    expect(s.includes('FIA')).toBe(true);
    expect(s.includes('BPS')).toBe(false);
    expect(s.includes('ADMIN')).toBe(false);
    expect(s.includes(undefined)).toBe(false);
    expect(s.filter()).toEqual({ organization: 'FIA' });
    expect(s.filter('owner')).toEqual({ owner: 'FIA' });
    expect(s.agencyOr('ALL')).toBe('FIA');
    expect(String(s)).toBe('FIA');
    expect(s.owns('FIA')).toBe(true);
    expect(s.owns('ADMIN')).toBe(false);
    expect(s.ownFilter()).toEqual({ organization: 'FIA' });
  });

  it('is every agency for ADMIN', () => {
    const s = scopeOf(user('ADMIN'));
    expect(s.isAll).toBe(true);
    expect(s.organizations).toEqual(['BPS', 'FIA', 'CUS']);
    expect(s.includes('CUS')).toBe(true);
    expect(s.includes('ADMIN')).toBe(true);
    expect(s.filter()).toEqual({});
    expect(s.agencyOr('ALL')).toBe('ALL');
    // What an organization keeps to itself (a report) stays ADMIN's own.
    expect(s.owns('ADMIN')).toBe(true);
    expect(s.owns('BPS')).toBe(false);
    expect(s.ownFilter()).toEqual({ organization: 'ADMIN' });
  });

  it('is every agency for a named service job only', () => {
    const s = Scope.system('stats rebuild');
    expect(s.isAll).toBe(true);
    expect(s.reason).toBe('stats rebuild');
    expect(String(s)).toBe('system(stats rebuild)');
    expect(s.owns('CUS')).toBe(true);
    expect(s.ownFilter()).toEqual({});
    expect(() => Scope.system(' ')).toThrow();
  });

  it('comes from a request only for a signed-in user', () => {
    expect(scopeOfRequest({ identity: user('CUS') }).organizations).toEqual(['CUS']);
    expect(() => scopeOfRequest({ identity: { kind: 'service', service: 'gateway' } })).toThrow();
    expect(() => scopeOfRequest({})).toThrow();
  });

  it('cannot be forged', () => {
    // @ts-expect-error the constructor is private
    const made = () => new Scope(null, null, null);
    // @ts-expect-error an object of the same shape is not a Scope (private field)
    const forged: Scope = { isAll: true, organizations: [], organization: null, reason: null };
    expect(typeof made).toBe('function');
    expect(forged.isAll).toBe(true);
  });
});
