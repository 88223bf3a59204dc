/**
 * Removes everything of a test namespace (namespace.ts): its databases, Redis keys and JetStream
 * streams. No vitest here: the stack host (gateway/test/stack-host.ts) cleans up with it too.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';

export async function cleanupNamespace(infra: { mongoUrl: string; natsUrl: string; redisUrl: string }, ns: string) {
  await Promise.all([
    dropDatabases(infra.mongoUrl, ns),
    deleteRedisKeys(infra.redisUrl, ns),
    deleteStreams(infra.natsUrl, ns),
  ]);
}

async function dropDatabases(url: string, ns: string) {
  const conn = await mongoose.createConnection(url, { serverSelectionTimeoutMS: 5000 }).asPromise();
  try {
    const { databases } = await conn.db!.admin().listDatabases();
    for (const d of databases) {
      if (d.name.startsWith(`${ns}_`)) await conn.useDb(d.name).dropDatabase();
    }
  } finally {
    await conn.close();
  }
}

async function deleteRedisKeys(url: string, ns: string) {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${ns}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

async function deleteStreams(url: string, ns: string) {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(`${ns}_`)) await jsm.streams.delete(name);
    }
  } finally {
    await nc.close();
  }
}

/** Stops an HTTP server a test started: its open connections cut, then closed. */
export async function closeHttpServer(server: import('node:http').Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
