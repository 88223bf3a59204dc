import { beforeAll, describe, expect, it } from 'vitest';
import { STATE_COLLECTION, StatsStore } from '../src/data/store.ts';
import { rebuildCommand } from '../src/rebuild-command.ts';
import { RebuildRefusedError, rebuildReadModel } from '../src/use-cases/rebuild.ts';
import { logger, type StatsHarness, startStats, userOf, YEAR } from './harness.ts';

let h: StatsHarness;
beforeAll(async () => {
  h = await startStats();
});

const users = [userOf('BPS'), userOf('FIA'), userOf('CUS'), userOf('ADMIN')] as const;
const [bps, fia, cus, admin] = users;

/** What every organization reads, and the stored states without their write times. */
async function snapshot() {
  const figures = await Promise.all(users.map((u) => h.read(u)));
  const states = (
    await h.db
      .collection(STATE_COLLECTION)
      .find({}, { projection: { appliedAt: 0 } })
      .toArray()
  ).sort((a, b) => String(a._id).localeCompare(String(b._id)));
  return { figures, states };
}

describe('rebuilding the read model from the RECORDS stream', () => {
  it('gives the figures the incremental model gave, which equal a direct count over the records', async () => {
    // A history of every kind of change, in three agencies and ADMIN.
    const a = await h.create(bps, { internationalNexus: true, country: 'Canada', seizedAmount: '10.10' });
    const b = await h.create(bps, { seizedAmount: '5', incidentDate: `${YEAR - 1}-03-03` });
    const c = await h.create(fia, { internationalNexus: true, country: 'Jamaica', seizedAmount: '7.77' });
    await h.create(cus, { internationalNexus: true, country: 'Canada' });
    await h.create(admin, { seizedAmount: '1' });
    const a2 = await h.edit(bps, a, { country: 'Bahamas', seizedAmount: '20' });
    const b2 = await h.remove(bps, b);
    await h.restore(bps, b2);
    await h.remove(fia, c);
    await h.edit(bps, a2, { internationalNexus: false, country: 'Bermuda' });
    await h.caughtUp();
    for (const user of users) await h.expectDirect(user);
    const incremental = await snapshot();

    // A damaged model: a state lost, one wrong, one that belongs to no record.
    const states = h.db.collection(STATE_COLLECTION);
    await states.deleteOne({ organization: 'FIA' });
    await states.updateOne({ organization: 'CUS' }, { $set: { country: 'Nowhere', seizedCents: 99_999 } });
    await states.insertOne({ ...(await states.findOne({ organization: 'ADMIN' })), _id: undefined } as never);

    const report = await h.rebuild();
    const stream = await h.bus.jsm.streams.info(h.config.RECORDS_STREAM);
    expect(report).toMatchObject({ events: stream.state.messages, undecodable: 0, records: 5 });
    expect(await snapshot()).toEqual(incremental);
    for (const user of users) await h.expectDirect(user);

    // The service goes on from its durable consumer: the next change counts once.
    await h.create(fia, { internationalNexus: true, country: 'Jamaica' });
    await h.caughtUp();
    for (const user of users) await h.expectDirect(user);
  });

  it('refuses to run while the service is running, and the command says so', async () => {
    const options = {
      store: new StatsStore(h.db),
      bus: h.bus,
      logger,
      stream: h.config.RECORDS_STREAM,
      subjectPrefix: h.config.RECORDS_SUBJECT_PREFIX,
      durable: h.config.RECORDS_CONSUMER,
    };
    await expect(rebuildReadModel(options)).rejects.toBeInstanceOf(RebuildRefusedError);
    const lines: string[] = [];
    const env = {
      MONGO_URL: h.config.MONGO_URL,
      MONGO_DB: h.config.MONGO_DB,
      NATS_URL: h.config.NATS_URL,
      RECORDS_STREAM: h.config.RECORDS_STREAM,
      RECORDS_SUBJECT_PREFIX: h.config.RECORDS_SUBJECT_PREFIX,
      LOG_LEVEL: 'silent',
    };
    expect(await rebuildCommand(env, [], (l) => lines.push(l))).toBe(1);
    expect(lines.join('\n')).toMatch(/stats service is running.*stop it/);

    await h.halt();
    const before = await snapshot();
    expect(await rebuildCommand(env, [], (l) => lines.push(l))).toBe(0);
    expect(lines.at(-1)).toMatch(/^Rebuilt the stats read model of .* records, 0 undecodable/);
    await h.restart();
    expect(await snapshot()).toEqual(before);
    expect(await rebuildCommand(env, ['--help'], (l) => lines.push(l))).toBe(0);
    expect(await rebuildCommand({ ...env, MONGO_URL: 'not a url' }, [], (l) => lines.push(l))).toBe(1);
    expect(lines.at(-1)).toContain('MONGO_URL');
  });

  it('builds an empty model from a stream without events, and refuses a stream that lost its first events', async () => {
    const other = await startStats();
    await other.halt();
    const options = {
      store: new StatsStore(other.db),
      bus: other.bus,
      logger,
      stream: other.config.RECORDS_STREAM,
      subjectPrefix: other.config.RECORDS_SUBJECT_PREFIX,
      durable: other.config.RECORDS_CONSUMER,
    };
    expect(await rebuildReadModel(options)).toMatchObject({ events: 0, records: 0 });
    expect(await other.db.collection(STATE_COLLECTION).countDocuments()).toBe(0);

    await other.create(bps); // a record and its event …
    await other.bus.jsm.streams.purge(other.config.RECORDS_STREAM); // … and the event gone
    await expect(rebuildReadModel(options)).rejects.toThrow(/no longer holds its first events/);
    await expect(rebuildReadModel({ ...options, stream: `${options.stream}_MISSING` })).rejects.toThrow(
      /no stream .*_MISSING/,
    );
  });

  it('rebuilds at start a model stored before the breakdowns, or counts what it cannot rebuild as withoutDetail', async () => {
    const legacy = { detailed: '', incidentMonth: '', crimeType: '', crimeSubtype: '', cyberAssisted: '' };
    const unsetDetail = (db: typeof h.db) =>
      db.collection(STATE_COLLECTION).updateMany({}, { $unset: { ...legacy, caseCents: '', confiscatedCents: '' } });
    await h.create(fia, { crimeType: 'Fraud', crimeSubtype: 'Credit Fraud', cyberAssisted: true, caseAmount: '12.50' });
    await h.create(cus, { confiscatedAmount: '3', seizedAmount: '9' });
    await h.caughtUp();
    await h.halt();
    await unsetDetail(h.db);
    await h.restart();
    expect(await h.db.collection(STATE_COLLECTION).countDocuments({ detailed: true })).toBe(
      await h.db.collection(STATE_COLLECTION).countDocuments(),
    );
    for (const user of users) await h.expectDirect(user);

    // A stream without its history: the service starts and says which records lack the detail.
    const other = await startStats();
    await other.create(bps, { cyberAssisted: true });
    await other.create(bps);
    await other.caughtUp();
    await other.halt();
    await unsetDetail(other.db);
    await other.bus.jsm.streams.purge(other.config.RECORDS_STREAM);
    await other.restart();
    const { breakdown } = await other.read(bps);
    expect(breakdown).toMatchObject({ totalRecords: 2, withoutDetail: 2, cyberAssisted: { count: 0, share: null } });
    expect(breakdown.crimeTypes).toEqual([]);
  });
});
