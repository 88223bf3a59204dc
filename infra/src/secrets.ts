import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { newIdentityKeyPair as newKeyPair } from '@nrad/service-kit';
import { isNatsPassword, NATS_USERS, type NatsUser, newNatsPassword } from './nats.ts';

/**
 * The parts that sign identity tokens, each with its own Ed25519 key (service-kit identity.ts):
 * the gateway for users, the others for their calls to another service.
 */
export const IDENTITY_SIGNERS = ['gateway', 'ingest', 'linking', 'report'] as const;
export type IdentitySignerName = (typeof IDENTITY_SIGNERS)[number];

/** An Ed25519 key pair as the variables carry it: PKCS#8 and SPKI DER, base64url. */
export interface IdentityKeyPair {
  privateKey: string;
  publicKey: string;
}

export interface LocalSecrets {
  identityKeys: Record<IdentitySignerName, IdentityKeyPair>;
  /** Each part's NATS password, and the operator's (nats-server.conf). */
  natsPasswords: Record<NatsUser, string>;
  /** What Redis requires of every client. */
  redisPassword: string;
  sessionSecret: string;
  adminPassword: string;
}

/** A password of 24 random bytes, as text safe in a URL (Redis's, a session key). */
export const newPassword = () => randomBytes(24).toString('base64url');

/** A key pair for every signer. */
export function newIdentityKeySet(): LocalSecrets['identityKeys'] {
  return Object.fromEntries(IDENTITY_SIGNERS.map((name) => [name, newKeyPair()])) as LocalSecrets['identityKeys'];
}

/** IDENTITY_PUBLIC_KEYS: every signer's public key (`gateway=<key>,ingest=<key>,…`). */
export function publicKeysOf(secrets: Pick<LocalSecrets, 'identityKeys'>): string {
  return IDENTITY_SIGNERS.map((name) => `${name}=${secrets.identityKeys[name].publicKey}`).join(',');
}

/**
 * The secrets of a local installation, generated on the first start and kept in
 * `<data dir>/secrets.json` (readable by the owner only), so sessions and the admin password
 * survive restarts; the passwords NATS and Redis require of the parts (issue 37). A file from
 * before a secret existed gets it added (the shared identity secret of earlier versions is
 * dropped: each signer now has its own key).
 */
export function loadOrCreateSecrets(dataDir: string): LocalSecrets {
  const file = path.join(dataDir, 'secrets.json');
  const stored: Partial<LocalSecrets> & { identitySecret?: string } = existsSync(file)
    ? JSON.parse(readFileSync(file, 'utf8'))
    : {};
  const identityKeys = Object.fromEntries(
    IDENTITY_SIGNERS.map((name) => [name, stored.identityKeys?.[name] ?? newKeyPair()]),
  ) as LocalSecrets['identityKeys'];
  const natsPasswords = Object.fromEntries(
    NATS_USERS.map((user) => {
      const kept = stored.natsPasswords?.[user];
      return [user, isNatsPassword(kept) ? kept : newNatsPassword()];
    }),
  ) as LocalSecrets['natsPasswords'];
  const secrets: LocalSecrets = {
    identityKeys,
    natsPasswords,
    redisPassword: stored.redisPassword ?? newPassword(),
    sessionSecret: stored.sessionSecret ?? randomBytes(32).toString('base64url'),
    adminPassword: stored.adminPassword ?? randomBytes(12).toString('base64url'),
  };
  const complete =
    stored.identitySecret === undefined &&
    IDENTITY_SIGNERS.every((name) => stored.identityKeys?.[name]) &&
    NATS_USERS.every((user) => isNatsPassword(stored.natsPasswords?.[user])) &&
    stored.redisPassword &&
    stored.sessionSecret &&
    stored.adminPassword;
  if (!complete) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  }
  return secrets;
}
