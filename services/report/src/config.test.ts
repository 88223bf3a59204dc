import { testIdentityEnv } from '@nrad/service-kit/test-identity';
import { describe, expect, it } from 'vitest';
import { loadReportConfig } from './config.ts';

const base = {
  ...testIdentityEnv('report'),
  MONGO_URL: 'mongodb://127.0.0.1:27017',
  REDIS_URL: 'redis://127.0.0.1:6379',
  NATS_URL: 'nats://127.0.0.1:4222',
  STATS_URL: 'http://127.0.0.1:1',
  LINKING_URL: 'http://127.0.0.1:2',
};

describe('report configuration', () => {
  it('has no model by default (blank variables are unset), and waits 120 s', () => {
    const c = loadReportConfig({ ...base, OPENAI_MODEL: ' ', OPENAI_BASE_URL: '' });
    expect(c.OPENAI_MODEL).toBeUndefined();
    expect(c.OPENAI_BASE_URL).toBeUndefined();
    expect(c.REPORT_WAIT_SECONDS).toBe(120);
  });

  it('wants a key for OpenAI itself, not for a local server, and never shows the key', () => {
    expect(() => loadReportConfig({ ...base, OPENAI_MODEL: 'gpt-4.1' })).toThrow(/OPENAI_API_KEY: is required/);
    expect(
      loadReportConfig({ ...base, OPENAI_MODEL: 'llama3', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }),
    ).toMatchObject({
      OPENAI_MODEL: 'llama3',
    });
    expect(() =>
      loadReportConfig({ ...base, OPENAI_MODEL: 'm', OPENAI_API_KEY: 'sk-secret', OPENAI_BASE_URL: 'not a url' }),
    ).toThrow(/^(?!.*sk-secret).*OPENAI_BASE_URL/);
  });
});
