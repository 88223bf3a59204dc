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

  it('runAll runs its work holding every key: never alongside work on any of them', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const hold = (name: string, ms: number) => async () => {
      log.push(`${name}+`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`${name}-`);
      return name;
    };
    const before = lock.run('b', hold('b-before', 20));
    const all = lock.runAll(['c', 'a', 'b', 'a'], hold('all', 10));
    const onC = lock.run('c', hold('c', 15));
    const other = lock.run('z', hold('z', 1));
    expect(await Promise.all([before, all, onC, other])).toEqual(['b-before', 'all', 'c', 'z']);
    const apart = (x: string, y: string) =>
      log.indexOf(`${x}-`) < log.indexOf(`${y}+`) || log.indexOf(`${y}-`) < log.indexOf(`${x}+`);
    expect(apart('all', 'b-before')).toBe(true);
    expect(apart('all', 'c')).toBe(true);
    expect(log.indexOf('z-')).toBeLessThan(log.indexOf('all-')); // other keys go alongside
  });
});
