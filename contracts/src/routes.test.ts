import { describe, expect, it } from 'vitest';
import { openApiDocument } from './openapi.ts';
import {
  ALL_ROUTES,
  compareTemplates,
  fillPath,
  koaPath,
  matchesTemplate,
  routes,
  routesOwnedBy,
  SERVICE_NAMES,
} from './routes.ts';

describe('route declarations', () => {
  it('declare each method and path once', () => {
    const keys = ALL_ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('give each path template one owner (the gateway routes by path)', () => {
    const owners = new Map<string, Set<string>>();
    for (const r of ALL_ROUTES) owners.set(r.path, (owners.get(r.path) ?? new Set()).add(r.owner));
    for (const [path, set] of owners) expect([path, set.size]).toEqual([path, 1]);
  });

  it('keep /internal for services and /api for the rest', () => {
    for (const r of ALL_ROUTES) {
      expect(r.path.startsWith('/internal/') ? r.access === 'service' : r.path.startsWith('/api/')).toBe(true);
      if (r.owner === 'gateway') expect(r.path.startsWith('/api/')).toBe(true);
    }
  });

  it('name the declared path parameters in the path', () => {
    for (const r of ALL_ROUTES) {
      const names = [...r.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);
      for (const name of Object.keys(r.params?.shape ?? {})) expect(names).toContain(name);
    }
  });

  it('give every service routes of its own', () => {
    for (const service of SERVICE_NAMES) expect(routesOwnedBy(service).length).toBeGreaterThan(0);
    expect(routesOwnedBy('gateway').map((r) => r.path)).toContain('/api/auth/login');
  });
});

describe('path templates', () => {
  it('convert to Koa paths and fill in', () => {
    expect(koaPath('/api/records/{id}/links/{linkedId}')).toBe('/api/records/:id/links/:linkedId');
    expect(fillPath(routes.linking.restore.path, { id: 'a b', linkedId: 'c/d' })).toBe(
      '/api/records/a%20b/links/c%2Fd/restore',
    );
  });

  it('match one non-empty segment per parameter, literals exactly', () => {
    expect(matchesTemplate('/api/records/{id}', '/api/records/abc')).toBe(true);
    expect(matchesTemplate('/api/records/{id}', '/api/records/a%2Fb')).toBe(true);
    expect(matchesTemplate('/api/records/{id}', '/api/records/')).toBe(false);
    expect(matchesTemplate('/api/records/{id}', '/api/records/a/b')).toBe(false);
    expect(matchesTemplate('/api/records', '/api/Records')).toBe(false);
  });

  it('order literals before parameters', () => {
    const sorted = ['/api/records/{id}', '/api/records/deleted', '/api/records/{id}/links', '/api/records/link'].sort(
      compareTemplates,
    );
    expect(sorted.indexOf('/api/records/deleted')).toBeLessThan(sorted.indexOf('/api/records/{id}'));
    expect(sorted.indexOf('/api/records/link')).toBeLessThan(sorted.indexOf('/api/records/{id}'));
  });
});

describe('the OpenAPI document', () => {
  const doc = openApiDocument() as { openapi: string; paths: Record<string, Record<string, unknown>> };

  it('is OpenAPI 3.1 with every /api route and no /internal one', () => {
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
    const api = ALL_ROUTES.filter((r) => r.path.startsWith('/api/'));
    expect(operations.sort()).toEqual(api.map((r) => `${r.method.toLowerCase()} ${r.path}`).sort());
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/internal'))).toBe(false);
  });
});
