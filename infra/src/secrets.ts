import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface LocalSecrets {
  identitySecret: string;
  sessionSecret: string;
  adminPassword: string;
}

/**
 * The secrets of a local installation, generated on the first start and kept in
 * `<data dir>/secrets.json` (readable by the owner only), so sessions and the admin password
 * survive restarts.
 */
export function loadOrCreateSecrets(dataDir: string): LocalSecrets {
  const file = path.join(dataDir, 'secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as LocalSecrets;
  mkdirSync(dataDir, { recursive: true });
  const secrets: LocalSecrets = {
    identitySecret: randomBytes(32).toString('base64url'),
    sessionSecret: randomBytes(32).toString('base64url'),
    adminPassword: randomBytes(12).toString('base64url'),
  };
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}
