import argon2 from 'argon2';

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
  /** Spends the time a real verification would, for sign-ins with an unknown email. */
  burn(password: string): Promise<void>;
}

/** argon2id with the configured cost. */
export async function createPasswordHasher(cost: {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}): Promise<PasswordHasher> {
  const options: Parameters<typeof argon2.hash>[1] = { type: argon2.argon2id, ...cost };
  // A hash of a random secret, so an unknown email costs as much as a wrong password.
  const decoy = await argon2.hash(crypto.randomUUID(), options);
  return {
    hash: (password) => argon2.hash(password, options),
    verify: async (hash, password) => {
      try {
        return await argon2.verify(hash, password);
      } catch {
        return false;
      }
    },
    burn: async (password) => {
      await argon2.verify(decoy, password).catch(() => false);
    },
  };
}
