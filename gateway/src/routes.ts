/**
 * Which service owns which /api path (ARCHITECTURE.md "Route ownership"). Ordered: the first
 * pattern that matches wins, so specific paths come before the general ones of the same prefix.
 * The gateway's own paths (login, logout, user, health) are handled before this table is read.
 */
export type ServiceName = 'auth' | 'records' | 'linking' | 'stats' | 'ingest' | 'report' | 'ops' | 'audit';

/**
 * The per-user limits (issue 34): each signed-in user's requests of a kind per minute, counted in
 * Redis (the numbers are GatewayConfig's USER_LIMIT_*; user-limits.ts applies them).
 */
export type UserLimitName = 'namlc-checks' | 'link-attempts' | 'searches' | 'list-pages';

export interface RouteRule {
  pattern: RegExp;
  service: ServiceName;
  /** Reachable without a session (the request carries an anonymous identity). */
  public?: boolean;
  /** Requests per address per hour, counted in Redis (see GatewayConfig for the numbers). */
  addressLimit?: 'registrations';
  /** The per-user limit a request of this method counts against (other methods: none). */
  userLimit?: Partial<Record<'GET' | 'POST' | 'PUT' | 'DELETE', UserLimitName>>;
}

export const ROUTES: readonly RouteRule[] = [
  { pattern: /^\/api\/auth\/register$/, service: 'auth', public: true, addressLimit: 'registrations' },
  { pattern: /^\/api\/auth\/update-name$/, service: 'auth' },
  { pattern: /^\/api\/contact-admin$/, service: 'auth' },
  { pattern: /^\/api\/admin\/contact-requests(\/[^/]+\/resolve)?$/, service: 'auth' },
  // Linking and ingest before records: `/api/records/{id}` would otherwise take `link`,
  // `check-namlc-matches`, `batch-upload` and `template`.
  { pattern: /^\/api\/records\/(batch-upload|template)$/, service: 'ingest' },
  { pattern: /^\/api\/ingest\/jobs\/[^/]+$/, service: 'ingest' },
  { pattern: /^\/api\/records\/check-namlc-matches$/, service: 'linking', userLimit: { POST: 'namlc-checks' } },
  { pattern: /^\/api\/records\/link$/, service: 'linking', userLimit: { POST: 'link-attempts' } },
  { pattern: /^\/api\/records\/[^/]+\/(links|linked)$/, service: 'linking' },
  // Rejecting a link (DELETE) and ADMIN's restore of a rejected one (issue 34).
  { pattern: /^\/api\/records\/[^/]+\/links\/[^/]+$/, service: 'linking', userLimit: { DELETE: 'link-attempts' } },
  {
    pattern: /^\/api\/records\/[^/]+\/links\/[^/]+\/restore$/,
    service: 'linking',
    userLimit: { POST: 'link-attempts' },
  },
  { pattern: /^\/api\/records$/, service: 'records', userLimit: { GET: 'list-pages' } },
  { pattern: /^\/api\/records\/deleted$/, service: 'records', userLimit: { GET: 'list-pages' } },
  { pattern: /^\/api\/records\/search$/, service: 'records', userLimit: { POST: 'searches' } },
  { pattern: /^\/api\/records\/[^/]+(\/restore)?$/, service: 'records' },
  { pattern: /^\/api\/admin\/records$/, service: 'records', userLimit: { GET: 'list-pages' } },
  { pattern: /^\/api\/stats(\/countries|\/breakdown)?$/, service: 'stats' },
  { pattern: /^\/api\/links\/summary$/, service: 'linking' },
  { pattern: /^\/api\/generate-report$/, service: 'report' },
  { pattern: /^\/api\/reports(\/jobs\/[^/]+|\/[^/]+(\/markdown)?)?$/, service: 'report' },
  { pattern: /^\/api\/admin\/stats$/, service: 'stats' },
  { pattern: /^\/api\/admin\/operations$/, service: 'ops' },
  { pattern: /^\/api\/audit$/, service: 'audit' },
  { pattern: /^\/api\/dropdown-options\/[^/]+$/, service: 'records' },
];

export function routeFor(path: string): RouteRule | undefined {
  return ROUTES.find((r) => r.pattern.test(path));
}

/** The per-user limit a request counts against, if any. */
export function userLimitOf(rule: RouteRule, method: string): UserLimitName | undefined {
  const counted = method === 'HEAD' ? 'GET' : method; // a HEAD is answered as its GET
  return rule.userLimit?.[counted as keyof NonNullable<RouteRule['userLimit']>];
}
