import { createSecretKey } from 'node:crypto';
import type { Identity, UserIdentity } from '@nrad/contracts';
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  GATEWAY_ISSUER,
  IDENTITY_REUSE_MS,
  IDENTITY_TTL_SECONDS,
  IdentityTokens,
  newIdentityKeyPair,
  parsePublicKeys,
  parseSigner,
  signGrant,
  signIdentity,
  signOnBehalf,
  VerifiedTokens,
  verifyIdentity,
} from './identity.ts';
import { TEST_GATEWAY_SIGNER, TEST_PUBLIC_KEYS, testIdentityKeys, testSigner } from './test-identity.ts';

const USER: UserIdentity = {
  kind: 'user',
  userId: 'a'.repeat(24),
  name: 'Ann',
  organization: 'BPS',
  role: 'Analyst',
};
const ADMIN: UserIdentity = { ...USER, userId: 'b'.repeat(24), organization: 'ADMIN' };
const keys = testIdentityKeys();
const ingest = testSigner('ingest');
const report = testSigner('report');

/** A token as a service that wanted more than it may say would sign it by hand, with its own key. */
function forged(claims: Record<string, unknown>, issuer: string, key = testSigner(issuer as 'ingest').key) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'EdDSA' })
    .setIssuer(issuer)
    .setAudience('nrad-services')
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(key);
}

describe('identity tokens between the parts (issue 37)', () => {
  it('takes the gateway’s word for any identity, a service’s only for itself', async () => {
    for (const identity of [USER, ADMIN, { kind: 'anonymous' }] as Identity[]) {
      expect(await verifyIdentity(await signIdentity(identity, TEST_GATEWAY_SIGNER), keys)).toEqual({
        identity,
        caller: GATEWAY_ISSUER,
      });
    }
    const self = await signIdentity({ kind: 'service', service: 'ingest' }, ingest);
    expect(await verifyIdentity(self, keys)).toEqual({
      identity: { kind: 'service', service: 'ingest' },
      caller: 'ingest',
    });
    // The signing helper refuses to mint for a service…
    await expect(signIdentity(ADMIN, ingest)).rejects.toThrow('ingest may sign only its own identity');
    await expect(signIdentity({ kind: 'service', service: 'gateway' }, ingest)).rejects.toThrow();
    // …and a token a service signs by hand with its own key is refused for anyone but itself.
    for (const id of [ADMIN, USER, { kind: 'anonymous' }, { kind: 'service', service: 'linking' }]) {
      await expect(verifyIdentity(await forged({ id }, 'ingest'), keys), JSON.stringify(id)).rejects.toThrow();
    }
  });

  it('refuses a key it does not trust, another algorithm, and a token naming another issuer than its key', async () => {
    const stranger = parseSigner('gateway', newIdentityKeyPair().privateKey);
    await expect(verifyIdentity(await signIdentity(ADMIN, stranger), keys)).rejects.toThrow();
    // The gateway's public key used as an HMAC secret (algorithm confusion).
    const publicDer = Buffer.from(TEST_PUBLIC_KEYS.split(',')[0]?.split('=')[1] ?? '', 'base64url');
    const hs = await new SignJWT({ id: ADMIN })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('gateway')
      .setAudience('nrad-services')
      .setExpirationTime('60s')
      .sign(createSecretKey(publicDer));
    await expect(verifyIdentity(hs, keys)).rejects.toThrow();
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ iss: 'gateway', aud: 'nrad-services', id: ADMIN })).toString('base64url')}.`;
    await expect(verifyIdentity(none, keys)).rejects.toThrow();
    // Signed by ingest, claiming to be the gateway.
    await expect(verifyIdentity(await forged({ id: ADMIN }, 'gateway', ingest.key), keys)).rejects.toThrow();
    await expect(verifyIdentity(await forged({ id: ADMIN }, 'ops', ingest.key), keys)).rejects.toThrow();
  });

  it('lets a service act for a user only with the gateway’s token for them: the request’s own, or a grant to it', async () => {
    const requestToken = await signIdentity(USER, TEST_GATEWAY_SIGNER);
    expect(await verifyIdentity(await signOnBehalf(requestToken, ingest), keys)).toEqual({
      identity: USER,
      caller: 'ingest',
    });
    const grant = await signGrant(ADMIN, 'report', TEST_GATEWAY_SIGNER);
    expect(await verifyIdentity(await signOnBehalf(grant, report), keys)).toEqual({
      identity: ADMIN,
      caller: 'report',
    });
    // A grant is worth nothing to another service, nor alone, nor as a request's token.
    await expect(verifyIdentity(await signOnBehalf(grant, ingest), keys)).rejects.toThrow();
    await expect(verifyIdentity(grant, keys)).rejects.toThrow();
    // A proof signed by a service is no proof; a proof for a service or a visitor is none either.
    const selfMade = await forged({ id: ADMIN }, 'ingest');
    await expect(verifyIdentity(await signOnBehalf(selfMade, ingest), keys)).rejects.toThrow();
    const visitor = await signIdentity({ kind: 'anonymous' }, TEST_GATEWAY_SIGNER);
    await expect(verifyIdentity(await signOnBehalf(visitor, ingest), keys)).rejects.toThrow();
    // Only the gateway grants, and it carries no proof of its own.
    await expect(signGrant(USER, 'report', ingest)).rejects.toThrow('only the gateway grants');
    const wrapped = await forged({ id: USER, on: requestToken }, 'gateway', TEST_GATEWAY_SIGNER.key);
    await expect(verifyIdentity(wrapped, keys)).rejects.toThrow();
  });

  it('reads the public keys as deployments write them, and refuses what is not one', () => {
    const pair = newIdentityKeyPair();
    const parsed = parsePublicKeys(`gateway=${pair.publicKey}, report=${pair.publicKey}`);
    expect([...parsed.keys()]).toEqual(['gateway', 'report']);
    expect(() => parsePublicKeys(`report=${pair.publicKey}`)).toThrow('the gateway’s key is required');
    expect(() => parsePublicKeys(`gateway=${pair.privateKey}`)).toThrow();
    expect(() => parsePublicKeys('gateway')).toThrow('each key must be written issuer=key');
    expect(() => parseSigner('ingest', pair.publicKey)).toThrow();
  });
});

describe('tokens signed once and verified once (issue 38)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends the same token for the same identity for half its lifetime, a new one for any change', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const tokens = new IdentityTokens(TEST_GATEWAY_SIGNER);
    const first = await tokens.for(USER);
    expect(await tokens.for({ ...USER })).toBe(first);
    // Another role, agency or user: another token, saying so.
    for (const other of [{ ...USER, role: 'Supervisor' }, { ...USER, organization: 'FIA' as const }, ADMIN]) {
      const token = await tokens.for(other);
      expect(token).not.toBe(first);
      expect((await verifyIdentity(token, keys)).identity).toEqual(other);
    }
    vi.advanceTimersByTime(IDENTITY_REUSE_MS - 1_000);
    expect(await tokens.for(USER)).toBe(first);
    vi.advanceTimersByTime(1_000);
    const next = await tokens.for(USER);
    expect(next).not.toBe(first);
    // What is sent has at least half its lifetime left.
    const { exp } = JSON.parse(Buffer.from(next.split('.')[1] as string, 'base64url').toString());
    expect(exp * 1000 - Date.now()).toBeGreaterThanOrEqual((IDENTITY_TTL_SECONDS * 1000) / 2);
  });

  it('takes a verified token again until it expires, never one that failed, and keeps at most its limit', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const verified = new VerifiedTokens(keys, 3);
    const token = await signIdentity(USER, TEST_GATEWAY_SIGNER, 10);
    const once = await verified.verify(token);
    expect(once).toEqual({ identity: USER, caller: GATEWAY_ISSUER });
    expect(await verified.verify(token)).toBe(once); // taken again, not verified again
    // Shared between requests, so it cannot be changed by one of them.
    expect(Object.isFrozen(once) && Object.isFrozen(once.identity)).toBe(true);
    // A token changed by one character fails each time, and is not kept.
    const at = token.length - 10; // inside the signature
    const tampered = `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    await expect(verified.verify(tampered)).rejects.toThrow();
    await expect(verified.verify(tampered)).rejects.toThrow();
    expect(verified.size).toBe(1);
    // Past its expiry and the leeway of five seconds: verified again, and refused.
    vi.advanceTimersByTime(14_000);
    expect(await verified.verify(token)).toBe(once);
    vi.advanceTimersByTime(2_000);
    await expect(verified.verify(token)).rejects.toThrow();
    // An on-behalf token holds only as long as its proof: here the proof expires first.
    const proof = await signIdentity(USER, TEST_GATEWAY_SIGNER, 10);
    const behalf = await signOnBehalf(proof, ingest);
    expect((await verified.verify(behalf)).identity).toEqual(USER);
    vi.advanceTimersByTime(16_000);
    await expect(verified.verify(behalf)).rejects.toThrow();
    // At most three kept.
    for (const identity of [USER, ADMIN, { kind: 'anonymous' } as const, { ...USER, role: 'Supervisor' }]) {
      await verified.verify(await signIdentity(identity, TEST_GATEWAY_SIGNER));
    }
    expect(verified.size).toBeLessThanOrEqual(3);
  });
});
