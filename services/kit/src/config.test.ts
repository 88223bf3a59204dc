import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { baseServiceEnv, ConfigError, env, loadConfig } from './config.ts';
import { TEST_PUBLIC_KEYS } from './test-identity.ts';

const schema = z.object({ ...baseServiceEnv, PORT: env.port(3000), FLAG: env.bool(false) });
const good = { IDENTITY_PUBLIC_KEYS: TEST_PUBLIC_KEYS, MONGO_URL: 'mongodb://127.0.0.1:1/' };

describe('loadConfig', () => {
  it('parses and applies defaults', () => {
    const c = loadConfig(schema, { ...good, PORT: '4000' });
    expect(c).toMatchObject({ PORT: 4000, HOST: '127.0.0.1', LOG_LEVEL: 'info', FLAG: false });
  });

  it('fails fast naming every bad variable, never echoing values', () => {
    const secret = 'gateway=not-a-key-at-all';
    let error: unknown;
    try {
      loadConfig(schema, { IDENTITY_PUBLIC_KEYS: secret, PORT: 'abc', FLAG: 'maybe' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['IDENTITY_PUBLIC_KEYS', 'MONGO_URL', 'PORT', 'FLAG']) expect(message).toContain(name);
    expect(message).not.toContain(secret);
  });
});
