import mongoose, { type Connection, type mongo } from 'mongoose';

/**
 * A mongoose connection to one database, with the safety settings NRAD requires:
 * `sanitizeFilter` (query filters cannot smuggle `$` operators from user input) and
 * `strictQuery: 'throw'` (a filter on a path that is not in the schema is a bug, not an empty
 * result). A connection per service, never mongoose's global one.
 */
export async function connectMongo(options: {
  url: string;
  dbName: string;
  serverSelectionTimeoutMS?: number;
}): Promise<Connection> {
  const conn = mongoose.createConnection(options.url, {
    dbName: options.dbName,
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 10_000,
    autoIndex: true,
    // Fail fast instead of queueing queries while disconnected: callers get an error at once and
    // readiness reports the database down; the driver itself still retries server selection.
    bufferCommands: false,
  });
  conn.set('sanitizeFilter', true);
  // strictQuery is a schema option; a connection plugin applies it to every schema of this connection.
  conn.plugin((schema) => {
    schema.set('strictQuery', 'throw');
  });
  await conn.asPromise();
  return conn;
}

/** Readiness check: the database answers a ping. */
export function mongoReadiness(conn: Connection) {
  return async () => {
    if (!conn.db) throw new Error('not connected');
    await conn.db.command({ ping: 1 });
  };
}

/**
 * Whether the server is FerretDB (it reports `ferretdbVersion` in buildInfo). Repositories use it
 * to shape single-record writes: FerretDB's SQLite backend uses an index only for a filter that is
 * exactly `{ _id }` (MONGO-COMPAT.md), and applies updates as read-modify-write anyway.
 */
export async function isFerretDb(conn: Connection): Promise<boolean> {
  const info = await conn.db?.admin().command({ buildInfo: 1 });
  return typeof info?.ferretdbVersion === 'string';
}

/** MongoDB's duplicate-key error (FerretDB too). Compare the code, never the message. */
export function isDuplicateKeyError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}

/**
 * Inserts `docs` in one unordered write and resolves the positions of those refused as duplicates
 * (a unique index, `_id` included, already holds their key), having inserted the rest. Any other
 * failure throws.
 */
export async function insertManyExceptDuplicates<T extends object>(
  collection: mongo.Collection<T>,
  docs: readonly T[],
): Promise<number[]> {
  if (docs.length === 0) return [];
  try {
    await collection.insertMany(docs as mongo.OptionalUnlessRequiredId<T>[], { ordered: false });
    return [];
  } catch (err) {
    const writeErrors = (err as { writeErrors?: unknown }).writeErrors;
    const list = (Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : []) as Array<{
      index: number;
      code?: number;
      err?: { code?: number };
    }>;
    if (!list.length || list.some((e) => (e.code ?? e.err?.code) !== 11000)) throw err;
    return list.map((e) => e.index);
  }
}

/**
 * Writes documents whole by `_id`, as an upsert each would, but inserts those known to be `fresh`
 * in one unordered write (one transaction for all of them on FerretDB, where each upsert is a query
 * and a transaction of its own); a fresh one found to exist already is replaced like the `known`.
 */
export async function replaceManyById<T extends { _id: unknown }>(
  collection: mongo.Collection<T>,
  fresh: readonly T[],
  known: readonly T[],
): Promise<void> {
  const refused = (await insertManyExceptDuplicates(collection, fresh)).map((at) => fresh[at] as T);
  for (const doc of [...refused, ...known]) {
    await collection.replaceOne({ _id: doc._id } as mongo.Filter<T>, doc as mongo.WithoutId<T>, { upsert: true });
  }
}
