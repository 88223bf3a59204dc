import type { ConsumerState, StreamState } from '@nrad/contracts';
import type { JetStreamManager } from '@nrad/service-kit';

/** A time JetStream gives as RFC 3339 text (what the server sends), or nothing. */
function isoOrNull(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  // The server writes the zero time for "never".
  return Number.isNaN(ms) || ms <= 0 ? null : new Date(ms).toISOString();
}

/**
 * Each stream of the account whose name starts with `prefix` (messages, bytes, first and last
 * sequence) and each of its consumers (pending, ack pending, redelivered, waiting pulls, last
 * delivery), ordered by name.
 */
export async function readJetStream(
  jsm: JetStreamManager,
  prefix: string,
): Promise<{ streams: StreamState[]; consumers: ConsumerState[] }> {
  const streams: StreamState[] = [];
  const consumers: ConsumerState[] = [];
  for await (const info of jsm.streams.list()) {
    const name = info.config.name;
    if (!name.startsWith(prefix)) continue;
    streams.push({
      name,
      subjects: info.config.subjects ?? [],
      messages: info.state.messages,
      bytes: info.state.bytes,
      firstSeq: info.state.first_seq,
      lastSeq: info.state.last_seq,
      consumers: info.state.consumer_count,
    });
    for await (const c of jsm.consumers.list(name)) {
      consumers.push({
        stream: name,
        name: c.name,
        pending: c.num_pending,
        ackPending: c.num_ack_pending,
        redelivered: c.num_redelivered,
        waiting: c.num_waiting,
        lastDelivery: { streamSeq: c.delivered.stream_seq, at: isoOrNull(c.delivered.last_active) },
      });
    }
  }
  streams.sort((a, b) => a.name.localeCompare(b.name));
  consumers.sort((a, b) => a.stream.localeCompare(b.stream) || a.name.localeCompare(b.name));
  return { streams, consumers };
}
