import mongoose, { type Connection } from 'mongoose';

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
