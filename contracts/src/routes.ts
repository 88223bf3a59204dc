/**
 * Every route of the API, declared once (docs/adr/0019): method, path, who may call it, which
 * service owns it, its parameters, body and answers, and the gateway's per-route extras. The
 * gateway derives its routing table from these, each service mounts its handlers by them
 * (`mountRoute` of the kit), the frontends call them (`callApi` of @nrad/shared) and the OpenAPI
 * document is generated from them (openapi.ts). A test of each service fails when a declared
 * route is not mounted exactly once or a mounted one is not declared.
 *
 * Paths are written `/api/records/{id}` (OpenAPI's form); a `{name}` segment is a path parameter.
 * Schemas document and type; each service still parses its input itself, with its own messages.
 */
import { z } from 'zod';
import {
  ContactRequestListSchema,
  ContactRequestPageQuerySchema,
  ContactRequestResolvedSchema,
  OperationsSchema,
  SignInLocksSchema,
} from './admin.ts';
import { AuditPageSchema, AuditQuerySchema } from './audit.ts';
import {
  ContactAdminRequestSchema,
  ContactAdminResponseSchema,
  LoginRequestSchema,
  LogoutResponseSchema,
  RegisterRequestSchema,
  RegisterResponseSchema,
  UpdateNameRequestSchema,
  UserResponseSchema,
  VerifyCredentialsRequestSchema,
  VerifyCredentialsResponseSchema,
} from './auth.ts';
import {
  BatchUploadAcceptedSchema,
  BatchUploadResultSchema,
  IngestJobSchema,
  RecordImportPlanRequestSchema,
  RecordImportPlanSchema,
  RecordImportRequestSchema,
  RecordImportResponseSchema,
} from './ingest.ts';
import {
  CheckMatchesResponseSchema,
  CheckMatchesSchema,
  CreateLinkSchema,
  LINKING_STATE_HEADER,
  LinkedRecordSummarySchema,
  LinkSchema,
  LinkSummarySchema,
  RecordLinkViewSchema,
  RejectLinkSchema,
} from './links.ts';
import {
  LabelFiguresSchema,
  PossibleMatchCountSchema,
  PossibleMatchPageQuerySchema,
  PossibleMatchPageSchema,
  RejectPossibleMatchSchema,
} from './possible-matches.ts';
import {
  AdminRecordSchema,
  DropdownOptionSchema,
  DropdownTypeSchema,
  NEXT_CURSOR_HEADER,
  PageQuerySchema,
  RecordInputSchema,
  RecordSchema,
  RecordSearchSchema,
  RecordUpdateSchema,
  TOTAL_COUNT_HEADER,
  UpdateDropdownOptionsSchema,
} from './records.ts';
import {
  GeneratedReportSchema,
  GenerateReportSchema,
  ReportAcceptedSchema,
  ReportJobSchema,
  ReportListSchema,
  ReportPageQuerySchema,
  ReportSchema,
} from './reports.ts';
import { AdminStatsSchema, CountryStatsSchema, DashboardStatsSchema, StatsBreakdownSchema } from './stats.ts';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** The services behind the gateway (each owns its routes). */
export const SERVICE_NAMES = ['auth', 'records', 'linking', 'stats', 'ingest', 'report', 'ops', 'audit'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
/** Who answers a route: a service, or the gateway itself (sessions, health, the OpenAPI document). */
export type RouteOwner = ServiceName | 'gateway';

/**
 * Who may call a route: `public` — anyone, signed in or not; `user` — any signed-in user (an
 * agency's or ADMIN); `agency` — a signed-in user of an agency (not ADMIN); `admin` — ADMIN only;
 * `service` — another service with a service identity (`/internal/...`, never routed from outside).
 */
export type RouteAccess = 'public' | 'user' | 'agency' | 'admin' | 'service';

/**
 * The per-user limits (issue 34): each signed-in user's requests of a kind per minute, counted by
 * the gateway in Redis (GatewayConfig's USER_LIMIT_*).
 */
export type UserLimitName = 'namlc-checks' | 'link-attempts' | 'searches' | 'list-pages';
/** Requests per address per hour, counted by the gateway (GatewayConfig's numbers). */
export type AddressLimitName = 'registrations';

/** One answer of a route: JSON described by `schema`, or another media type (a file). */
export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Default `application/json` when there is a schema. */
  contentType?: string;
  /** Response headers worth naming (name → what it carries). */
  headers?: Readonly<Record<string, string>>;
}

export interface RouteSpec {
  method: HttpMethod;
  path: string;
  owner: RouteOwner;
  access: RouteAccess;
  summary: string;
  /** Path parameters' schemas (a parameter not named here is a string). */
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** How the body travels (default JSON). */
  bodyType?: 'json' | 'multipart';
  /** The answers by status (the first is the usual one). */
  responses: Readonly<Record<number, ResponseSpec>>;
  /** A list answered one page at a time: the items, X-Total-Count and X-Next-Cursor. */
  paged?: boolean;
  /** The per-user limit a request of this route counts against (gateway). */
  userLimit?: UserLimitName;
  /** The per-address limit a request of this route's path counts against (gateway). */
  addressLimit?: AddressLimitName;
  /**
   * The owner works later on the user's behalf (a job): the gateway sends it a grant for the user
   * with the request (service-kit identity.ts).
   */
  grant?: true;
}

/** Declares a route, keeping its literal types (method, path, schemas) for the helpers. */
function route<const R extends RouteSpec>(spec: R): R {
  return spec;
}

/** The names of a path template's parameters: `/api/records/{id}/links/{linkedId}` → id | linkedId. */
export type PathParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParamNames<Rest>
  : never;
/** A route's path parameters as strings. */
export type PathParams<R extends Pick<RouteSpec, 'path'>> = { [K in PathParamNames<R['path']>]: string };

type ResponseBodies<R extends RouteSpec> = {
  [S in keyof R['responses']]: R['responses'][S] extends { schema: infer T extends z.ZodType } ? z.output<T> : never;
}[keyof R['responses']];
/** What a route answers (the JSON of any of its answers), as the client reads it. */
export type RouteResponse<R extends RouteSpec> = R['paged'] extends true
  ? ResponseBodies<R> extends readonly (infer Item)[]
    ? Item[]
    : ResponseBodies<R>
  : ResponseBodies<R>;
/** A page of a paged route: its item type. */
export type RouteItem<R extends RouteSpec> = RouteResponse<R> extends readonly (infer Item)[] ? Item : never;
/** What a route's body is before its service parses it (what a client sends). */
export type RouteBody<R extends RouteSpec> = R['body'] extends z.ZodType ? z.input<R['body']> : never;
/** A route's query parameters as a client may send them. */
export type RouteQuery<R extends RouteSpec> = R['query'] extends z.ZodObject ? Partial<z.input<R['query']>> : never;

const json = <S extends z.ZodType>(description: string, schema: S, headers?: Record<string, string>) => ({
  description,
  schema,
  ...(headers ? { headers } : {}),
});
const noContent = (description: string): ResponseSpec => ({ description });
const linkingStateHeaders = {
  [LINKING_STATE_HEADER]:
    "`pending` while the linking service has not seen the user's record yet (answered with no links); absent once it has",
};

const pageHeaders = {
  [TOTAL_COUNT_HEADER]: 'How many items the whole list has (the body holds one page).',
  [NEXT_CURSOR_HEADER]: 'The cursor of the next page; absent on the last page.',
  link: 'The next page as a `rel="next"` link; absent on the last page.',
};
const recordHeaders = { etag: 'The record version, for If-Match on the next change.' };
const asyncQuery = z.object({ async: z.literal('1').optional() });

const HealthSchema = z.object({
  status: z.enum(['ok', 'unavailable']),
  dependencies: z.record(z.string(), z.unknown()),
});

/** The routes, grouped by what they are about. */
export const routes = {
  gateway: {
    health: route({
      method: 'GET',
      path: '/api/health',
      owner: 'gateway',
      access: 'public',
      summary: "The gateway's readiness (Redis, the auth service)",
      responses: { 200: json('Ready', HealthSchema), 503: json('Not ready', HealthSchema) },
    }),
    openapi: route({
      method: 'GET',
      path: '/api/openapi.json',
      owner: 'gateway',
      access: 'public',
      summary: 'This document: the API in OpenAPI 3.1, generated from the route declarations',
      responses: { 200: json('The OpenAPI document', z.record(z.string(), z.unknown())) },
    }),
  },
  session: {
    login: route({
      method: 'POST',
      path: '/api/auth/login',
      owner: 'gateway',
      access: 'public',
      summary: 'Sign in: a new session (SPEC §7)',
      body: LoginRequestSchema,
      responses: { 200: json('Signed in', UserResponseSchema) },
    }),
    logout: route({
      method: 'POST',
      path: '/api/auth/logout',
      owner: 'gateway',
      access: 'public',
      summary: 'Sign out: the session ends',
      responses: { 200: json('Signed out', LogoutResponseSchema) },
    }),
    user: route({
      method: 'GET',
      path: '/api/auth/user',
      owner: 'gateway',
      access: 'user',
      summary: 'The signed-in user (also the session check)',
      responses: { 200: json('The user', UserResponseSchema) },
    }),
    locks: route({
      method: 'GET',
      path: '/api/admin/sign-in-locks',
      owner: 'gateway',
      access: 'admin',
      summary: 'Sign-in waits (ADMIN)',
      responses: { 200: json('The waits', SignInLocksSchema) },
    }),
    unlock: route({
      method: 'DELETE',
      path: '/api/admin/sign-in-locks/{id}',
      owner: 'gateway',
      access: 'admin',
      summary: 'End a sign-in wait (ADMIN)',
      responses: { 204: noContent('Ended') },
    }),
  },
  auth: {
    register: route({
      method: 'POST',
      path: '/api/auth/register',
      owner: 'auth',
      access: 'public',
      summary: 'Open an account',
      body: RegisterRequestSchema,
      responses: { 201: json('Account created', RegisterResponseSchema) },
      addressLimit: 'registrations',
    }),
    updateName: route({
      method: 'PUT',
      path: '/api/auth/update-name',
      owner: 'auth',
      access: 'user',
      summary: "Change the signed-in user's name",
      body: UpdateNameRequestSchema,
      responses: { 200: json('The renamed user', UserResponseSchema) },
    }),
    contactAdmin: route({
      method: 'POST',
      path: '/api/contact-admin',
      owner: 'auth',
      access: 'user',
      summary: 'A message to the administrator',
      body: ContactAdminRequestSchema,
      responses: { 201: json('Sent', ContactAdminResponseSchema) },
    }),
    contactRequests: route({
      method: 'GET',
      path: '/api/admin/contact-requests',
      owner: 'auth',
      access: 'admin',
      summary: "ADMIN's inbox of contact requests (open first)",
      query: ContactRequestPageQuerySchema,
      responses: { 200: json('A page of the inbox', ContactRequestListSchema) },
    }),
    resolveContactRequest: route({
      method: 'POST',
      path: '/api/admin/contact-requests/{id}/resolve',
      owner: 'auth',
      access: 'admin',
      summary: 'Mark a contact request resolved',
      responses: { 200: json('The resolved request', ContactRequestResolvedSchema) },
    }),
    verifyCredentials: route({
      method: 'POST',
      path: '/internal/credentials/verify',
      owner: 'auth',
      access: 'service',
      summary: "The gateway's check of a sign-in",
      body: VerifyCredentialsRequestSchema,
      responses: { 200: json('Whether the credentials are right, and whose', VerifyCredentialsResponseSchema) },
    }),
    userById: route({
      method: 'GET',
      path: '/internal/users/{id}',
      owner: 'auth',
      access: 'service',
      summary: 'A user as the gateway refreshes its session copy',
      responses: { 200: json('The user', UserResponseSchema) },
    }),
  },
  records: {
    list: route({
      method: 'GET',
      path: '/api/records',
      owner: 'records',
      access: 'user',
      summary: "The user's records, newest first, one page at a time",
      query: PageQuerySchema,
      responses: { 200: json('A page of records', z.array(RecordSchema), pageHeaders) },
      paged: true,
      userLimit: 'list-pages',
    }),
    create: route({
      method: 'POST',
      path: '/api/records',
      owner: 'records',
      access: 'user',
      summary: 'Create a record',
      body: RecordInputSchema,
      responses: {
        201: json('The record', RecordSchema, { ...recordHeaders, location: 'The new record' }),
        429: { description: 'Incident-number probes spent (Retry-After)' },
      },
    }),
    deleted: route({
      method: 'GET',
      path: '/api/records/deleted',
      owner: 'records',
      access: 'user',
      summary: "The user's deleted records, one page at a time",
      query: PageQuerySchema,
      responses: { 200: json('A page of deleted records', z.array(RecordSchema), pageHeaders) },
      paged: true,
      userLimit: 'list-pages',
    }),
    search: route({
      method: 'POST',
      path: '/api/records/search',
      owner: 'records',
      access: 'user',
      summary: "Search the user's records",
      query: PageQuerySchema,
      body: RecordSearchSchema,
      responses: { 200: json('A page of the records found', z.array(RecordSchema), pageHeaders) },
      paged: true,
      userLimit: 'searches',
    }),
    get: route({
      method: 'GET',
      path: '/api/records/{id}',
      owner: 'records',
      access: 'user',
      summary: 'One record (read for its details, or for its edit form)',
      query: z.object({ purpose: z.enum(['read', 'edit']).optional() }),
      responses: { 200: json('The record', RecordSchema, recordHeaders) },
    }),
    update: route({
      method: 'PUT',
      path: '/api/records/{id}',
      owner: 'records',
      access: 'user',
      summary: 'Change a record (If-Match or the body’s version guards against lost updates)',
      body: RecordUpdateSchema,
      responses: { 200: json('The changed record', RecordSchema, recordHeaders) },
    }),
    delete: route({
      method: 'DELETE',
      path: '/api/records/{id}',
      owner: 'records',
      access: 'user',
      summary: 'Delete a record (it can be restored)',
      responses: { 200: json('The deleted record', RecordSchema, recordHeaders) },
    }),
    restore: route({
      method: 'POST',
      path: '/api/records/{id}/restore',
      owner: 'records',
      access: 'user',
      summary: 'Restore a deleted record',
      responses: { 200: json('The restored record', RecordSchema, recordHeaders) },
    }),
    adminList: route({
      method: 'GET',
      path: '/api/admin/records',
      owner: 'records',
      access: 'admin',
      summary: "Every agency's records, one page at a time (ADMIN)",
      query: PageQuerySchema,
      responses: { 200: json('A page of records', z.array(AdminRecordSchema), pageHeaders) },
      paged: true,
      userLimit: 'list-pages',
    }),
    options: route({
      method: 'GET',
      path: '/api/dropdown-options/{type}',
      owner: 'records',
      access: 'user',
      summary: 'An option list (source or country)',
      params: z.object({ type: DropdownTypeSchema }),
      responses: { 200: json('The options', z.array(DropdownOptionSchema)) },
    }),
    replaceOptions: route({
      method: 'PUT',
      path: '/api/dropdown-options/{type}',
      owner: 'records',
      access: 'admin',
      summary: 'Replace an option list (ADMIN)',
      params: z.object({ type: DropdownTypeSchema }),
      body: UpdateDropdownOptionsSchema,
      responses: { 200: json('The new options', z.array(DropdownOptionSchema)) },
    }),
    import: route({
      method: 'POST',
      path: '/internal/records/import',
      owner: 'records',
      access: 'service',
      summary: "The ingest worker's import of a batch upload's rows",
      body: RecordImportRequestSchema,
      responses: { 200: json('Each row’s outcome', RecordImportResponseSchema) },
    }),
    importPlan: route({
      method: 'POST',
      path: '/internal/records/import-plan',
      owner: 'records',
      access: 'service',
      summary: "An upload's plan before its rows (incident-number probes)",
      body: RecordImportPlanRequestSchema,
      responses: { 200: json('The plan', RecordImportPlanSchema) },
    }),
  },
  linking: {
    checkMatches: route({
      method: 'POST',
      path: '/api/records/check-namlc-matches',
      owner: 'linking',
      access: 'user',
      summary: "A NAMLC check: another agency's records that match",
      body: CheckMatchesSchema,
      responses: { 200: json('The matches', CheckMatchesResponseSchema) },
      userLimit: 'namlc-checks',
    }),
    link: route({
      method: 'POST',
      path: '/api/records/link',
      owner: 'linking',
      access: 'user',
      summary: 'Link two records (on the evidence of the scorer)',
      body: CreateLinkSchema,
      responses: { 201: json('The link', LinkSchema) },
      userLimit: 'link-attempts',
    }),
    links: route({
      method: 'GET',
      path: '/api/records/{id}/links',
      owner: 'linking',
      access: 'user',
      summary: "A record's links with the linked records",
      responses: { 200: json('The links', z.array(RecordLinkViewSchema), linkingStateHeaders) },
    }),
    reject: route({
      method: 'DELETE',
      path: '/api/records/{id}/links/{linkedId}',
      owner: 'linking',
      access: 'user',
      summary: 'Reject a link (optionally saying why)',
      body: RejectLinkSchema,
      responses: { 204: noContent('Rejected') },
      userLimit: 'link-attempts',
    }),
    restore: route({
      method: 'POST',
      path: '/api/records/{id}/links/{linkedId}/restore',
      owner: 'linking',
      access: 'user',
      summary: 'Restore a rejected link',
      responses: { 200: json('The link', LinkSchema) },
      userLimit: 'link-attempts',
    }),
    linked: route({
      method: 'GET',
      path: '/api/records/{id}/linked',
      owner: 'linking',
      access: 'user',
      summary: 'The records linked to a record, in brief',
      responses: { 200: json('The linked records', z.array(LinkedRecordSummarySchema), linkingStateHeaders) },
    }),
    possibleMatches: route({
      method: 'GET',
      path: '/api/possible-matches',
      owner: 'linking',
      access: 'user',
      summary:
        "Possible matches awaiting a decision that involve the user's agency (ADMIN: every one, decided too), best first",
      query: PossibleMatchPageQuerySchema,
      responses: { 200: json('A page of possible matches', PossibleMatchPageSchema) },
      userLimit: 'list-pages',
    }),
    possibleMatchCount: route({
      method: 'GET',
      path: '/api/possible-matches/count',
      owner: 'linking',
      access: 'user',
      summary: 'How many possible matches await a decision the user may make (counts only)',
      responses: { 200: json('The count', PossibleMatchCountSchema) },
    }),
    possibleMatchLabels: route({
      method: 'GET',
      path: '/api/possible-matches/labels',
      owner: 'linking',
      access: 'admin',
      summary: "The investigators' decisions as labels: estimated precision and recall per confidence band (ADMIN)",
      responses: { 200: json('The figures', LabelFiguresSchema) },
    }),
    confirmPossibleMatch: route({
      method: 'POST',
      path: '/api/possible-matches/{id}/confirm',
      owner: 'linking',
      access: 'user',
      summary: 'Confirm a possible match: a manual link by the user',
      responses: { 201: json('The link', LinkSchema) },
      userLimit: 'link-attempts',
    }),
    rejectPossibleMatch: route({
      method: 'POST',
      path: '/api/possible-matches/{id}/reject',
      owner: 'linking',
      access: 'user',
      summary: 'Reject a possible match: different people, never proposed or linked again',
      body: RejectPossibleMatchSchema,
      responses: { 204: noContent('Rejected') },
      userLimit: 'link-attempts',
    }),
    summary: route({
      method: 'GET',
      path: '/api/links/summary',
      owner: 'linking',
      access: 'user',
      summary: "Counts of the user's links per agency pair",
      responses: { 200: json('The counts', LinkSummarySchema) },
    }),
  },
  stats: {
    dashboard: route({
      method: 'GET',
      path: '/api/stats',
      owner: 'stats',
      access: 'user',
      summary: "The dashboard's figures",
      responses: { 200: json('The figures', DashboardStatsSchema) },
    }),
    countries: route({
      method: 'GET',
      path: '/api/stats/countries',
      owner: 'stats',
      access: 'user',
      summary: 'Records per country',
      responses: { 200: json('The counts', CountryStatsSchema) },
    }),
    breakdown: route({
      method: 'GET',
      path: '/api/stats/breakdown',
      owner: 'stats',
      access: 'user',
      summary: "The breakdown a report's figures come from",
      responses: { 200: json('The breakdown', StatsBreakdownSchema) },
    }),
    admin: route({
      method: 'GET',
      path: '/api/admin/stats',
      owner: 'stats',
      access: 'admin',
      summary: "Each agency's record count (ADMIN)",
      responses: { 200: json('The counts', AdminStatsSchema) },
    }),
  },
  ingest: {
    upload: route({
      method: 'POST',
      path: '/api/records/batch-upload',
      owner: 'ingest',
      access: 'user',
      summary: 'Upload a workbook of records (a multipart form with one `file`)',
      // The job creates the rows through the records service on the uploader's behalf (issue 37).
      grant: true,
      query: asyncQuery,
      bodyType: 'multipart',
      body: z.object({ file: z.string().describe('The .xlsx or .csv file') }),
      responses: {
        200: json('The upload, done', BatchUploadResultSchema),
        202: json('Accepted: follow the job', BatchUploadAcceptedSchema, { location: 'The job' }),
        413: { description: 'The file, unpacked, or a sheet’s cells over the limits' },
        429: {
          description:
            'The agency’s uploads waiting, or MB of the last 24 hours, at the limit (Retry-After when known)',
        },
      },
    }),
    job: route({
      method: 'GET',
      path: '/api/ingest/jobs/{jobId}',
      owner: 'ingest',
      access: 'user',
      summary: "An upload's job",
      responses: { 200: json('The job', IngestJobSchema) },
    }),
    template: route({
      method: 'GET',
      path: '/api/records/template',
      owner: 'ingest',
      access: 'user',
      summary: 'The Excel template of a batch upload',
      responses: {
        200: {
          description: 'The workbook',
          contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        },
      },
    }),
  },
  report: {
    generate: route({
      method: 'POST',
      path: '/api/generate-report',
      owner: 'report',
      access: 'user',
      summary: 'Ask for a report (answered when done within the wait, else 202 and its job)',
      // The worker asks the stats and linking services for the figures on the requester's behalf.
      grant: true,
      query: asyncQuery,
      body: GenerateReportSchema,
      responses: {
        200: json('The report', GeneratedReportSchema),
        202: json('Accepted: follow the job', ReportAcceptedSchema, { location: 'The job' }),
      },
    }),
    job: route({
      method: 'GET',
      path: '/api/reports/jobs/{jobId}',
      owner: 'report',
      access: 'user',
      summary: "A report's job",
      responses: { 200: json('The job', ReportJobSchema) },
    }),
    list: route({
      method: 'GET',
      path: '/api/reports',
      owner: 'report',
      access: 'user',
      summary: "The agency's earlier reports, newest first",
      query: ReportPageQuerySchema,
      responses: { 200: json('A page of reports', ReportListSchema) },
    }),
    get: route({
      method: 'GET',
      path: '/api/reports/{id}',
      owner: 'report',
      access: 'user',
      summary: 'One report',
      responses: { 200: json('The report', ReportSchema) },
    }),
    markdown: route({
      method: 'GET',
      path: '/api/reports/{id}/markdown',
      owner: 'report',
      access: 'user',
      summary: 'One report as a Markdown file',
      responses: { 200: { description: 'The report', contentType: 'text/markdown' } },
    }),
  },
  ops: {
    operations: route({
      method: 'GET',
      path: '/api/admin/operations',
      owner: 'ops',
      access: 'admin',
      summary: 'Streams, consumers, queues and services (ADMIN)',
      responses: { 200: json('The snapshot', OperationsSchema) },
    }),
  },
  audit: {
    trail: route({
      method: 'GET',
      path: '/api/audit',
      owner: 'audit',
      access: 'user',
      summary: "The audit trail (ADMIN: all; an agency: its own records')",
      query: AuditQuerySchema,
      responses: { 200: json('A page of the trail', AuditPageSchema) },
    }),
  },
} as const satisfies Record<string, Record<string, RouteSpec>>;

/** Every declared route, in declaration order. */
export const ALL_ROUTES: readonly RouteSpec[] = Object.values(routes).flatMap((group) => Object.values(group));

/** The routes a service (or the gateway) answers. */
export function routesOwnedBy(owner: RouteOwner): RouteSpec[] {
  return ALL_ROUTES.filter((r) => r.owner === owner);
}

/** The segments of a path template; `{name}` segments are parameters. */
function segmentsOf(path: string): string[] {
  return path.split('/').slice(1);
}
const isParam = (segment: string) => segment.startsWith('{') && segment.endsWith('}');

/** A path template in Koa's (path-to-regexp's) form: `/api/records/{id}` → `/api/records/:id`. */
export function koaPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

/** A path with its parameters filled in (each encoded as one segment). */
export function fillPath(path: string, params: Readonly<Record<string, string>>): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name} of ${path}`);
    return encodeURIComponent(value);
  });
}

/**
 * Orders templates so that the more specific comes first: at the first segment where two differ,
 * a literal before a parameter (`/api/records/deleted` before `/api/records/{id}`).
 */
export function compareTemplates(a: string, b: string): number {
  const x = segmentsOf(a);
  const y = segmentsOf(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = isParam(x[i] ?? '');
    const q = isParam(y[i] ?? '');
    if (p !== q) return p ? 1 : -1;
  }
  return x.length - y.length;
}

/**
 * Whether a request path (as received: not decoded) matches a template: the same number of
 * segments, literals equal, each parameter one non-empty segment.
 */
export function matchesTemplate(template: string, path: string): boolean {
  const want = segmentsOf(template);
  const got = path.split('/').slice(1);
  if (!path.startsWith('/') || want.length !== got.length) return false;
  return want.every((segment, i) => (isParam(segment) ? (got[i] ?? '') !== '' : segment === got[i]));
}
