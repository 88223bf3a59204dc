/**
 * Which records a user's NAMLC checks disclosed, and until when (issue 34): such a record may be
 * linked by that user even where the stored pair scores under the disclosure threshold (the user
 * checked with what the Add Record form held, then saved something else). Kept in memory for a
 * lookup that costs the same whatever the id, and in the store (LinkingStore.saveDisclosures) so
 * that a restart keeps them.
 */
export class Disclosures {
  private readonly until = new Map<string, number>();

  /** Notes that `recordIds` were disclosed to `userId` until `expiresAt` (ms since the epoch). */
  add(userId: string, recordIds: readonly string[], expiresAt: number): void {
    for (const recordId of recordIds) {
      const key = `${userId}:${recordId}`;
      this.until.set(key, Math.max(expiresAt, this.until.get(key) ?? 0));
    }
  }

  /** Whether `recordId` was disclosed to `userId` and that is still in force at `now`. */
  has(userId: string, recordId: string, now: number): boolean {
    return (this.until.get(`${userId}:${recordId}`) ?? 0) > now;
  }

  /** Forgets the disclosures past their time. */
  prune(now: number): void {
    for (const [key, expiresAt] of this.until) if (expiresAt <= now) this.until.delete(key);
  }

  get size(): number {
    return this.until.size;
  }
}
