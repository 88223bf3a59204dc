import { describe, expect, it } from 'vitest';
import { KeyedLock } from './keyed-lock.ts';

describe('KeyedLock', () => {
  it('runs work of one key one at a time, in order, and other keys alongside', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const step = (key: string, name: string, ms: number) =>
      lock.run(key, async () => {
        log.push(`${name}+`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`${name}-`);
        return name;
      });
    const results = await Promise.all([step('a', 'a1', 30), step('a', 'a2', 1), step('b', 'b1', 5)]);
    expect(results).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('a1-')).toBeLessThan(log.indexOf('a2+'));
    expect(log.indexOf('b1-')).toBeLessThan(log.indexOf('a1-'));
  });

  it('keeps going after a failure', async () => {
    const lock = new KeyedLock();
    const failed = lock.run('k', async () => {
      throw new Error('boom');
    });
    const next = lock.run('k', async () => 'ok');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
  });
});
