import type { CaseRecord } from '@nrad/contracts';
import { LinkingStore } from '@nrad/linking-service/bench-support';
import { LinkingConfigSchema } from '@nrad/linking-service/config';
import { RecordsConfigSchema } from '@nrad/records-service/config';
import { presentRecord, type RecordDoc, RecordRepository } from '@nrad/records-service/storage';
import { connectMongo } from '@nrad/service-kit';
import { StatsStore, stateOf } from '@nrad/stats-service/bench-support';
import { StatsConfigSchema } from '@nrad/stats-service/config';
import type { Connection, mongo } from 'mongoose';
import { describeStore, type RunContext, requireEmpty } from './harness.ts';

/**
 * The stores of the services that keep records — the records collection, the linking service's
 * match index and links, the stats read model — opened before any service starts (startSystem's
 * `beforeServices`), each in its service's own database.
 */
export interface ServiceStores {
  conn: Connection;
  records: RecordRepository;
  /** The records collection, typed with the stored document (for seeding and clean-up). */
  raw: mongo.Collection<RecordDoc>;
  linking: LinkingStore;
  stats: StatsStore;
  /** The store's description (`FerretDB 1.24.2 (embedded, SQLite backend)`). */
  name: string;
}

/** Opens the stores; refuses collections that hold documents (a benchmark needs a scratch server). */
export async function openServiceStores(mongoUrl: string, env: RunContext['env']): Promise<ServiceStores> {
  const conn = await connectMongo({ url: mongoUrl, dbName: RecordsConfigSchema.shape.MONGO_DB.parse(undefined) });
  try {
    const records = new RecordRepository(conn);
    const dbOf = (name: string) => conn.useDb(name, { useCache: true });
    const linking = new LinkingStore(dbOf(LinkingConfigSchema.shape.MONGO_DB.parse(undefined)));
    const stats = new StatsStore(dbOf(StatsConfigSchema.shape.MONGO_DB.parse(undefined)));
    await Promise.all([records.init(), linking.init(), stats.init()]);
    if (!conn.db) throw new Error('not connected to the store');
    const name = await describeStore(conn.db, env);
    await requireEmpty(name, [records.model, linking.index, linking.links, stats.states]);
    const raw = records.model.collection as unknown as mongo.Collection<RecordDoc>;
    return { conn, records, raw, linking, stats, name };
  } catch (err) {
    await conn.close();
    throw err;
  }
}

/**
 * Writes records into the stores as each service stores them: the documents, their match-index
 * entries (`entryFor` of the presented record) and, at `finish`, their states in the stats read
 * model (`stateOf`, `replaceAll`), so the services load them at start as after a restart.
 */
export function servicesWriter(s: ServiceStores) {
  const states: Array<[string, ReturnType<typeof stateOf>]> = [];
  return {
    /** Writes a batch; resolves the records as the API presents them. */
    async write(docs: RecordDoc[]): Promise<CaseRecord[]> {
      const presented = docs.map((d) => presentRecord(d));
      for (const r of presented) states.push([r.id, stateOf(r)]);
      await Promise.all([s.records.insertMany(docs), s.linking.insertEntries(presented)]);
      return presented;
    },
    /** Stores the stats states of everything written; resolves how many. */
    async finish(): Promise<number> {
      await s.stats.replaceAll(states);
      return states.length;
    },
  };
}
