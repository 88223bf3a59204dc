/**
 * Mounting a declared route (docs/adr/0019): the route's method and path come from its declaration
 * in @nrad/contracts, never typed again here; the handler gets the path parameters the path names
 * and returns what the route answers (typed by its response schemas), or nothing when it sets the
 * body itself (a file, 204). The handler still parses its input with its own schemas and messages:
 * the declaration types and documents, it does not validate.
 */
import type { Router, RouterContext, RouterMiddleware } from '@koa/router';
import { koaPath, type PathParams, type RouteResponse, type RouteSpec } from '@nrad/contracts';
import type { z } from 'zod';

/** The context a declared route's handler gets: Koa's, with the path's parameters named. */
export type RouteContext<R extends RouteSpec, S extends object> = RouterContext<S> & { params: PathParams<R> };

/** A declared route's handler: its answer (set as the body), or undefined when it set the body itself. */
export type RouteHandler<R extends RouteSpec, S extends object> = (
  ctx: RouteContext<R, S>,
) => RouteResponse<R> | undefined | Promise<RouteResponse<R> | undefined>;

type Verb = 'get' | 'post' | 'put' | 'delete';

export interface MountOptions<S extends object> {
  /** Middleware to run before the handler (a body reader). */
  before?: RouterMiddleware<S>[];
  /** The prefix of the router this one is nested in (`/api` for a router of prefix `/auth`). */
  outer?: string;
}

/**
 * Registers `route` on `router` with the declaration's method and path (made relative to the
 * router's prefix, in Koa's `:id` form).
 */
export function mountRoute<R extends RouteSpec, S extends object>(
  router: Router<S>,
  route: R,
  handler: RouteHandler<R, S>,
  options: MountOptions<S> = {},
): void {
  const prefix = `${options.outer ?? ''}${router.opts.prefix ?? ''}`;
  if (!route.path.startsWith(`${prefix}/`)) {
    throw new Error(`${route.method} ${route.path} is not under the router's prefix ${prefix}`);
  }
  const path = koaPath(route.path.slice(prefix.length));
  const verb = route.method.toLowerCase() as Verb;
  router[verb](path, ...(options.before ?? []), async (ctx) => {
    const answer = await handler(ctx as RouteContext<R, S>);
    if (answer !== undefined) ctx.body = answer;
    if (checkAnswers) {
      checkAnswer(route, ctx.status, ctx.body);
      if (ctx.status >= 200 && ctx.status < 300) checkAccepted(route, ctx);
    }
  });
}

/**
 * In the test suite (`NRAD_CHECK_ANSWERS=1`, set by its global setup), every JSON answer of a
 * declared route is checked against the route's declared schema for its status, as the client
 * reads it (after JSON): a service that answers other than it declares fails the test that called
 * it, with a 500 and the difference in the log. Off in production: the declarations type the
 * handlers, the tests check them.
 */
const checkAnswers = process.env.NRAD_CHECK_ANSWERS === '1';

function checkAnswer(route: RouteSpec, status: number, body: unknown): void {
  const declared = route.responses[status];
  if (!declared?.schema || (declared.contentType && declared.contentType !== 'application/json')) return;
  if (body === undefined || body === null || Buffer.isBuffer(body)) return;
  if (typeof (body as { pipe?: unknown }).pipe === 'function') return; // a stream (a file)
  expectDeclared(route, `answered ${status}`, declared.schema, JSON.parse(JSON.stringify(body)));
}

/**
 * In the test suite too: a request the handler accepted (answered 2xx) must be one the declaration
 * allows — its path parameters, query and JSON body each parsed by the declared schema — or the
 * declaration (and the OpenAPI document made from it) says less than the service takes. The fast
 * tier (785 tests) found no such request when this check came (ADR 0019).
 */
function checkAccepted(route: RouteSpec, ctx: { params?: unknown; query: unknown; request: { body?: unknown } }): void {
  if (route.params) expectDeclared(route, 'accepted path parameters', route.params, ctx.params);
  if (route.query) expectDeclared(route, 'accepted query', route.query, ctx.query);
  // A DELETE's body may be left out (the OpenAPI document says so: contracts' openapi.ts).
  const body = ctx.request.body;
  if (route.body && route.bodyType !== 'multipart' && !(body === undefined && route.method === 'DELETE')) {
    expectDeclared(route, 'accepted body', route.body, body);
  }
}

/** Throws, naming the route and the first differences, when `value` is not what `schema` declares. */
function expectDeclared(route: RouteSpec, what: string, schema: z.ZodType, value: unknown): void {
  const parsed = schema.safeParse(value);
  if (parsed.success) return;
  const issues = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.map(String).join('.') || '(whole)'}: ${i.message}`)
    .join('; ');
  throw new Error(`${route.method} ${route.path} ${what} other than declared: ${issues}`);
}

/** `METHOD path` (declared form, `{id}`) of each route a router mounts under /api or /internal. */
export function mountedRoutes(
  ...routers: { stack: ReadonlyArray<{ path: string | RegExp; methods: string[] }> }[]
): string[] {
  const out: string[] = [];
  for (const router of routers) {
    for (const layer of router.stack) {
      if (typeof layer.path !== 'string' || layer.methods.length === 0) continue;
      if (!/^\/(api|internal)\//.test(layer.path)) continue;
      const path = layer.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      for (const method of layer.methods) if (method !== 'HEAD') out.push(`${method} ${path}`);
    }
  }
  return out;
}

/** `METHOD path` of each route declared for an owner. */
export function declaredRoutes(declared: readonly RouteSpec[]): string[] {
  return declared.map((r) => `${r.method} ${r.path}`);
}
