import { RecordInputSchema } from '@nrad/contracts';
import { testNamespace } from '@nrad/infra/harness';
import { connectMongo, isFerretDb } from '@nrad/service-kit';
import { Types } from 'mongoose';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { newRecordDoc, type OutboxEntry, RecordRepository } from './records.ts';

const t = testNamespace();
const db = await connectMongo({ url: t.mongoUrl, dbName: t.db('records') });
afterAll(() => db.close());

const input = (n: string) =>
  RecordInputSchema.parse({
    incidentNumber: n,
    suspectName: 'Ann Lee',
    suspectDob: '1980-01-01',
    incidentDate: '2020-01-01',
    caseAmount: '1',
    sourceOfRecord: 'Other',
    internationalNexus: false,
  });
const event = (id: string): OutboxEntry => ({ id, subject: 's', payload: '{}', createdAt: new Date() });
const owner = { organization: 'BPS' as const, createdById: new Types.ObjectId().toHexString() };

describe('single-record writes', () => {
  it('with guarded writes (MongoDB), a write from a stale version changes nothing', async () => {
    // Two instances of the service: each has its own lock, so only the version condition protects.
    const a = new RecordRepository(db, { guardedWrites: true });
    const b = new RecordRepository(db, { guardedWrites: true });
    await a.init();
    const doc = newRecordDoc(input('G-1'), owner);
    await a.insert(doc);
    expect(await b.updateAtVersion(doc._id, 1, { suspectName: 'From B', version: 2 }, event('e1'))).toBe(true);
    expect(await a.updateAtVersion(doc._id, 1, { suspectName: 'From A', version: 2 }, event('e2'))).toBe(false);
    expect(await a.setOutbox(doc._id, 1, [])).toBe(false);
    const now = await a.findById(doc._id);
    expect(now).toMatchObject({ suspectName: 'From B', version: 2, outboxPending: true });
    expect(now?.outbox.map((e) => e.id)).toEqual(['e1']);
    expect(await a.setOutbox(doc._id, 2, [])).toBe(true);
    expect(await a.findById(doc._id)).toMatchObject({ outbox: [], outboxPending: false });
  });

  it('without guarded writes (FerretDB, one writer per record under the lock), writes go by id alone', async () => {
    const repo = new RecordRepository(db, { guardedWrites: false });
    const doc = newRecordDoc(input('U-1'), owner);
    await repo.insert(doc);
    expect(await repo.updateAtVersion(doc._id, 1, { suspectName: 'Second', version: 2 }, event('e3'))).toBe(true);
    expect(await repo.findById(doc._id)).toMatchObject({ suspectName: 'Second', version: 2 });
  });

  it('knows the embedded FerretDB from MongoDB', async () => {
    const source = inject('infra').source;
    if (source === 'local processes') expect(await isFerretDb(db)).toBe(true);
    if (source === 'testcontainers') expect(await isFerretDb(db)).toBe(false); // MongoDB 7
  });
});
