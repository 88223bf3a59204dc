/**
 * Serializes async work per key inside this process. FerretDB applies an update as read, modify,
 * write (MONGO-COMPAT.md), even a conditional one, so two writes to one document must not overlap
 * here (a record in the records service, a link in the linking service); on MongoDB the condition
 * of each write makes overlapping instances safe as well.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
