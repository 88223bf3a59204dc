import Router from '@koa/router';
import { routes } from '@nrad/contracts';
import Koa from 'koa';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { declaredRoutes, mountedRoutes, mountRoute } from './routes.ts';

describe('mountRoute', () => {
  it("registers a declared route at its method and path under the router's prefix; the answer is the body", async () => {
    const router = new Router({ prefix: '/api' });
    mountRoute(router, routes.linking.restore, (ctx) => {
      ctx.status = 200;
      return {
        id: `${ctx.params.id}+${ctx.params.linkedId}`,
      } as never;
    });
    mountRoute(router, routes.linking.reject, (ctx) => {
      ctx.status = 204;
      return undefined;
    });
    const app = new Koa().use(router.routes()).use(router.allowedMethods());
    const res = await request(app.callback()).post('/api/records/a/links/b/restore').expect(200);
    expect(res.body).toEqual({ id: 'a+b' });
    await request(app.callback()).delete('/api/records/a/links/b').expect(204);
    await request(app.callback()).get('/api/records/a/links/b/restore').expect(405);
    expect(mountedRoutes(router).sort()).toEqual(
      declaredRoutes([routes.linking.restore, routes.linking.reject]).sort(),
    );
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
