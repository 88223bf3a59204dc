import { waitUntil } from '@nrad/infra/harness';
import { describe, expect, it } from 'vitest';
import { ENTRIES_COLLECTION } from '../src/data/store.ts';
import { applyRetention } from '../src/jobs/retention.ts';
import { auditEvent, logger, startAudit } from './harness.ts';

const DAY = 86_400_000;
/** The service's clock in these tests. */
const NOW = new Date(Date.UTC(2027, 5, 1, 12));
const daysAgo = (days: number, ms = 0) => new Date(NOW.getTime() - days * DAY + ms).toISOString();

/** Retention on the real store, at a fixed clock: AUDIT_RETENTION_DAYS back from now is the cutoff. */
const h = await startAudit({ now: () => NOW, retentionDays: 30 });

describe('retention', () => {
  it('removes only the entries older than the cutoff, from the start of the chain, and the chain still holds', async () => {
    const events = [
      auditEvent({ at: daysAgo(400) }),
      auditEvent({ at: daysAgo(31) }),
      auditEvent({ at: daysAgo(30, -1) }), // a millisecond older than the cutoff
      auditEvent({ at: daysAgo(30) }), // exactly at the cutoff: kept
      auditEvent({ at: daysAgo(45) }), // stored late with an old time: after a kept one, so kept
      auditEvent({ at: daysAgo(1) }),
    ];
    await h.built.retention.idle(); // the run at start (on an empty chain) is over
    for (const e of events) await h.built.store.append(e);

    const run = await applyRetention({ store: h.built.store, logger, days: 30, everyHours: 24, now: () => NOW });
    expect(run.cutoff.toISOString()).toBe(daysAgo(30));
    expect(run).toMatchObject({ removed: 3, anchor: { seq: 3 } });
    const kept = await h.db.collection(ENTRIES_COLLECTION).find({}).sort({ _id: 1 }).toArray();
    expect(kept.map((d) => d.eventId)).toEqual(events.slice(3).map((e) => e.id));
    expect(await h.built.store.verify()).toMatchObject({ checked: 3, last: { seq: 6 } });
    expect((await h.built.store.verify()).broken).toBeUndefined();

    // Again: nothing more is old enough.
    expect(
      await applyRetention({ store: h.built.store, logger, days: 30, everyHours: 24, now: () => NOW }),
    ).toMatchObject({
      removed: 0,
    });
    // The next append follows the chain.
    const next = await h.built.store.append(auditEvent());
    expect(next.entry.seq).toBe(7);
    expect((await h.built.store.verify()).broken).toBeUndefined();
  });

  it('runs when the service starts, and removes everything once all of it is old', async () => {
    await h.halt();
    const last = await h.built.store.last();
    // A year later every entry kept so far is older than the cutoff.
    const later = new Date(NOW.getTime() + 365 * DAY);
    await h.restart(() => later);
    await waitUntil(
      'retention at start',
      async () => (await h.db.collection(ENTRIES_COLLECTION).countDocuments()) === 0,
    );
    expect(await h.built.store.anchor()).toEqual(last);
    expect(await h.built.store.verify()).toEqual({ checked: 0, last });
    // The chain goes on from the anchor.
    expect((await h.built.store.append(auditEvent({ at: later.toISOString() }))).entry).toMatchObject({
      seq: last.seq + 1,
      prevHash: last.hash,
    });
    expect((await h.built.store.verify()).broken).toBeUndefined();
  });
});
