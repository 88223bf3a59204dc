import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { natsServersOf } from '@nrad/service-kit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NATS_USERS, type NatsUser } from './nats.ts';
import { loadOrCreateSecrets } from './secrets.ts';
import { type RunningInfra, startLocalInfra } from './stack.ts';

/**
 * NATS and Redis as `npm start` runs them (issue 37): every part its own NATS user, allowed to
 * publish its own events only; Redis with a password. The servers are started here on free ports,
 * with the passwords a new secrets file holds (FerretDB is not needed: its URL is given).
 */
describe('the servers npm start runs require credentials', () => {
  let dir: string;
  let infra: RunningInfra;
  const as = (user: NatsUser) => connect({ ...natsServersOf(infra.natsUrlOf(user)), name: `test-${user}` });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'nrad-credentials-'));
    const secrets = loadOrCreateSecrets(dir);
    infra = await startLocalInfra({
      dataDir: dir,
      persist: false,
      given: { mongoUrl: 'mongodb://127.0.0.1:1/' },
      credentials: { nats: secrets.natsPasswords, redis: secrets.redisPassword },
    });
    // The operator makes the streams, as the records and linking services would at start.
    const operator = await connect(natsServersOf(infra.natsUrl));
    const jsm = await jetstreamManager(operator);
    await jsm.streams.add({ name: 'RECORDS', subjects: ['records.>'] });
    await jsm.streams.add({ name: 'LINKS', subjects: ['links.>'] });
    await operator.close();
  });

  afterAll(async () => {
    await infra?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a password per part, and the secrets file readable by its owner only', () => {
    const secrets = loadOrCreateSecrets(dir);
    expect(Object.keys(secrets.natsPasswords).sort()).toEqual([...NATS_USERS].sort());
    expect(new Set(Object.values(secrets.natsPasswords)).size).toBe(NATS_USERS.length);
    expect(statSync(path.join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
  });

  it('refuses a client without a password, and one with another part’s', async () => {
    const url = new URL(infra.natsUrlOf('records'));
    await expect(connect({ servers: `nats://${url.host}` })).rejects.toThrow(/Authorization Violation/);
    await expect(connect({ servers: `nats://${url.host}`, user: 'records', pass: 'not its password' })).rejects.toThrow(
      /Authorization Violation/,
    );
  });

  it('lets each part publish its own events, and refuses a part publishing another’s', async () => {
    const records = await as('records');
    const linking = await as('linking');
    try {
      expect((await jetstream(records).publish('records.created', '{}')).stream).toBe('RECORDS');
      expect((await jetstream(linking).publish('links.created', '{}')).stream).toBe('LINKS');
      // A forged records.created from the linking service, and a forged link from the records service.
      await expect(jetstream(linking).publish('records.created', '{}', { timeout: 3000 })).rejects.toThrow(
        /Permissions Violation for Publish to "records.created"/,
      );
      await expect(jetstream(records).publish('links.created', '{}', { timeout: 3000 })).rejects.toThrow(
        /Permissions Violation for Publish to "links.created"/,
      );
      for (const part of ['stats', 'ingest', 'report', 'audit', 'ops', 'gateway', 'auth'] as const) {
        const nc = await as(part);
        try {
          await expect(jetstream(nc).publish('records.deleted', '{}', { timeout: 3000 }), part).rejects.toThrow(
            /Permissions Violation/,
          );
        } finally {
          await nc.close();
        }
      }
      // Nobody deletes or purges a stream; reading its state is allowed.
      const jsm = await jetstreamManager(linking);
      await expect(jsm.streams.delete('RECORDS')).rejects.toThrow(/Permissions Violation/);
      await expect(jsm.streams.purge('RECORDS')).rejects.toThrow(/Permissions Violation/);
      expect((await jsm.streams.info('RECORDS')).state.messages).toBe(1);
    } finally {
      await records.close();
      await linking.close();
    }
  });

  it('has Redis refuse a client without its password', async () => {
    const url = new URL(infra.redisUrl);
    expect(url.password).not.toBe('');
    const open = new Redis({ host: url.hostname, port: Number(url.port), lazyConnect: true, maxRetriesPerRequest: 0 });
    open.on('error', () => undefined); // the refusal is what is tested
    await open.connect().catch(() => undefined);
    await expect(open.ping()).rejects.toThrow(/NOAUTH/);
    open.disconnect();
    const withPassword = new Redis(infra.redisUrl, { maxRetriesPerRequest: 1 });
    expect(await withPassword.ping()).toBe('PONG');
    withPassword.disconnect();
  });
});
