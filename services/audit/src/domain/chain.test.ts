import { AUDIT_GENESIS_HASH, type AuditEntry, type AuditEvent, AuditEventSchema } from '@nrad/contracts';
import { describe, expect, it } from 'vitest';
import {
  type ChainAnchor,
  ChainVerifier,
  canonicalJson,
  chainEntry,
  entryHash,
  GENESIS,
  verifyChain,
} from './chain.ts';

const event = (k: number, over: Partial<AuditEvent> = {}): AuditEvent =>
  AuditEventSchema.parse({
    id: `evt-${k}`,
    action: k % 2 ? 'record.read' : 'record.edit',
    at: new Date(Date.UTC(2026, 10, 25, 9, 0, k)).toISOString(),
    userId: `user-${k % 3}`,
    organization: 'BPS',
    recordIds: [`rec-${k}`, `rec-${k + 1}`],
    requestId: `req-${k}`,
    clientAddress: '10.0.0.7',
    service: 'records',
    ...over,
  });

/** A chain of n entries from the genesis. */
function chain(n: number): AuditEntry[] {
  const entries: AuditEntry[] = [];
  let previous: ChainAnchor = GENESIS;
  for (let k = 1; k <= n; k++) {
    const entry = chainEntry(previous, event(k));
    entries.push(entry);
    previous = entry;
  }
  return entries;
}

describe('canonicalJson', () => {
  it('writes the same text whatever the order of the keys, at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: 'x' } })).toBe(
      canonicalJson({ a: { c: 'x', d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
    expect(canonicalJson({ b: 1, a: undefined, c: null })).toBe('{"b":1,"c":null}');
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
  });
});

describe('the hash chain', () => {
  it('links each entry to the one before: seq 1, 2, 3 from the genesis hash', () => {
    const entries = chain(5);
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(entries[0]!.prevHash).toBe(AUDIT_GENESIS_HASH);
    for (let k = 1; k < entries.length; k++) expect(entries[k]!.prevHash).toBe(entries[k - 1]!.hash);
    // The same event hashes the same whatever order its fields were given in.
    const reordered = Object.fromEntries(Object.entries(event(1)).reverse()) as AuditEvent;
    expect(entryHash(AUDIT_GENESIS_HASH, 1, reordered)).toBe(entries[0]!.hash);
    expect(verifyChain(entries)).toEqual({ checked: 5, last: { seq: 5, hash: entries[4]!.hash } });
  });

  it('names the first entry changed afterwards, whichever field was changed', () => {
    const changes: Array<(e: AuditEntry) => AuditEntry> = [
      (e) => ({ ...e, recordIds: [...e.recordIds, 'rec-hidden'] }),
      (e) => ({ ...e, userId: 'someone-else' }),
      (e) => ({ ...e, at: '2026-11-25T10:00:00.000Z' }),
      (e) => ({ ...e, action: 'record.read' === e.action ? 'record.edit' : 'record.read' }),
      (e) => ({ ...e, detail: { status: 403 } }),
    ];
    for (const change of changes) {
      const entries = chain(5);
      entries[2] = change(entries[2]!);
      const report = verifyChain(entries);
      expect(report.broken).toEqual({ seq: 3, reason: 'its fields do not hash to its hash (the entry was changed)' });
      expect(report.checked).toBe(3);
      expect(report.last.seq).toBe(2);
    }
  });

  it('catches a changed entry whose hash was recomputed, a removed entry and an inserted one', () => {
    const forged = chain(5);
    const changed = { ...forged[2]!, userId: 'someone-else' };
    forged[2] = { ...changed, hash: entryHash(changed.prevHash, changed.seq, { ...event(3), userId: 'someone-else' }) };
    expect(verifyChain(forged).broken).toEqual({ seq: 4, reason: "prevHash is not the previous entry's hash" });

    const removed = chain(5);
    removed.splice(2, 1);
    expect(verifyChain(removed).broken?.seq).toBe(4);
    expect(verifyChain(removed).broken?.reason).toContain('where 3 was expected');

    const inserted = chain(5);
    inserted.splice(2, 0, chainEntry(inserted[1]!, event(99)));
    expect(verifyChain(inserted).broken?.seq).toBe(3);
  });

  it('starts from the anchor retention leaves, and only from it', () => {
    const entries = chain(6);
    const kept = entries.slice(3);
    const anchor = { seq: entries[2]!.seq, hash: entries[2]!.hash };
    expect(verifyChain(kept, anchor)).toEqual({ checked: 3, last: { seq: 6, hash: entries[5]!.hash } });
    expect(verifyChain(kept).broken?.seq).toBe(4);
    expect(verifyChain(kept, { seq: 3, hash: entries[1]!.hash }).broken?.reason).toBe(
      "prevHash is not the previous entry's hash",
    );
  });

  it('verifies one entry at a time, stopping at the first break', () => {
    const entries = chain(4);
    entries[1] = { ...entries[1]!, service: 'elsewhere' };
    const verifier = new ChainVerifier();
    expect(entries.map((e) => verifier.next(e))).toEqual([true, false, false, false]);
    expect(verifier.report().checked).toBe(2);
  });
});
