/**
 * The audit trail's hash chain (issue 21). Entry n stores seq n, the hash of entry n − 1
 * (prevHash; AUDIT_GENESIS_HASH for the first) and its own hash: SHA-256 over prevHash, seq and
 * the event in canonical JSON (keys sorted at every level, no spaces), so the same event always
 * hashes the same whatever order its fields were written in. Editing any stored field of an entry
 * changes its hash; removing or inserting one breaks the next entry's prevHash or the run of seq.
 *
 * Retention removes the oldest entries only: the chain then starts from an anchor — the seq and
 * hash of the last entry removed — kept beside it, and verification starts there.
 *
 * Pure: no I/O. The store appends through chainEntry and the verifier walks with ChainVerifier.
 */
import { createHash } from 'node:crypto';
import { AUDIT_GENESIS_HASH, type AuditEntry, type AuditEvent } from '@nrad/contracts';

/** JSON with object keys sorted at every level and no whitespace; undefined members left out. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('not a finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const members = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${members.join(',')}}`;
}

/** The event fields of an entry (what is hashed besides prevHash and seq). */
export function eventOf(entry: AuditEntry): AuditEvent {
  const { seq: _seq, prevHash: _prevHash, hash: _hash, ...event } = entry;
  return event;
}

/** The hash of an entry: SHA-256 (hex) of prevHash, seq and the canonical event, one per line. */
export function entryHash(prevHash: string, seq: number, event: AuditEvent): string {
  return createHash('sha256')
    .update(`${prevHash}\n${seq}\n${canonicalJson(event)}`)
    .digest('hex');
}

/** Where a chain (or what retention left of it) starts: the last entry before the first kept. */
export interface ChainAnchor {
  readonly seq: number;
  readonly hash: string;
}

export const GENESIS: ChainAnchor = { seq: 0, hash: AUDIT_GENESIS_HASH };

/** The entry that stores `event` after `previous` (the anchor for the first). */
export function chainEntry(previous: ChainAnchor, event: AuditEvent): AuditEntry {
  const seq = previous.seq + 1;
  return { ...event, seq, prevHash: previous.hash, hash: entryHash(previous.hash, seq, event) };
}

/** The first entry that does not hold, and why. */
export interface ChainBreak {
  readonly seq: number;
  readonly reason: string;
}

export interface ChainReport {
  /** Entries checked (up to and including a break). */
  readonly checked: number;
  /** The last good entry: where a chain that holds ends (the anchor when empty). */
  readonly last: ChainAnchor;
  readonly broken?: ChainBreak;
}

/**
 * Walks a chain entry by entry in seq order (a database cursor feeds it one at a time): each
 * entry's seq follows the one before, its prevHash is that entry's hash, and its hash is what its
 * fields hash to. Stops counting at the first break.
 */
export class ChainVerifier {
  private last: ChainAnchor;
  private checked = 0;
  private broken: ChainBreak | undefined;

  constructor(anchor: ChainAnchor = GENESIS) {
    this.last = anchor;
  }

  /** Checks the next entry; false once the chain is broken (here or before). */
  next(entry: AuditEntry): boolean {
    if (this.broken) return false;
    this.checked++;
    const expectedSeq = this.last.seq + 1;
    let reason: string | undefined;
    if (entry.seq !== expectedSeq)
      reason = `seq ${entry.seq} where ${expectedSeq} was expected (an entry missing or added)`;
    else if (entry.prevHash !== this.last.hash) reason = "prevHash is not the previous entry's hash";
    else if (entry.hash !== entryHash(entry.prevHash, entry.seq, eventOf(entry))) {
      reason = 'its fields do not hash to its hash (the entry was changed)';
    }
    if (reason) {
      this.broken = { seq: entry.seq, reason };
      return false;
    }
    this.last = { seq: entry.seq, hash: entry.hash };
    return true;
  }

  report(): ChainReport {
    return { checked: this.checked, last: this.last, ...(this.broken ? { broken: this.broken } : {}) };
  }
}

/** Verifies a whole chain at once (ChainVerifier over `entries`). */
export function verifyChain(entries: Iterable<AuditEntry>, anchor: ChainAnchor = GENESIS): ChainReport {
  const verifier = new ChainVerifier(anchor);
  for (const entry of entries) if (!verifier.next(entry)) break;
  return verifier.report();
}
