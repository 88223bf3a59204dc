import { describe, expect, it } from 'vitest';
import { ListTotals } from './list-totals.ts';

/** A store's count the test sets, and how often it was asked. */
function store(initial: Record<string, number>) {
  const counts = { ...initial };
  let asked = 0;
  return {
    counts,
    asked: () => asked,
    count: (key: string) => async () => {
      asked++;
      return counts[key] ?? 0;
    },
  };
}

/** A BPS create that fails with `message` (refused or not, as `refused` says). */
const failingCreate = (totals: ListTotals, message: string, refused?: (err: unknown) => boolean) =>
  totals.change(
    'BPS',
    async () => {
      throw new Error(message);
    },
    () => ({ organization: 'BPS', active: 1, deleted: 0 }),
    refused,
  );

const bpsActive = { organization: 'BPS', deleted: false } as const;
const bpsDeleted = { organization: 'BPS', deleted: true } as const;
const all = { organization: '*', deleted: false } as const;

describe('ListTotals', () => {
  it('keeps a total for its time, then answers it while counting it again once for everyone', async () => {
    let now = 0;
    const totals = new ListTotals(1000, () => now);
    const s = store({ bps: 5 });
    expect(await totals.total(bpsActive, s.count('bps'))).toBe(5);
    s.counts.bps = 6; // another instance's create
    now = 999;
    expect(await totals.total(bpsActive, s.count('bps'))).toBe(5);
    expect(s.asked()).toBe(1);
    // Past its time: the kept total is answered at once, and counted again in the background, once.
    now = 1000;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowCount = async () => {
      await gate;
      return s.count('bps')();
    };
    expect(await totals.total(bpsActive, slowCount)).toBe(5);
    expect(await totals.total(bpsActive, slowCount)).toBe(5);
    release();
    await new Promise((r) => setTimeout(r, 0));
    expect(s.asked()).toBe(2);
    expect(await totals.total(bpsActive, s.count('bps'))).toBe(6);
    expect(s.asked()).toBe(2);
  });

  it('counts a total it does not keep once for everyone who asks at the same time', async () => {
    const totals = new ListTotals(60_000);
    const s = store({ bps: 8 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowCount = async () => {
      await gate;
      return s.count('bps')();
    };
    const asked = [totals.total(bpsActive, slowCount), totals.total(bpsActive, slowCount)];
    release();
    expect(await Promise.all(asked)).toEqual([8, 8]);
    expect(s.asked()).toBe(1);
  });

  it('keeps its total, moved by the changes made here, when counting again was not clean; tries again later', async () => {
    let now = 0;
    const totals = new ListTotals(1000, () => now);
    const s = store({ bps: 10 });
    await totals.total(bpsActive, s.count('bps'));
    now = 1000;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let counted = 0;
    const slowCount = async () => {
      await gate;
      counted++;
      return 99; // whatever it counted during the change: not kept
    };
    expect(await totals.total(bpsActive, slowCount)).toBe(10);
    await totals.change(
      'BPS',
      async () => 'created',
      () => ({ organization: 'BPS', active: 1, deleted: 0 }),
    );
    release();
    await new Promise((r) => setTimeout(r, 0));
    expect(counted).toBe(1);
    // The kept total, moved by the create, is answered for half its time more before counting again.
    now = 1499;
    expect(await totals.total(bpsActive, s.count('bps'))).toBe(11);
    expect(s.asked()).toBe(1);
    now = 1500;
    s.counts.bps = 11;
    expect(await totals.total(bpsActive, s.count('bps'))).toBe(11);
    await new Promise((r) => setTimeout(r, 0));
    expect(s.asked()).toBe(2);
  });

  it('keeps nothing with a time of 0: every list counts', async () => {
    const totals = new ListTotals(0);
    const s = store({ bps: 3 });
    expect(await totals.total(bpsActive, s.count('bps'))).toBe(3);
    s.counts.bps = 4;
    expect(await totals.total(bpsActive, s.count('bps'))).toBe(4);
    expect(s.asked()).toBe(2);
  });

  it('moves the kept totals with this process’s changes: the organization’s and every organization’s', async () => {
    const totals = new ListTotals(60_000);
    const s = store({ bps: 10, bpsDeleted: 2, all: 30 });
    await totals.total(bpsActive, s.count('bps'));
    await totals.total(bpsDeleted, s.count('bpsDeleted'));
    await totals.total(all, s.count('all'));
    await totals.change(
      'BPS',
      async () => 'created',
      () => ({ organization: 'BPS', active: 1, deleted: 0 }),
    );
    // An ADMIN's delete: the record's organization is known from the change's result only.
    await totals.change(
      undefined,
      async () => ({ organization: 'BPS' as const }),
      (r) => ({
        organization: r.organization,
        active: -1,
        deleted: 1,
      }),
    );
    await totals.change(
      'FIA',
      async () => 'created',
      () => ({ organization: 'FIA', active: 2, deleted: 0 }),
    );
    expect(await totals.total(bpsActive, s.count('bps'))).toBe(10);
    expect(await totals.total(bpsDeleted, s.count('bpsDeleted'))).toBe(3);
    expect(await totals.total(all, s.count('all'))).toBe(32);
    expect(s.asked()).toBe(3);
  });

  it('keeps no total counted while a change of its organization was under way', async () => {
    const totals = new ListTotals(60_000);
    const s = store({ bps: 10 });
    let finish!: () => void;
    const change = totals.change(
      'BPS',
      () => new Promise<void>((resolve) => (finish = resolve)),
      () => ({ organization: 'BPS', active: 1, deleted: 0 }),
    );
    // Counted during the change: it may or may not include the record; not kept.
    expect(await totals.total(bpsActive, s.count('bps'))).toBe(10);
    s.counts.bps = 11;
    finish();
    await change;
    expect(await totals.total(bpsActive, s.count('bps'))).toBe(11);
    // A count that began before a change and ended after it is not kept either.
    let release!: (n: number) => void;
    const s2 = store({ bps: 11 });
    const fresh = new ListTotals(60_000);
    const slow = fresh.total(bpsActive, () => new Promise<number>((resolve) => (release = resolve)));
    await fresh.change(
      'BPS',
      async () => undefined,
      () => ({ organization: 'BPS', active: 1, deleted: 0 }),
    );
    release(11);
    expect(await slow).toBe(11);
    s2.counts.bps = 12;
    expect(await fresh.total(bpsActive, s2.count('bps'))).toBe(12);
    expect(s2.asked()).toBe(1);
    // Another organization's change does not keep a BPS count from being kept.
    const other = new ListTotals(60_000);
    const s3 = store({ bps: 4 });
    let done!: () => void;
    const fia = other.change(
      'FIA',
      () => new Promise<void>((resolve) => (done = resolve)),
      () => undefined,
    );
    await other.total(bpsActive, s3.count('bps'));
    await other.total(bpsActive, s3.count('bps'));
    expect(s3.asked()).toBe(1);
    done();
    await fia;
  });

  it('forgets the totals a failed change could have moved', async () => {
    const totals = new ListTotals(60_000);
    const s = store({ bps: 10, fia: 7, all: 17 });
    await totals.total(bpsActive, s.count('bps'));
    await totals.total({ organization: 'FIA', deleted: false }, s.count('fia'));
    await totals.total(all, s.count('all'));
    await expect(failingCreate(totals, 'connection closed')).rejects.toThrow('connection closed');
    s.counts.bps = 11;
    s.counts.all = 18;
    expect(await totals.total(bpsActive, s.count('bps'))).toBe(11);
    expect(await totals.total(all, s.count('all'))).toBe(18);
    expect(await totals.total({ organization: 'FIA', deleted: false }, s.count('fia'))).toBe(7);
    expect(s.asked()).toBe(5);
    // A change refused before it wrote anything (a taken number) forgets nothing.
    await expect(failingCreate(totals, 'taken', (err) => (err as Error).message === 'taken')).rejects.toThrow('taken');
    expect(await totals.total(bpsActive, s.count('bps'))).toBe(11);
    expect(s.asked()).toBe(5);
  });
});
