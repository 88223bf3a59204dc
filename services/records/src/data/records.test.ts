import { RecordInputSchema, RecordSearchSchema, type UserIdentity } from '@nrad/contracts';
import { testNamespace } from '@nrad/infra/harness';
import { connectMongo, isFerretDb, Scope, scopeOf } from '@nrad/service-kit';
import { Types } from 'mongoose';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { deletionVariants } from '../domain/text.ts';
import { nearTerms, searchCriteria } from '../use-cases/records.ts';
import {
  nameTermsOf,
  newRecordDoc,
  type OutboxEntry,
  presentRecord,
  type RecordDoc,
  RecordRepository,
} from './records.ts';

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
const bps = Scope.agency('BPS');

describe('single-record writes', () => {
  it('a write from a stale version changes nothing', async () => {
    // Two instances of the service: each has its own lock, so only the version condition protects
    // (on MongoDB; on FerretDB the same filter, by _id and version, is an index lookup too).
    const a = new RecordRepository(db);
    const b = new RecordRepository(db);
    await a.init();
    const doc = newRecordDoc(input('G-1'), owner);
    await a.insert(bps, doc);
    expect(await b.updateAtVersion(bps, doc._id, 1, { suspectName: 'From B', version: 2 }, [event('e1')])).toBe(true);
    expect(await a.updateAtVersion(bps, doc._id, 1, { suspectName: 'From A', version: 2 }, [event('e2')])).toBe(false);
    expect(await a.setOutbox(doc._id, 1, [])).toBe(false);
    const now = await a.findById(bps, doc._id);
    expect(now).toMatchObject({ suspectName: 'From B', version: 2, outboxPending: true });
    expect(now?.outbox.map((e) => e.id)).toEqual(['e1']);
    expect(await a.setOutbox(doc._id, 2, [])).toBe(true);
    expect(await a.findById(bps, doc._id)).toMatchObject({ outbox: [], outboxPending: false });
  });

  it('removes the fields a change unsets (a restored record has no deletedAt at all)', async () => {
    const repo = new RecordRepository(db);
    const doc = newRecordDoc(input('U-1'), owner);
    expect(doc).not.toHaveProperty('deletedAt');
    await repo.insert(bps, doc);
    const deletedAt = new Date();
    const set = { deleted: true, deletedAt, deletedById: new Types.ObjectId(), version: 2 };
    expect(await repo.updateAtVersion(bps, doc._id, 1, set, [event('e3')])).toBe(true);
    expect(await repo.findById(bps, doc._id)).toMatchObject({ deleted: true, deletedAt, version: 2 });
    const restore = { deleted: false, version: 3 };
    expect(await repo.updateAtVersion(bps, doc._id, 2, restore, [event('e4')], ['deletedAt', 'deletedById'])).toBe(
      true,
    );
    const restored = await repo.findById(bps, doc._id);
    expect(restored).toMatchObject({ deleted: false, version: 3 });
    expect(restored).not.toHaveProperty('deletedAt');
    expect(restored).not.toHaveProperty('deletedById');
  });

  it("reads and writes only the scope's records", async () => {
    const repo = new RecordRepository(db);
    const doc = newRecordDoc(input('S-1'), owner);
    const fia = Scope.agency('FIA');
    await expect(repo.insert(fia, doc)).rejects.toThrow(/outside FIA/);
    await repo.insert(bps, doc);
    expect(await repo.findById(fia, doc._id)).toBeNull();
    expect(await repo.findByIds(fia, [doc._id])).toEqual([]);
    expect(await repo.updateAtVersion(fia, doc._id, 1, { suspectName: 'From FIA', version: 2 }, [event('s1')])).toBe(
      false,
    );
    const all = Scope.system('records repository test');
    expect(await repo.findById(all, doc._id)).toMatchObject({ suspectName: 'Ann Lee', version: 1 });
    expect((await repo.findByIds(bps, [doc._id])).map((d) => d.incidentNumber)).toEqual(['S-1']);
  });

  it('knows the embedded FerretDB from MongoDB', async () => {
    const source = inject('infra').source;
    if (source === 'local processes') expect(await isFerretDb(db)).toBe(true);
    if (source === 'testcontainers') expect(await isFerretDb(db)).toBe(false); // MongoDB 7
  });
});

describe('linked organizations', () => {
  it('$addToSet adds each organization once, by _id, without touching version, updatedAt or the outbox', async () => {
    // MONGO-COMPAT.md lists $addToSet as safe on FerretDB; this checks it (and what it reports).
    {
      const repo = new RecordRepository(db);
      await repo.init();
      const doc = newRecordDoc(input('L-1'), owner, new Date('2024-01-02T03:04:05.000Z'));
      await repo.insert(bps, { ...doc, outbox: [event('l-1')], outboxPending: true });
      expect(await repo.addLinkedOrganization(doc._id, 'FIA')).toBe('added');
      expect(await repo.addLinkedOrganization(doc._id, 'CUS')).toBe('added');
      expect(await repo.addLinkedOrganization(doc._id, 'FIA')).toBe('unchanged');
      const now = await repo.findById(bps, doc._id);
      expect(now?.linkedOrganizations).toEqual(['FIA', 'CUS']);
      expect(now).toMatchObject({ version: 1, updatedAt: doc.updatedAt, outboxPending: true });
      expect(now?.outbox.map((e) => e.id)).toEqual(['l-1']);
      expect(presentRecord(now as RecordDoc)).toMatchObject({ linked: true, linkedOrganizations: ['CUS', 'FIA'] });
      expect(await repo.addLinkedOrganization(new Types.ObjectId(), 'FIA')).toBe('missing');
    }
  });

  it('a document stored before links (no field) presents as not linked and takes a first link', async () => {
    const repo = new RecordRepository(db);
    const { linkedOrganizations: _, ...old } = newRecordDoc(input('OLD-1'), owner);
    await db.collection('records').insertOne(old);
    const stored = (await repo.findById(bps, old._id)) as RecordDoc;
    expect(stored.linkedOrganizations).toBeUndefined();
    expect(presentRecord(stored)).toMatchObject({ linked: false, linkedOrganizations: [] });
    expect(await repo.addLinkedOrganization(old._id, 'BPS')).toBe('added');
    expect(presentRecord((await repo.findById(bps, old._id)) as RecordDoc)).toMatchObject({
      linked: true,
      linkedOrganizations: ['BPS'],
    });
  });
});

describe('records stored before the name vocabulary', () => {
  it('get their name terms once at start, the vocabulary theirs, and lose their variants and the old indexes', async () => {
    const legacyDb = await connectMongo({ url: t.mongoUrl, dbName: t.db('records-legacy') });
    try {
      const raw = legacyDb.collection('records');
      const legacy = (n: number, name: string) => {
        const { suspectNameTerms, ...doc } = newRecordDoc({ ...input(`LEG-${n}`), suspectName: name }, owner);
        return { ...doc, suspectNameVariants: suspectNameTerms.flatMap(deletionVariants) };
      };
      // More than one batch of the migration, and one record written by the new code meanwhile.
      const docs = Array.from({ length: 1001 }, (_, n) =>
        legacy(n, n === 500 ? 'Marie-Hélène Dubois' : `Ann ${n} Lee`),
      );
      await raw.insertMany(docs);
      await raw.createIndex({ suspectNameVariants: 1 });
      // And one of the five-part indexes the single-field ones replaced.
      await raw.createIndex({ organization: 1, deleted: 1, suspectDob: 1, createdAt: -1, _id: -1 });
      const current = newRecordDoc({ ...input('NEW-1'), suspectName: 'Jon Smith' }, owner);
      await raw.insertOne(current);

      const repo = new RecordRepository(legacyDb);
      await repo.init();

      expect(await raw.countDocuments({ suspectNameVariants: { $exists: true } })).toBe(0);
      const stored = await raw.find({}, { projection: { suspectName: 1, suspectNameTerms: 1 } }).toArray();
      expect(stored).toHaveLength(1002);
      for (const d of stored) expect(d.suspectNameTerms).toEqual(nameTermsOf(d.suspectName));
      const indexes = (await raw.indexes()).map((i) => i.name);
      expect(indexes).not.toContain('suspectNameVariants_1');
      expect(indexes).not.toContain('organization_1_deleted_1_suspectDob_1_createdAt_-1__id_-1');
      expect(indexes).toEqual(expect.arrayContaining(['suspectNameTerms_1', 'suspectDob_1', 'totalCents_1']));
      expect(await legacyDb.collection('migrations').countDocuments({ _id: 'record-name-terms' as never })).toBe(1);

      // A misspelt search finds the migrated record through the vocabulary the migration wrote.
      const body = RecordSearchSchema.parse({ suspectName: 'mariehelene dubios' });
      const near = await nearTerms({ records: repo }, body);
      expect(near.get('dubios')).toEqual(['dubios', 'dubois']);
      const user: UserIdentity = {
        kind: 'user',
        userId: owner.createdById,
        name: 'BPS user',
        organization: 'BPS',
        role: 'Analyst',
      };
      const found = await repo.nameCandidates(scopeOf(user), searchCriteria(body, near), 'createdAt');
      expect(found.map((c) => c._id.toHexString())).toEqual([(docs[500] as { _id: Types.ObjectId })._id.toHexString()]);

      // Once: a later start reads the mark and leaves the records be.
      await raw.updateOne({ _id: current._id }, { $unset: { suspectNameTerms: '' } });
      await new RecordRepository(legacyDb).init();
      expect((await raw.findOne({ _id: current._id }))?.suspectNameTerms).toBeUndefined();
    } finally {
      await legacyDb.close();
    }
  });
});
