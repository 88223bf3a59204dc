/**
 * `npm run deployment-secrets`: a new set of the secrets the parts share with no one else, for a
 * deployment (docker-compose.yml, or a cluster's secrets), printed as lines of an .env file: each
 * signer's identity key (its private key to that part alone, IDENTITY_PUBLIC_KEYS to every
 * service), each part's NATS password and Redis's. Nothing is written to disk.
 */
import { NATS_USERS, natsPasswordVariable, newNatsPassword } from '../nats.ts';
import { IDENTITY_SIGNERS, newIdentityKeySet, newPassword, publicKeysOf } from '../secrets.ts';

const keys = newIdentityKeySet();
const lines = [
  '# NRAD deployment secrets. Keep them secret; give each part only its own.',
  `IDENTITY_PUBLIC_KEYS=${publicKeysOf({ identityKeys: keys })}`,
  ...IDENTITY_SIGNERS.map((name) => `${name.toUpperCase()}_IDENTITY_PRIVATE_KEY=${keys[name].privateKey}`),
  ...NATS_USERS.map((user) => `${natsPasswordVariable(user)}=${newNatsPassword()}`),
  `REDIS_PASSWORD=${newPassword()}`,
  `SESSION_SECRET=${newPassword()}`,
];
process.stdout.write(`${lines.join('\n')}\n`);
