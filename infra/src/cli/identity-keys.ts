/**
 * `npm run identity-keys`: a new set of identity keys for a deployment (docker-compose.yml, or a
 * cluster's secrets), printed as lines of an .env file. Each signer's private key goes to that part
 * alone; every service gets IDENTITY_PUBLIC_KEYS. Nothing is written to disk.
 */
import { IDENTITY_SIGNERS, newIdentityKeySet, publicKeysOf } from '../secrets.ts';

const keys = newIdentityKeySet();
const lines = [
  '# NRAD identity keys (Ed25519). Keep the private keys secret; give each only to its part.',
  `IDENTITY_PUBLIC_KEYS=${publicKeysOf({ identityKeys: keys })}`,
  ...IDENTITY_SIGNERS.map((name) => `${name.toUpperCase()}_IDENTITY_PRIVATE_KEY=${keys[name].privateKey}`),
];
process.stdout.write(`${lines.join('\n')}\n`);
