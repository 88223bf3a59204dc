import Router from '@koa/router';
import {
  NEXT_CURSOR_HEADER,
  type PageQuery,
  PageQuerySchema,
  type RecordImportPlan,
  RecordImportPlanRequestSchema,
  RecordImportRequestSchema,
  type RecordImportResponse,
  routes,
  TOTAL_COUNT_HEADER,
  type UserIdentity,
} from '@nrad/contracts';
import {
  type AuditActor,
  actorOf,
  adminOf,
  forbidden,
  mountRoute,
  parse,
  requireOnBehalf,
  type ServiceState,
  scopeOf,
  unauthenticated,
  userOf,
  validationError,
} from '@nrad/service-kit';
import type Koa from 'koa';
import type { DropdownRepository } from '../data/dropdowns.ts';
import type { Page } from '../data/records.ts';
import * as dropdowns from '../use-cases/dropdowns.ts';
import { checkRows, importRecords } from '../use-cases/import.ts';
import { ProbesSpentError, planImport } from '../use-cases/probes.ts';
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

/** Records which records a list page answered (`record.list`), before it is answered. */
async function auditPage(
  deps: records.RecordDeps,
  actor: AuditActor,
  page: Page<{ id: string }>,
  list: 'active' | 'deleted' | 'all agencies',
) {
  await deps.audit.record(
    actor,
    'record.list',
    page.items.map((r) => r.id),
    { list },
  );
}

/** `?purpose=edit`: the record is read for its edit form (audited apart from a read of its details). */
function purposeOf(ctx: Ctx): 'read' | 'edit' {
  const purpose = ctx.query.purpose;
  if (purpose === undefined || purpose === 'read') return 'read';
  if (purpose === 'edit') return 'edit';
  throw validationError('purpose: must be read or edit');
}

function sendRecord(ctx: Ctx, record: { version: number }, status = 200) {
  ctx.status = status;
  ctx.set('ETag', `"${record.version}"`);
  ctx.body = record;
}

/** The records paths of SPEC §7 (ARCHITECTURE.md "Route ownership"). */
export function apiRoutes(deps: records.RecordDeps & { dropdowns: DropdownRepository }) {
  const router = new Router<ServiceState>({ prefix: '/api' });

  // A spent budget of incident-number probes (docs/adr/0015): 429 says when to try again.
  router.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (err instanceof ProbesSpentError) ctx.set('Retry-After', String(err.retryAfter));
      throw err;
    }
  });

  mountRoute(router, routes.records.list, async (ctx) => {
    const page = paging(ctx);
    const found = await records.listRecords(deps, userOf(ctx.state), page);
    await auditPage(deps, actorOf(ctx), found, 'active');
    sendPage(ctx, found, page.limit);
  });

  mountRoute(router, routes.records.create, async (ctx) => {
    const record = await records.createRecord(deps, userOf(ctx.state), actorOf(ctx), ctx.request.body);
    ctx.set('Location', `/api/records/${record.id}`);
    sendRecord(ctx, record, 201);
  });

  mountRoute(router, routes.records.deleted, async (ctx) => {
    const page = paging(ctx);
    const found = await records.listDeletedRecords(deps, userOf(ctx.state), page);
    await auditPage(deps, actorOf(ctx), found, 'deleted');
    sendPage(ctx, found, page.limit);
  });

  mountRoute(router, routes.records.search, async (ctx) => {
    const page = paging(ctx);
    const found = await records.searchRecords(deps, userOf(ctx.state), actorOf(ctx), ctx.request.body, page);
    sendPage(ctx, found, page.limit);
  });

  mountRoute(router, routes.records.get, async (ctx) => {
    const user = userOf(ctx.state);
    sendRecord(ctx, await records.getRecord(deps, user, actorOf(ctx), ctx.params.id, purposeOf(ctx)));
  });

  mountRoute(router, routes.records.update, async (ctx) => {
    const user = userOf(ctx.state);
    const ifMatch = ctx.get('If-Match') || undefined;
    const updated = await records.updateRecord(deps, user, actorOf(ctx), ctx.params.id, ctx.request.body, ifMatch);
    sendRecord(ctx, updated);
  });

  mountRoute(router, routes.records.delete, async (ctx) => {
    sendRecord(ctx, await records.deleteRecord(deps, userOf(ctx.state), actorOf(ctx), ctx.params.id));
  });

  mountRoute(router, routes.records.restore, async (ctx) => {
    sendRecord(ctx, await records.restoreRecord(deps, userOf(ctx.state), actorOf(ctx), ctx.params.id));
  });

  mountRoute(router, routes.records.adminList, async (ctx) => {
    const everyAgency = scopeOf(adminOf(ctx.state));
    const page = paging(ctx);
    const found = await records.listAllRecords(deps, everyAgency, page);
    await auditPage(deps, actorOf(ctx), found, 'all agencies');
    sendPage(ctx, found, page.limit);
  });

  mountRoute(router, routes.records.options, async (ctx) => {
    userOf(ctx.state);
    return await dropdowns.listOptions(deps.dropdowns, ctx.params.type);
  });

  mountRoute(router, routes.records.replaceOptions, async (ctx) => {
    const admin = adminOf(ctx.state);
    const type = ctx.params.type;
    const saved = await dropdowns.replaceOptions(deps.dropdowns, admin, type, ctx.request.body);
    ctx.body = saved;
    // After the change (the option lists have no outbox): a crash in between loses this event only.
    await deps.audit.record(actorOf(ctx), 'options.update', [], { list: type });
  });

  return router;
}

/** The path the ingest worker creates a batch upload's rows through (ARCHITECTURE.md "Queues"). */
export const IMPORT_PATH = '/internal/records/import';
/** The path the ingest worker asks an upload's plan at, before its rows (docs/adr/0015). */
export const IMPORT_PLAN_PATH = '/internal/records/import-plan';

/**
 * Paths only other services call; the gateway never routes /internal from outside. The import's
 * JSON body may be large (up to `RECORD_IMPORT_MAX_ITEMS` rows). The ingest service alone calls
 * them, on the uploader's behalf with the gateway's grant for the upload (issue 37): the owner is
 * the user the gateway signed for, and a body naming anyone else is refused — the ingest service
 * cannot create records as a user who did not upload them.
 */
export function internalRoutes(deps: records.RecordDeps) {
  const router = new Router<ServiceState>({ prefix: '/internal' });
  router.use(requireOnBehalf(['ingest']));

  mountRoute(router, routes.records.import, async (ctx) => {
    const body = parse(RecordImportRequestSchema, ctx.request.body);
    const owner = grantedOwner(ctx.state, body.owner);
    // The uploader is the actor; the ingest worker's request carries the upload's request id.
    const actor: AuditActor = {
      userId: owner.userId,
      organization: owner.organization,
      requestId: ctx.state.requestId,
      clientAddress: null,
    };
    // One read of the option lists for both: the rows to create and those only to check.
    const lists = await records.optionLists(deps);
    const results = await importRecords(deps, { owner, items: body.items, actor }, lists);
    return {
      results,
      ...(body.check ? { checked: checkRows(body.check, lists) } : {}),
    } satisfies RecordImportResponse;
  });

  mountRoute(router, routes.records.importPlan, async (ctx) => {
    const { owner: named, uploadId, rows } = parse(RecordImportPlanRequestSchema, ctx.request.body);
    const owner = grantedOwner(ctx.state, named);
    const actor: AuditActor = {
      userId: owner.userId,
      organization: owner.organization,
      requestId: ctx.state.requestId,
      clientAddress: null,
    };
    return (await planImport(deps, { owner, uploadId, rows, actor })) satisfies RecordImportPlan;
  });

  return router;
}

/**
 * The owner of an import: the user the gateway's grant names (requireOnBehalf), who must be the
 * one the body names; else 403.
 */
function grantedOwner(state: ServiceState, named: UserIdentity): UserIdentity {
  const granted = state.identity;
  if (granted?.kind !== 'user') throw unauthenticated();
  if (granted.userId !== named.userId || granted.organization !== named.organization) {
    throw forbidden('The import names another owner than the upload’s.');
  }
  return granted;
}
