import { IDENTITY_HEADER, type Identity, IdentitySchema, type UserIdentity } from '@nrad/contracts';
import { jwtVerify, SignJWT } from 'jose';
import type { Middleware } from 'koa';
import { forbidden, unauthenticated } from './errors.ts';

const ISSUER = 'nrad-gateway';
const AUDIENCE = 'nrad-services';
const ALG = 'HS256';

function keyFor(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

/** Signs a short-lived identity token (the gateway does this for every request it forwards). */
export async function signIdentity(identity: Identity, secret: string, ttlSeconds = 60): Promise<string> {
  return new SignJWT({ id: identity })
    .setProtectedHeader({ alg: ALG })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(keyFor(secret));
}

/** A request's method, body and extra headers (the identity and content type are fetchAs's). */
export type ServiceRequestInit = Omit<RequestInit, 'headers'> & { headers?: Record<string, string> };

/**
 * A request from one service to another, vouched for as `identity` with a token signed with the
 * shared secret (a JSON body gets its content type); it gives up after `timeoutMs`.
 */
export async function fetchAs(
  identity: Identity,
  secret: string,
  url: URL,
  init: ServiceRequestInit = {},
  timeoutMs = 30_000,
): Promise<Response> {
  return fetch(url, {
    ...init,
    headers: {
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
      [IDENTITY_HEADER]: await signIdentity(identity, secret),
    },
    signal: AbortSignal.timeout(timeoutMs),
  });
}

/** Verifies signature, issuer, audience and expiry, then the claim's shape. */
export async function verifyIdentity(token: string, secret: string): Promise<Identity> {
  const { payload } = await jwtVerify(token, keyFor(secret), {
    issuer: ISSUER,
    audience: AUDIENCE,
    algorithms: [ALG],
    clockTolerance: 5,
  });
  return IdentitySchema.parse(payload.id);
}

/**
 * Refuses any request that does not carry a valid identity token from the gateway, so a service
 * port reached directly gives nothing. Sets `ctx.state.identity`.
 */
export function requireIdentity(secret: string): Middleware<{ identity?: Identity }> {
  return async function requireIdentity(ctx, next) {
    const token = ctx.get(IDENTITY_HEADER);
    if (!token) throw unauthenticated();
    try {
      ctx.state.identity = await verifyIdentity(token, secret);
    } catch {
      throw unauthenticated('Invalid identity token');
    }
    await next();
  };
}

/** The signed-in user of a request, or 401 (anonymous and service callers are not users). */
export function userOf(state: { identity?: Identity }): UserIdentity {
  const id = state.identity;
  if (id?.kind !== 'user') throw unauthenticated();
  return id;
}

/** The signed-in ADMIN of a request, or 403 for any other user. */
export function adminOf(state: { identity?: Identity }): UserIdentity {
  const user = userOf(state);
  if (user.organization !== 'ADMIN') throw forbidden('Admin privileges required');
  return user;
}

/** Only the gateway itself (internal paths), or 401. */
export function requireServiceCaller(): Middleware<{ identity?: Identity }> {
  return async function requireServiceCaller(ctx, next) {
    if (ctx.state.identity?.kind !== 'service') throw unauthenticated();
    await next();
  };
}
