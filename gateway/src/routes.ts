/**
 * Which service owns which /api path (ARCHITECTURE.md "Route ownership"). Ordered: the first
 * pattern that matches wins, so specific paths come before the general ones of the same prefix.
 * The gateway's own paths (login, logout, user, health) are handled before this table is read.
 */
export type ServiceName = 'auth' | 'records' | 'linking' | 'stats' | 'ingest' | 'report' | 'ops' | 'audit';

export interface RouteRule {
  pattern: RegExp;
  service: ServiceName;
  /** Reachable without a session (the request carries an anonymous identity). */
  public?: boolean;
  /** Requests per address per hour, counted in Redis (see GatewayConfig for the numbers). */
  addressLimit?: 'registrations';
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
  { pattern: /^\/api\/records\/(check-namlc-matches|link)$/, service: 'linking' },
  { pattern: /^\/api\/records\/[^/]+\/(links|linked)$/, service: 'linking' },
  // Rejecting a link (DELETE) and ADMIN's restore of a rejected one (issue 34).
  { pattern: /^\/api\/records\/[^/]+\/links\/[^/]+(\/restore)?$/, service: 'linking' },
  { pattern: /^\/api\/records$/, service: 'records' },
  { pattern: /^\/api\/records\/(deleted|search)$/, service: 'records' },
  { pattern: /^\/api\/records\/[^/]+(\/restore)?$/, service: 'records' },
  { pattern: /^\/api\/admin\/records$/, service: 'records' },
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
