import { createSecretKey } from 'node:crypto';
import type { Identity, UserIdentity } from '@nrad/contracts';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  GATEWAY_ISSUER,
  newIdentityKeyPair,
  parsePublicKeys,
  parseSigner,
  signGrant,
  signIdentity,
  signOnBehalf,
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
