import { testNamespace } from '@nrad/infra/harness';
import { Schema } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMongo, isDuplicateKeyError, mongoReadiness } from './mongo.ts';

const t = testNamespace();
let conn: Awaited<ReturnType<typeof connectMongo>>;

beforeAll(async () => {
  conn = await connectMongo({ url: t.mongoUrl, dbName: t.db('kit') });
});
afterAll(() => conn?.close());

describe('connectMongo (against the real FerretDB)', () => {
  it('neutralizes query operators smuggled in user input (sanitizeFilter)', async () => {
    const User = conn.model('SanitizeUser', new Schema({ email: String, secret: String }));
    await User.create({ email: 'a@b.c', secret: 's' });
    const userInput = JSON.parse('{"$ne": "nobody"}');
    // Without sanitizeFilter this would match every user.
    await expect(User.find({ email: userInput }).lean()).rejects.toThrow(/Cast to string failed/);
    const inputObj = JSON.parse('{"email": {"$gt": ""}}');
    await expect(User.findOne(inputObj).lean()).rejects.toThrow();
    expect(await User.findOne({ email: 'a@b.c' }).lean()).toMatchObject({ secret: 's' });
  });

  it('throws on a filter path that is not in the schema (strictQuery)', async () => {
    const Thing = conn.model('StrictThing', new Schema({ name: String }));
    await expect(Thing.find({ nmae: 'typo' })).rejects.toThrow(/strictQuery/);
  });

  it('recognizes duplicate-key errors by code', async () => {
    const Unique = conn.model('UniqueThing', new Schema({ key: { type: String, unique: true } }));
    await Unique.init();
    await Unique.create({ key: 'k' });
    const err = await Unique.create({ key: 'k' }).catch((e: unknown) => e);
    expect(isDuplicateKeyError(err)).toBe(true);
    expect(isDuplicateKeyError(new Error('other'))).toBe(false);
  });

  it('reports readiness', async () => {
    await expect(mongoReadiness(conn)()).resolves.toBeUndefined();
  });
});
