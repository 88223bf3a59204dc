import { waitUntil } from '@nrad/infra/harness';
import { Scope } from '@nrad/service-kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { OWNERS_COLLECTION } from '../src/data/owners.ts';
import { ENTRIES_COLLECTION } from '../src/data/store.ts';
import { type AuditHarness, auditEvent, recordEvent, startAudit } from './harness.ts';

/** The writer (audit.> → the chain) and the owners (records.> → record_owners), through real streams. */
let h: AuditHarness;
beforeAll(async () => {
  h = await startAudit();
});

const stored = () => h.db.collection(ENTRIES_COLLECTION).countDocuments();

describe('the audit writer', () => {
  it('stores every published event once, in stream order, as a chain that holds', async () => {
    const before = await stored();
    const events = Array.from({ length: 30 }, (_, k) =>
      auditEvent({
        action: k % 3 === 0 ? 'record.list' : 'record.read',
        recordIds: [`r${k}`, `r${k + 1}`],
        ...(k === 4 ? { detail: { status: 404, refused: true } } : {}),
      }),
    );
    for (const e of events) await h.publish(e);
    await waitUntil('30 entries stored', async () => (await stored()) === before + 30, 10_000);
    const entries = await h.built.store.entries.find({}).sort({ _id: 1 }).lean();
    expect(entries.slice(before).map((e) => e.eventId)).toEqual(events.map((e) => e.id));
    expect(entries.slice(before).find((e) => e.eventId === events[4]?.id)?.detail).toEqual({
      status: 404,
      refused: true,
    });
    const report = await h.built.store.verify();
    expect(report.broken).toBeUndefined();
    expect(report.checked).toBe(before + 30);
  });

  it('stores an event published twice (under its id, or under another message id) once', async () => {
    const event = auditEvent({ action: 'sign-in' });
    await h.publish(event);
    await h.publish(event); // the stream drops it: same Nats-Msg-Id
    await h.publish(event, `${event.id}-again`); // the stream keeps it; the store does not
    await h.caughtUp();
    expect(await h.db.collection(ENTRIES_COLLECTION).countDocuments({ eventId: event.id })).toBe(1);
    expect((await h.built.store.verify()).broken).toBeUndefined();
  });

  it('terminates what does not decode and never stores it, then goes on', async () => {
    const before = await stored();
    await h.publishRaw('record.read', 'not json');
    await h.publishRaw('record.read', JSON.stringify({ ...auditEvent(), action: 'record.peek' }));
    await h.publishRaw('record.read', JSON.stringify({ ...auditEvent(), password: 'secret' })); // unknown field
    const good = auditEvent();
    await h.publish(good);
    await h.caughtUp();
    expect(await stored()).toBe(before + 1);
    expect(await h.db.collection(ENTRIES_COLLECTION).countDocuments({ eventId: good.id })).toBe(1);
    const info = await h.bus.jsm.consumers.info(h.config.AUDIT_STREAM, h.config.AUDIT_CONSUMER);
    expect(info.num_pending + info.num_ack_pending).toBe(0);
  });

  it('stores a group commit’s batch as its events, in order, each once (also when one comes again alone)', async () => {
    const before = await stored();
    const batch = Array.from({ length: 5 }, (_, k) => auditEvent({ recordIds: [`b${k}`] }));
    await h.publishRaw('batch', JSON.stringify({ events: batch }));
    // A relay's re-publish of an event whose batch was stored but not acknowledged.
    await h.publish(batch[2] as (typeof batch)[number]);
    // Not a batch: too few events, or one that does not decode (the whole message is terminated).
    await h.publishRaw('batch', JSON.stringify({ events: [auditEvent()] }));
    await h.publishRaw('batch', JSON.stringify({ events: [auditEvent(), { ...auditEvent(), action: 'record.peek' }] }));
    await h.caughtUp();
    expect(await stored()).toBe(before + 5);
    const entries = await h.built.store.entries.find({}).sort({ _id: 1 }).lean();
    expect(entries.slice(before).map((e) => e.eventId)).toEqual(batch.map((e) => e.id));
    expect((await h.built.store.verify()).broken).toBeUndefined();
  });

  it('goes on from where it stopped after a restart (durable), without a second copy', async () => {
    await h.halt();
    const whileDown = [auditEvent(), auditEvent()];
    for (const e of whileDown) await h.publish(e);
    const before = await stored();
    await h.restart();
    await h.caughtUp();
    expect(await stored()).toBe(before + 2);
    for (const e of whileDown) {
      expect(await h.db.collection(ENTRIES_COLLECTION).countDocuments({ eventId: e.id })).toBe(1);
    }
    expect((await h.built.store.verify()).broken).toBeUndefined();
  });
});

describe('record owners', () => {
  it('keeps each record’s organization from records.* events, once, whatever comes again', async () => {
    const bps = recordEvent('BPS');
    const fia = recordEvent('FIA');
    const admin = recordEvent('ADMIN');
    for (const e of [bps, fia, admin]) await h.publishRecord(e);
    // Later events of the same records, and the same event again under a new message id.
    await h.publishRecord(recordEvent('BPS', bps.record.id, 'updated'));
    await h.publishRecord(recordEvent('FIA', fia.record.id, 'deleted'));
    await h.publishRecord({ ...bps, id: crypto.randomUUID() });
    await h.caughtUp();
    expect(await h.built.owners.ownerOf(Scope.system('test'), bps.record.id)).toBe('BPS');
    expect(await h.built.owners.ownerOf(Scope.system('test'), fia.record.id)).toBe('FIA');
    expect(await h.built.owners.ownerOf(Scope.system('test'), admin.record.id)).toBe('ADMIN');
    expect(await h.built.owners.ownerOf(Scope.system('test'), '000000000000000000000000')).toBeNull();
    const ids = [bps, fia, admin].map((e) => e.record.id);
    expect(await h.db.collection(OWNERS_COLLECTION).countDocuments({ _id: { $in: ids } as never })).toBe(3);
  });

  it('takes a bulk upload’s events in a few writes', async () => {
    const events = Array.from({ length: 500 }, () => recordEvent('CUS'));
    await Promise.all(events.map((e) => h.publishRecord(e)));
    await h.caughtUp();
    const ids = events.map((e) => e.record.id);
    expect(
      await h.db.collection(OWNERS_COLLECTION).countDocuments({ _id: { $in: ids } as never, organization: 'CUS' }),
    ).toBe(500);
  });
});
