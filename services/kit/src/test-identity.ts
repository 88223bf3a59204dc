/**
 * Identity keys for tests (never for a deployment): each issuer's key pair is derived from its
 * name (testIdentityKeyPair), so a test process and every child it starts agree on them without
 * key material in the repository. `npm start` generates real ones into its secrets file.
 */
import type { Identity, UserIdentity } from '@nrad/contracts';
import {
  type IdentityKeys,
  type IdentitySigner,
  parsePublicKeys,
  parseSigner,
  signGrant,
  signIdentity,
  signOnBehalf,
  testIdentityKeyPair,
} from './identity.ts';

/** The issuers a deployment has (the gateway and the services that call others), and one that signs nothing. */
export const TEST_ISSUERS = ['gateway', 'ingest', 'linking', 'report', 'records'] as const;
export type TestIssuer = (typeof TEST_ISSUERS)[number];

/** IDENTITY_PUBLIC_KEYS of every test issuer. */
export const TEST_PUBLIC_KEYS = TEST_ISSUERS.map((i) => `${i}=${testIdentityKeyPair(i).publicKey}`).join(',');

/** The signer of a test issuer. */
export function testSigner(issuer: TestIssuer): IdentitySigner {
  return parseSigner(issuer, testIdentityKeyPair(issuer).privateKey);
}

/** The gateway's test signer: what tests use to speak to a service as the gateway would. */
export const TEST_GATEWAY_SIGNER = testSigner('gateway');

/** The public keys every test service trusts. */
export function testIdentityKeys(): IdentityKeys {
  return parsePublicKeys(TEST_PUBLIC_KEYS);
}

/** A service's identity variables in tests: the public keys, and its private key if it signs. */
export function testIdentityEnv(service: string): Record<string, string> {
  const signs = (TEST_ISSUERS as readonly string[]).includes(service);
  return {
    IDENTITY_PUBLIC_KEYS: TEST_PUBLIC_KEYS,
    ...(signs ? { IDENTITY_PRIVATE_KEY: testIdentityKeyPair(service).privateKey } : {}),
  };
}

/**
 * A token as a test's caller would send it: a service's own identity signed by that service, any
 * other identity by the gateway.
 */
export async function testToken(identity: Identity, ttlSeconds?: number): Promise<string> {
  const issuer =
    identity.kind === 'service' && (TEST_ISSUERS as readonly string[]).includes(identity.service)
      ? (identity.service as TestIssuer)
      : 'gateway';
  return signIdentity(identity, testSigner(issuer), ttlSeconds);
}

/** The gateway's test grant: `user`, for `service`'s later calls on their behalf. */
export function testGrant(user: UserIdentity, service: TestIssuer): Promise<string> {
  return signGrant(user, service, TEST_GATEWAY_SIGNER);
}

/** A token as `service` sends it on `user`'s behalf, with the gateway's test grant as its proof. */
export async function testOnBehalfToken(user: UserIdentity, service: TestIssuer): Promise<string> {
  return signOnBehalf(await testGrant(user, service), testSigner(service));
}
