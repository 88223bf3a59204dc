/**
 * Which service owns which /api path, derived from the route declarations of @nrad/contracts
 * (docs/adr/0019). A request is matched by its path against the declared path templates, the most
 * specific first (at the first segment where two differ, a literal before a parameter), whatever
 * its method: a method a path does not declare still goes to the path's owner, which answers it.
 * The gateway's own paths (login, logout, user, health, the OpenAPI document) are handled before
 * this table is read.
 */
import {
  type AddressLimitName,
  ALL_ROUTES,
  compareTemplates,
  type HttpMethod,
  matchesTemplate,
  type RouteSpec,
  type ServiceName,
  type UserLimitName,
} from '@nrad/contracts';

export type { ServiceName, UserLimitName };

export interface RouteRule {
  /** The declared path template (`/api/records/{id}`). */
  path: string;
  service: ServiceName;
  /** Reachable without a session (the request carries an anonymous identity). */
  public?: boolean;
  /** Requests per address per hour, counted in Redis (see GatewayConfig for the numbers). */
  addressLimit?: AddressLimitName;
  /** The per-user limit a request of this method counts against (other methods: none). */
  userLimit?: Partial<Record<HttpMethod, UserLimitName>>;
  /** Methods whose requests carry a grant for the service's later work on the user's behalf. */
  grant?: HttpMethod[];
}

/** One rule per declared path template of a service, the most specific first. */
export function rulesOf(declared: readonly RouteSpec[]): RouteRule[] {
  const byPath = new Map<string, RouteRule>();
  for (const route of declared) {
    if (route.owner === 'gateway' || !route.path.startsWith('/api/')) continue;
    const rule = byPath.get(route.path) ?? { path: route.path, service: route.owner };
    if (rule.service !== route.owner) throw new Error(`${route.path} has two owners`);
    // Path-wide, as the gateway always read them: a visitor may reach the path, and the address
    // limit counts every request of it.
    if (route.access === 'public') rule.public = true;
    if (route.addressLimit) rule.addressLimit = route.addressLimit;
    if (route.userLimit) rule.userLimit = { ...rule.userLimit, [route.method]: route.userLimit };
    if (route.grant) rule.grant = [...(rule.grant ?? []), route.method];
    byPath.set(route.path, rule);
  }
  return [...byPath.values()].sort((a, b) => compareTemplates(a.path, b.path));
}

export const ROUTES: readonly RouteRule[] = rulesOf(ALL_ROUTES);

export function routeFor(path: string): RouteRule | undefined {
  return ROUTES.find((r) => matchesTemplate(r.path, path));
}

/** Whether a request of this method gets a grant (RouteSpec.grant). */
export function grantsOf(rule: RouteRule, method: string): boolean {
  return rule.grant?.includes(method as HttpMethod) ?? false;
}

/** The per-user limit a request counts against, if any. */
export function userLimitOf(rule: RouteRule, method: string): UserLimitName | undefined {
  const counted = method === 'HEAD' ? 'GET' : method; // a HEAD is answered as its GET
  return rule.userLimit?.[counted as HttpMethod];
}
