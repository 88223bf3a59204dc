import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import { describe, expect, inject, it } from 'vitest';
import { testNamespace } from './harness/index.ts';

const t = testNamespace();

describe('test infrastructure', () => {
  it('serves mongoose, JetStream and Redis at the URLs it provides', async () => {
    expect(inject('infra').source).toMatch(/environment|testcontainers|local processes/);

    const conn = await mongoose.createConnection(t.mongoUrl, { dbName: t.db('probe') }).asPromise();
    const Thing = conn.model('Thing', new mongoose.Schema({ name: { type: String, unique: true } }));
    await Thing.init();
    await Thing.create({ name: 'a' });
    await expect(Thing.create({ name: 'a' })).rejects.toMatchObject({ code: 11000 });
    expect(await Thing.countDocuments()).toBe(1);
    await conn.close();

    const nc = await connect({ servers: t.natsUrl });
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.add({ name: t.stream('PROBE'), subjects: [t.subject('probe.>')] });
    expect(info.config.name).toBe(t.stream('PROBE'));
    await nc.close();

    const redis = new Redis(t.redisUrl);
    await redis.set(`${t.redisPrefix}k`, 'v');
    expect(await redis.get(`${t.redisPrefix}k`)).toBe('v');
    redis.disconnect();
  });
});
