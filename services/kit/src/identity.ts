import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { IDENTITY_HEADER, type Identity, IdentitySchema, type UserIdentity } from '@nrad/contracts';
import { decodeJwt, decodeProtectedHeader, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import type { Middleware } from 'koa';
import { forbidden, unauthenticated } from './errors.ts';
import { requestContext } from './logger.ts';

/**
 * Identity between the parts (issue 37, ADR 0004): tokens signed with Ed25519, each signer with
 * its own private key; every service holds only the public keys. So no service can sign as the
 * gateway, and none can vouch for a user by itself:
 *
 * - **The gateway** signs what it knows from the session: a user, a visitor, or itself on the auth
 *   service's internal paths (issuer `gateway`, audience `nrad-services`, IDENTITY_TTL_SECONDS).
 *   For a route that starts a job run later on the user's behalf (an upload, a report) it also
 *   signs a **grant**: the user, for the route's owner only (audience `nrad-grant:<service>`),
 *   for GRANT_TTL_SECONDS; it travels in GRANT_HEADER.
 * - **A service** signs as itself (issuer = its name): either its own identity (`{ kind:
 *   'service', service: <its name> }`, nothing else), or a call **on a user's behalf**, carrying a
 *   token the gateway signed for that user — the request's own identity token (as the linking
 *   service asks the records service during a request), or a grant addressed to this service (as
 *   the ingest and report workers do later).
 *
 * A verifier takes the user from the gateway's signature only; it knows who called (`caller`).
 */

const AUDIENCE = 'nrad-services';
const ALG = 'EdDSA';
export const GATEWAY_ISSUER = 'gateway';
/** The header that carries a grant from the gateway to the service that owns the route. */
export const GRANT_HEADER = 'x-nrad-grant';
export const IDENTITY_TTL_SECONDS = 60;
/** How long a job may act for the user who started it: a day (an upload kept for a retry, a report's retries). */
export const GRANT_TTL_SECONDS = 24 * 3600;
const grantAudience = (service: string) => `nrad-grant:${service}`;

/** A signer: its name (the tokens' issuer) and its private key. */
export interface IdentitySigner {
  readonly issuer: string;
  readonly key: KeyObject;
}

/** The public keys a service trusts, by issuer. */
export type IdentityKeys = ReadonlyMap<string, KeyObject>;

/** A verified request's identity and who signed the token (the gateway or a service's name). */
export interface VerifiedIdentity {
  identity: Identity;
  caller: string;
}

/** `IDENTITY_PUBLIC_KEYS`: `gateway=<SPKI DER, base64url>,ingest=<…>` (the issuers a service trusts). */
export function parsePublicKeys(text: string): IdentityKeys {
  const keys = new Map<string, KeyObject>();
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const at = part.indexOf('=');
    const issuer = part.slice(0, at).trim();
    if (at <= 0 || !/^[a-z][a-z0-9-]*$/.test(issuer)) throw new Error('each key must be written issuer=key');
    const key = createPublicKey({
      key: Buffer.from(part.slice(at + 1).trim(), 'base64url'),
      format: 'der',
      type: 'spki',
    });
    if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the key of ${issuer} is not an Ed25519 public key`);
    keys.set(issuer, key);
  }
  if (!keys.has(GATEWAY_ISSUER)) throw new Error('the gateway’s key is required');
  return keys;
}

/** `IDENTITY_PRIVATE_KEY` (PKCS#8 DER, base64url) of the signer named `issuer`. */
export function parseSigner(issuer: string, text: string): IdentitySigner {
  const key = createPrivateKey({ key: Buffer.from(text.trim(), 'base64url'), format: 'der', type: 'pkcs8' });
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('IDENTITY_PRIVATE_KEY is not an Ed25519 private key');
  return { issuer, key };
}

/** A new key pair, as the variables carry them (npm start's secrets file, a deployment's secrets). */
export function newIdentityKeyPair(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64url'),
    publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64url'),
  };
}

/** PKCS#8 DER of an Ed25519 private key: this prefix, then the 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * A key pair derived from a name, for tests only: every test process and every child it starts
 * gets the same keys without key material in the repository. Never used outside tests.
 */
export function testIdentityKeyPair(issuer: string): { privateKey: string; publicKey: string } {
  const seed = createHash('sha256').update(`nrad-test-identity-key:${issuer}`).digest();
  const der = Buffer.concat([ED25519_PKCS8_PREFIX, seed]);
  const key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  return {
    privateKey: der.toString('base64url'),
    publicKey: createPublicKey(key).export({ format: 'der', type: 'spki' }).toString('base64url'),
  };
}

async function sign(signer: IdentitySigner, claims: JWTPayload, audience: string, ttlSeconds: number) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: ALG })
    .setIssuer(signer.issuer)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(signer.key);
}

/**
 * Signs a short-lived identity token. The gateway signs any identity; a service only its own
 * (`{ kind: 'service', service: <its issuer> }`): for a user it calls `signOnBehalf`.
 */
export async function signIdentity(
  identity: Identity,
  signer: IdentitySigner,
  ttlSeconds = IDENTITY_TTL_SECONDS,
): Promise<string> {
  if (signer.issuer !== GATEWAY_ISSUER && (identity.kind !== 'service' || identity.service !== signer.issuer)) {
    throw new Error(`${signer.issuer} may sign only its own identity`);
  }
  return sign(signer, { id: identity }, AUDIENCE, ttlSeconds);
}

/** The gateway's grant: `user`, for `service`'s later calls on their behalf (GRANT_TTL_SECONDS). */
export async function signGrant(user: UserIdentity, service: string, signer: IdentitySigner): Promise<string> {
  if (signer.issuer !== GATEWAY_ISSUER) throw new Error('only the gateway grants');
  return sign(signer, { id: user }, grantAudience(service), GRANT_TTL_SECONDS);
}

/**
 * A service's token for a call on a user's behalf: signed by the service, carrying `proof` — a
 * token the gateway signed for the user (the request's identity token, or a grant addressed to
 * this service).
 */
export async function signOnBehalf(proof: string, signer: IdentitySigner): Promise<string> {
  return sign(signer, { id: { kind: 'service', service: signer.issuer }, on: proof }, AUDIENCE, IDENTITY_TTL_SECONDS);
}

/** Who a service call vouches for: the service itself, or a user with the gateway's token for them. */
export type Caller = { kind: 'self' } | { kind: 'on-behalf'; proof: string };

/** A request's method, body and extra headers (the identity and content type are fetchAs's). */
export type ServiceRequestInit = Omit<RequestInit, 'headers'> & { headers?: Record<string, string> };

/**
 * A request from one service to another, signed by `signer` as itself or on a user's behalf (a
 * JSON body gets its content type); it gives up after `timeoutMs`.
 */
export async function fetchAs(
  as: Caller,
  signer: IdentitySigner,
  url: URL,
  init: ServiceRequestInit = {},
  timeoutMs = 30_000,
): Promise<Response> {
  const token =
    as.kind === 'self'
      ? await signIdentity({ kind: 'service', service: signer.issuer }, signer)
      : await signOnBehalf(as.proof, signer);
  return fetch(url, {
    ...init,
    headers: {
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
      [IDENTITY_HEADER]: token,
    },
    signal: AbortSignal.timeout(timeoutMs),
  });
}

/** The leeway on a token's expiry, for clocks a little apart (seconds). */
const CLOCK_TOLERANCE_SECONDS = 5;

async function verified(token: string, keys: IdentityKeys, audience: string) {
  const { alg } = decodeProtectedHeader(token);
  if (alg !== ALG) throw new Error('not an EdDSA token');
  const { iss } = decodeJwt(token);
  const key = typeof iss === 'string' ? keys.get(iss) : undefined;
  if (!key || iss === undefined) throw new Error('unknown issuer');
  const { payload } = await jwtVerify(token, key, {
    issuer: iss,
    audience,
    algorithms: [ALG],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
  });
  if (typeof payload.exp !== 'number') throw new Error('a token must expire');
  return { issuer: iss, payload, exp: payload.exp };
}

/**
 * Verifies a request's identity token: the signature of its issuer (a key the service trusts),
 * audience and expiry, then what that issuer may say. The gateway's token is taken as it is; a
 * service's says only who it is, or carries the gateway's token for a user (the request's own, or
 * a grant addressed to that service), from which the user is taken.
 */
export async function verifyIdentity(token: string, keys: IdentityKeys): Promise<VerifiedIdentity> {
  const { identity, caller } = await verifiedIdentity(token, keys);
  return { identity, caller };
}

/** verifyIdentity's answer and until when it holds: the earliest expiry of the token and its proof (seconds). */
async function verifiedIdentity(token: string, keys: IdentityKeys): Promise<VerifiedIdentity & { exp: number }> {
  const { issuer, payload, exp } = await verified(token, keys, AUDIENCE);
  const identity = IdentitySchema.parse(payload.id);
  if (issuer === GATEWAY_ISSUER) {
    if (payload.on !== undefined) throw new Error('the gateway carries no proof');
    return { identity, caller: issuer, exp };
  }
  if (identity.kind !== 'service' || identity.service !== issuer) throw new Error('a service vouches only for itself');
  if (payload.on === undefined) return { identity, caller: issuer, exp };
  if (typeof payload.on !== 'string') throw new Error('a proof is a token');
  const proof = payload.on;
  const { aud: proofAudience } = decodeJwt(proof);
  if (proofAudience !== AUDIENCE && proofAudience !== grantAudience(issuer))
    throw new Error('not this service’s grant');
  const inner = await verified(proof, keys, proofAudience as string);
  if (inner.issuer !== GATEWAY_ISSUER) throw new Error('only the gateway vouches for a user');
  const user = IdentitySchema.parse(inner.payload.id);
  if (user.kind !== 'user') throw new Error('a proof is for a user');
  return { identity: user, caller: issuer, exp: Math.min(exp, inner.exp) };
}

/** Drops what `until` says is over, then the oldest, while a map holds `max` entries or more. */
function makeRoom<V extends { until: number }>(map: Map<string, V>, max: number, now: number) {
  if (map.size < max) return;
  for (const [key, value] of map) if (value.until <= now) map.delete(key);
  for (const key of map.keys()) {
    if (map.size < max * 0.9) break;
    map.delete(key);
  }
}

/**
 * Tokens a service has verified, kept until they expire (issue 38): the same token (the gateway
 * sends one per user for IDENTITY_REUSE_MS) is then taken without verifying its signature again,
 * about 0.5 ms a request. Only the exact token verified is taken, only until its own expiry (and
 * its proof's) plus the same leeway the verification allows; a token that fails is never kept.
 * At most `max` tokens are kept: the expired, then the oldest, go first.
 */
export class VerifiedTokens {
  private readonly tokens = new Map<string, { result: Readonly<VerifiedIdentity>; until: number }>();

  constructor(
    private readonly keys: IdentityKeys,
    private readonly max = 10_000,
  ) {}

  async verify(token: string): Promise<Readonly<VerifiedIdentity>> {
    const now = Date.now();
    const kept = this.tokens.get(token);
    if (kept && now < kept.until) return kept.result;
    if (kept) this.tokens.delete(token);
    const { identity, caller, exp } = await verifiedIdentity(token, this.keys);
    const result = Object.freeze({ identity: Object.freeze(identity), caller });
    makeRoom(this.tokens, this.max, now);
    this.tokens.set(token, { result, until: (exp + CLOCK_TOLERANCE_SECONDS) * 1000 });
    return result;
  }

  /** Tokens kept (a test looks). */
  get size(): number {
    return this.tokens.size;
  }
}

/**
 * How long the gateway sends the same identity token for the same identity (ms): half its
 * lifetime, so a token sent has at least IDENTITY_TTL_SECONDS / 2 left for the calls the service
 * makes with it on the user's behalf.
 */
export const IDENTITY_REUSE_MS = (IDENTITY_TTL_SECONDS * 1000) / 2;

/**
 * The gateway's identity tokens, each signed once and sent again for the same identity for
 * IDENTITY_REUSE_MS (issue 38: signing cost about 0.3 ms a request, and a token sent again is
 * taken from the services' VerifiedTokens). The identity is the whole key — a user whose name,
 * agency or role changed gets a new token at once. At most `max` are kept.
 */
export class IdentityTokens {
  private readonly tokens = new Map<string, { token: string; until: number }>();

  constructor(
    private readonly signer: IdentitySigner,
    private readonly max = 10_000,
  ) {}

  async for(identity: Identity): Promise<string> {
    const key = JSON.stringify(identity);
    const now = Date.now();
    const kept = this.tokens.get(key);
    if (kept && now < kept.until) return kept.token;
    const token = await signIdentity(identity, this.signer);
    makeRoom(this.tokens, this.max, now);
    this.tokens.set(key, { token, until: now + IDENTITY_REUSE_MS });
    return token;
  }
}

/**
 * Refuses any request that does not carry a valid identity token, so a service port reached
 * directly gives nothing. Sets `ctx.state.identity`, `ctx.state.caller` (the gateway or the
 * calling service) and `ctx.state.identityToken` (the token itself: a service asking another on
 * the same user's behalf carries it as its proof).
 */
export function requireIdentity(
  keys: IdentityKeys,
): Middleware<{ identity?: Identity; caller?: string; identityToken?: string }> {
  const verifiedTokens = new VerifiedTokens(keys);
  return async function requireIdentity(ctx, next) {
    const token = ctx.get(IDENTITY_HEADER);
    if (!token) throw unauthenticated();
    let result: Readonly<VerifiedIdentity>;
    try {
      result = await verifiedTokens.verify(token);
    } catch {
      throw unauthenticated('Invalid identity token');
    }
    ctx.state.identity = result.identity;
    ctx.state.caller = result.caller;
    // Only the gateway's own token proves a user to another service.
    if (result.caller === GATEWAY_ISSUER) {
      ctx.state.identityToken = token;
      const context = requestContext.getStore();
      if (context) context.identityToken = token;
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

/** Only a service calling as itself (internal paths), or 401; `only`: those services. */
export function requireServiceCaller(only?: readonly string[]): Middleware<{ identity?: Identity }> {
  return async function requireServiceCaller(ctx, next) {
    const id = ctx.state.identity;
    if (id?.kind !== 'service' || (only && !only.includes(id.service))) throw unauthenticated();
    await next();
  };
}

/**
 * Refuses any request that is not one of `services` calling on a user's behalf with the gateway's
 * token for that user (a grant addressed to it, or the request's own token): the user is then
 * `ctx.state.identity`, taken from the gateway's signature, never from what the service says.
 */
export function requireOnBehalf(services: readonly string[]): Middleware<{ identity?: Identity; caller?: string }> {
  return async function requireOnBehalf(ctx, next) {
    const { identity, caller } = ctx.state;
    if (identity?.kind !== 'user' || !caller || !services.includes(caller)) throw unauthenticated();
    await next();
  };
}
