import Router from '@koa/router';
import {
  NEXT_CURSOR_HEADER,
  type PageQuery,
  PageQuerySchema,
  RecordImportRequestSchema,
  type RecordImportResponse,
  TOTAL_COUNT_HEADER,
} from '@nrad/contracts';
import { adminOf, parse, requireServiceCaller, type ServiceState, userOf } from '@nrad/service-kit';
import type Koa from 'koa';
import type { DropdownRepository } from '../data/dropdowns.ts';
import type { Page } from '../data/records.ts';
import * as dropdowns from '../use-cases/dropdowns.ts';
import { importRecords } from '../use-cases/import.ts';
import * as records from '../use-cases/records.ts';

type Ctx = Koa.ParameterizedContext<ServiceState>;

function paging(ctx: Ctx): PageQuery {
  return parse(PageQuerySchema, { limit: ctx.query.limit, cursor: ctx.query.cursor });
}

/** The body stays a list (SPEC §7); the total and the next page travel in headers. */
function sendPage<T>(ctx: Ctx, page: Page<T>, limit: number) {
  ctx.set(TOTAL_COUNT_HEADER, String(page.total));
  if (page.nextCursor) {
    ctx.set(NEXT_CURSOR_HEADER, page.nextCursor);
    const next = new URLSearchParams({ limit: String(limit), cursor: page.nextCursor });
    ctx.set('Link', `<${ctx.path}?${next}>; rel="next"`);
  }
  ctx.body = page.items;
}

function sendRecord(ctx: Ctx, record: { version: number }, status = 200) {
  ctx.status = status;
  ctx.set('ETag', `"${record.version}"`);
  ctx.body = record;
}

/** The records paths of SPEC §7 (ARCHITECTURE.md "Route ownership"). */
export function apiRoutes(deps: records.RecordDeps & { dropdowns: DropdownRepository }) {
  const router = new Router<ServiceState>({ prefix: '/api' });

  router.get('/records', async (ctx) => {
    const page = paging(ctx);
    sendPage(ctx, await records.listRecords(deps, userOf(ctx.state), page), page.limit);
  });

  router.post('/records', async (ctx) => {
    const record = await records.createRecord(deps, userOf(ctx.state), ctx.request.body);
    ctx.set('Location', `/api/records/${record.id}`);
    sendRecord(ctx, record, 201);
  });

  router.get('/records/deleted', async (ctx) => {
    const page = paging(ctx);
    sendPage(ctx, await records.listDeletedRecords(deps, userOf(ctx.state), page), page.limit);
  });

  router.post('/records/search', async (ctx) => {
    const page = paging(ctx);
    sendPage(ctx, await records.searchRecords(deps, userOf(ctx.state), ctx.request.body, page), page.limit);
  });

  router.get('/records/:id', async (ctx) => {
    sendRecord(ctx, await records.getRecord(deps, userOf(ctx.state), ctx.params.id ?? ''));
  });

  router.put('/records/:id', async (ctx) => {
    const user = userOf(ctx.state);
    const ifMatch = ctx.get('If-Match') || undefined;
    sendRecord(ctx, await records.updateRecord(deps, user, ctx.params.id ?? '', ctx.request.body, ifMatch));
  });

  router.delete('/records/:id', async (ctx) => {
    sendRecord(ctx, await records.deleteRecord(deps, userOf(ctx.state), ctx.params.id ?? ''));
  });

  router.post('/records/:id/restore', async (ctx) => {
    sendRecord(ctx, await records.restoreRecord(deps, userOf(ctx.state), ctx.params.id ?? ''));
  });

  router.get('/admin/records', async (ctx) => {
    adminOf(ctx.state);
    const page = paging(ctx);
    sendPage(ctx, await records.listAllRecords(deps, page), page.limit);
  });

  router.get('/dropdown-options/:type', async (ctx) => {
    userOf(ctx.state);
    ctx.body = await dropdowns.listOptions(deps.dropdowns, ctx.params.type ?? '');
  });

  router.put('/dropdown-options/:type', async (ctx) => {
    const admin = adminOf(ctx.state);
    ctx.body = await dropdowns.replaceOptions(deps.dropdowns, admin, ctx.params.type ?? '', ctx.request.body);
  });

  return router;
}

/** The path the ingest worker creates a batch upload's rows through (ARCHITECTURE.md "Queues"). */
export const IMPORT_PATH = '/internal/records/import';

/**
 * Paths only other services call (service identity); the gateway never routes /internal from
 * outside. The import's JSON body may be large (up to `RECORD_IMPORT_MAX_ITEMS` rows).
 */
export function internalRoutes(deps: records.RecordDeps) {
  const router = new Router<ServiceState>({ prefix: '/internal' });
  router.use(requireServiceCaller());

  router.post('/records/import', async (ctx) => {
    const { owner, items } = parse(RecordImportRequestSchema, ctx.request.body);
    ctx.body = { results: await importRecords(deps, { owner, items }) } satisfies RecordImportResponse;
  });

  return router;
}
