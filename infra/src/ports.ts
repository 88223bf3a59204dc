import { readFileSync } from 'node:fs';
import net from 'node:net';

/**
 * The first port the system hands out by itself — to `listen(0)` and to every outgoing
 * connection — on Linux (32768 by default), else 49152 (IANA's dynamic range).
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 0) return low;
  } catch {
    // not Linux
  }
  return 49152;
}

/** Whether a port on 127.0.0.1 can be listened on right now (held, then released): the port, or undefined. */
async function tryPort(port: number): Promise<number | undefined> {
  const held = await holdPort(port);
  if (!held) return undefined;
  await held.release();
  return held.port;
}

const BAND_LOW = 10_000;

/**
 * A TCP port on 127.0.0.1 that nothing listens on right now, for a server this process starts
 * a moment later. Drawn at random below the system's ephemeral range: a port `listen(0)` had
 * handed out was often taken by an outgoing connection of another test (every client socket gets
 * one of those) in the second before the child server bound it — `EADDRINUSE` in a whole-system
 * suite beside the others (ADR 0021). Falls back to `listen(0)` where there is no such band.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow();
  if (high - BAND_LOW >= 1000) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = await tryPort(BAND_LOW + Math.floor(Math.random() * (high - BAND_LOW)));
      if (port !== undefined) return port;
    }
  }
  const port = await tryPort(0);
  if (port === undefined) throw new Error('no free TCP port on 127.0.0.1');
  return port;
}

/**
 * Keeps `port` on 127.0.0.1 bound (so that no freePort of this or another process draws it) until
 * `release` — for a server started later than its port is chosen; undefined when it is taken.
 * Port 0 holds whichever port the system hands out (`port` says which).
 */
export function holdPort(port: number): Promise<{ port: number; release(): Promise<void> } | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        release: () => new Promise<void>((done) => server.close(() => done())),
      }),
    );
  });
}

/** Whether something accepts connections on host:port. */
export function isListening(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Polls until `check` resolves true, or fails after `timeoutMs` with `what` in the message. The
 * wait between checks doubles from 25 ms to at most 100 ms: a local server is seen ready within
 * 0.1 s of being so (at 0.5 s each step of a start was rounded up to about 0.8 s).
 */
export async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delay = 25;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 100);
  }
  throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
}
