import Router from '@koa/router';
import { routes } from '@nrad/contracts';
import Koa from 'koa';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { jsonBody } from './app.ts';
import { declaredRoutes, mountedRoutes, mountRoute } from './routes.ts';

describe('mountRoute', () => {
  it("registers a declared route at its method and path under the router's prefix; the answer is the body", async () => {
    const router = new Router({ prefix: '/api' });
    const seen: unknown[] = [];
    mountRoute(router, routes.linking.linked, (ctx) => {
      seen.push(ctx.params);
      return [];
    });
    mountRoute(router, routes.linking.reject, (ctx) => {
      seen.push(ctx.params);
      ctx.status = 204;
      return undefined;
    });
    const app = new Koa().use(router.routes()).use(router.allowedMethods());
    const res = await request(app.callback()).get('/api/records/a/linked').expect(200);
    expect(res.body).toEqual([]);
    await request(app.callback()).delete('/api/records/a/links/b').expect(204);
    await request(app.callback()).post('/api/records/a/linked').expect(405);
    expect(seen).toEqual([{ id: 'a' }, { id: 'a', linkedId: 'b' }]);
    expect(mountedRoutes(router).sort()).toEqual(declaredRoutes([routes.linking.linked, routes.linking.reject]).sort());
  });

  it('answers 500 when an answer is other than declared for its status, in the test suite', async () => {
    expect(process.env.NRAD_CHECK_ANSWERS).toBe('1'); // set by the global setup
    const router = new Router({ prefix: '/api' });
    let answer: unknown = { id: 'a+b' };
    mountRoute(router, routes.linking.restore, (ctx) => {
      ctx.status = 200;
      return answer as never;
    });
    mountRoute(router, routes.stats.countries, () => answer as never);
    const app = new Koa().use(router.routes());
    app.silent = true;
    await request(app.callback()).post('/api/records/a/links/b/restore').expect(500);
    answer = [{ country: 'Bermuda', count: 2 }];
    const countries = await request(app.callback()).get(routes.stats.countries.path);
    expect(countries.status, countries.text).toBe(200);
    answer = [{ country: 'Bermuda', count: 'two' }];
    await request(app.callback()).get(routes.stats.countries.path).expect(500);
  });

  it('answers 500 when a handler accepts a query or body other than declared, in the test suite', async () => {
    const router = new Router({ prefix: '/api' });
    // Lax handlers: they accept whatever comes (202 and 204 carry no declared answer to check).
    mountRoute(router, routes.records.get, (ctx) => {
      ctx.status = 202;
      return undefined;
    });
    mountRoute(
      router,
      routes.linking.reject,
      (ctx) => {
        ctx.status = 204;
        return undefined;
      },
      { before: [jsonBody({ limit: '1kb' })] },
    );
    const app = new Koa().use(router.routes());
    app.silent = true;
    await request(app.callback()).get('/api/records/a?purpose=edit').expect(202);
    await request(app.callback()).get('/api/records/a?purpose=print').expect(500);
    await request(app.callback()).delete('/api/records/a/links/b').expect(204);
    await request(app.callback()).delete('/api/records/a/links/b').send({ reason: 'not the same' }).expect(204);
    await request(app.callback()).delete('/api/records/a/links/b').send({ why: 'not the same' }).expect(500);
  });

  it("refuses a route outside the router's prefix, and takes a parent router's prefix", () => {
    expect(() => mountRoute(new Router({ prefix: '/internal' }), routes.records.get, () => undefined)).toThrow(
      /not under the router's prefix/,
    );
    const nested = new Router({ prefix: '/auth' });
    mountRoute(nested, routes.session.user, () => undefined, { outer: '/api' });
    expect(nested.stack.map((layer) => layer.path)).toEqual(['/auth/user']);
  });
});
