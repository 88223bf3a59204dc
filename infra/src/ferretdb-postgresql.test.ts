import mongoose from 'mongoose';
import { afterAll, describe, expect, it } from 'vitest';
import { startFerretdb } from './ferretdb.ts';
import { startPostgres } from './postgres.ts';

const stops: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

describe('embedded FerretDB on its PostgreSQL backend', () => {
  it('serves mongoose with data in a throwaway PostgreSQL cluster', async () => {
    const pg = await startPostgres();
    stops.push(pg.stop);
    const fdb = await startFerretdb({ postgresqlUrl: pg.url });
    stops.push(() => fdb.process.stop());

    const conn = await mongoose.createConnection(fdb.url, { dbName: 'nrad_pg_probe' }).asPromise();
    const Thing = conn.model('Thing', new mongoose.Schema({ key: { type: String, unique: true }, n: Number }));
    await Thing.init();
    await Thing.insertMany([
      { key: 'a', n: 1 },
      { key: 'b', n: 2 },
    ]);
    await expect(Thing.create({ key: 'a', n: 3 })).rejects.toMatchObject({ code: 11000 });
    expect(await Thing.find({ n: { $gte: 2 } }).lean()).toMatchObject([{ key: 'b' }]);
    await conn.close();
  });
});
