import { describe, expect, it } from 'vitest';
import { freePort, holdPort, isListening } from '../src/ports.ts';

describe('holdPort', () => {
  it('keeps a chosen port from being drawn or bound until released', async () => {
    const port = await freePort();
    const held = await holdPort(port);
    expect(held).toBeDefined();
    // Bound: a second hold (or freePort's try, or a server) cannot have it.
    expect(await holdPort(port)).toBeUndefined();
    await held?.release();
    const again = await holdPort(port);
    expect(again).toBeDefined();
    await again?.release();
    expect(await isListening(port)).toBe(false);
  });
});
