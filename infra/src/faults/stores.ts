/**
 * Direct reads of the system's stores for the fault suite: each service's database on the
 * FerretDB, the JetStream consumers, the Redis spools. Read only; opened once the faults are over.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { natsServersOf } from '@nrad/service-kit';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';

export type MongoClient = InstanceType<typeof mongoose.mongo.MongoClient>;

/** The databases of the services, as their config.ts defaults name them. */
export const DB = {
  records: 'nrad_records',
  linking: 'nrad_linking',
  stats: 'nrad_stats',
  audit: 'nrad_audit',
  ingest: 'nrad_ingest',
} as const;

export interface StoredRecord {
  _id: { toHexString(): string };
  incidentNumber: string;
  incidentKey: string;
  organization: string;
  deleted: boolean;
  internationalNexus: boolean;
  linkedOrganizations?: string[];
}

export class Stores {
  private constructor(
    readonly mongo: MongoClient,
    readonly nats: NatsConnection,
    readonly redis: Redis,
  ) {}

  static async open(urls: { mongoUrl: string; natsUrl: string; redisUrl: string }): Promise<Stores> {
    const mongo = new mongoose.mongo.MongoClient(urls.mongoUrl, { serverSelectionTimeoutMS: 10_000 });
    await mongo.connect();
    const nats = await connect({ ...natsServersOf(urls.natsUrl), name: 'fault-suite', maxReconnectAttempts: -1 });
    const redis = new Redis(urls.redisUrl, { maxRetriesPerRequest: 3, lazyConnect: false });
    return new Stores(mongo, nats, redis);
  }

  async close(): Promise<void> {
    await this.mongo.close().catch(() => undefined);
    await this.nats.close().catch(() => undefined);
    this.redis.disconnect();
  }

  db(name: string) {
    return this.mongo.db(name);
  }

  /** Every record the records service holds (the fields the checks count by). */
  records(): Promise<StoredRecord[]> {
    return this.db(DB.records)
      .collection<StoredRecord>('records')
      .find(
        {},
        {
          projection: {
            incidentNumber: 1,
            incidentKey: 1,
            organization: 1,
            deleted: 1,
            internationalNexus: 1,
            linkedOrganizations: 1,
          },
        },
      )
      .toArray() as Promise<StoredRecord[]>;
  }

  /** Every link: its pair (`<id>:<id>`, ascending) and id. */
  links(): Promise<Array<{ _id: { toHexString(): string }; pairKey: string; published: boolean }>> {
    return this.db(DB.linking)
      .collection<{ _id: { toHexString(): string }; pairKey: string; published: boolean }>('links')
      .find({}, { projection: { pairKey: 1, published: 1 } })
      .toArray();
  }

  /** Audit entries of an action: their event ids and the record ids they name. */
  auditEntries(
    action: string,
  ): Promise<Array<{ eventId: string; recordIds: string[]; userId: string | null; detail?: Record<string, unknown> }>> {
    return this.db(DB.audit)
      .collection<{
        eventId: string;
        recordIds: string[];
        action: string;
        userId: string | null;
        detail?: Record<string, unknown>;
      }>('audit_entries')
      .find({ action }, { projection: { eventId: 1, recordIds: 1, userId: 1, detail: 1 } })
      .toArray();
  }

  /**
   * What has not reached its destination yet, each as a short text (none: settled): JetStream
   * consumers with messages pending or unacknowledged, records with events in their outbox, import
   * outbox documents, unpublished links, spooled audit events (each service's `audit_spool`, the
   * Redis spools), and the counts of what the events build (they must have stopped changing: see
   * `fingerprint`).
   */
  async pending(): Promise<string[]> {
    const found: string[] = [];
    const jsm = await jetstreamManager(this.nats);
    for await (const stream of jsm.streams.list()) {
      for await (const c of jsm.consumers.list(stream.config.name)) {
        if (c.num_pending > 0 || c.num_ack_pending > 0) {
          found.push(`${stream.config.name}/${c.name}: ${c.num_pending} pending, ${c.num_ack_pending} unacknowledged`);
        }
      }
    }
    const count = async (db: string, collection: string, filter: Record<string, unknown>, what: string) => {
      const n = await this.db(db).collection(collection).countDocuments(filter);
      if (n > 0) found.push(`${db}.${collection}: ${n} ${what}`);
    };
    await count(DB.records, 'records', { outboxPending: true }, 'records with events in their outbox');
    await count(DB.records, 'import_events', {}, 'import outbox documents');
    await count(DB.linking, 'links', { published: false }, 'links not published');
    const { databases } = await this.mongo.db('admin').admin().listDatabases();
    for (const { name } of databases) {
      if (!name.startsWith('nrad_')) continue;
      const collections = await this.db(name).listCollections({ name: 'audit_spool' }).toArray();
      if (collections.length) await count(name, 'audit_spool', {}, 'spooled audit events');
    }
    for (const key of await this.redis.keys('*audit:spool:order')) {
      const n = await this.redis.zcard(key);
      if (n > 0) found.push(`redis ${key}: ${n} spooled audit events`);
    }
    return found;
  }

  /** Counts that move while events are still being applied; equal twice in a row: nothing moves. */
  async fingerprint(): Promise<string> {
    const n = (db: string, collection: string) => this.db(db).collection(collection).countDocuments({});
    return JSON.stringify([
      await n(DB.records, 'records'),
      await n(DB.linking, 'match_index'),
      await n(DB.linking, 'links'),
      await n(DB.stats, 'record_state'),
      await n(DB.audit, 'audit_entries'),
      await n(DB.audit, 'record_owners'),
    ]);
  }
}
