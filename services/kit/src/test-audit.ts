/**
 * Reading an AUDIT stream in tests (never in a service: the audit writer consumes it durably).
 * A message carries one event, or a group commit's batch of them (issue 38); each event read
 * keeps the subject and `Nats-Msg-Id` of the message it came in.
 */
import { AUDIT_BATCH_SUBJECT, type AuditEvent } from '@nrad/contracts';
import { auditMessageEvents } from './audit.ts';
import type { Bus } from './jetstream.ts';

/** An event as read from the stream, with its message's subject and id. */
export type StreamedAuditEvent = AuditEvent & { subject: string; msgId: string };

/** Every event of the stream, in stream order (a batch's in its order). */
export async function readAuditStream(bus: Bus, stream: string): Promise<StreamedAuditEvent[]> {
  const total = (await bus.jsm.streams.info(stream)).state.messages;
  const out: StreamedAuditEvent[] = [];
  if (total === 0) return out;
  const consumer = await bus.js.consumers.get(stream);
  let seen = 0;
  for await (const m of await consumer.fetch({ max_messages: total, expires: 5000 })) {
    const msgId = m.headers?.get('Nats-Msg-Id') ?? '';
    for (const event of auditMessageEvents(m.json())) out.push({ ...event, subject: m.subject, msgId });
    if (++seen === total) break;
  }
  return out;
}

/**
 * How an event was carried: `alone` (on `<prefix>.<action>` under its own id, so a re-publish is
 * kept once by the stream), `batch` (on `<prefix>.batch` under a batch's id; the writer keeps it
 * once by its own id), or what was wrong with its message.
 */
export function howCarried(e: StreamedAuditEvent, prefix: string): string {
  if (e.subject === `${prefix}.${e.action}` && e.msgId === e.id) return 'alone';
  if (e.subject === `${prefix}.${AUDIT_BATCH_SUBJECT}` && e.msgId.startsWith('batch-')) return 'batch';
  return `on ${e.subject} under message id ${e.msgId}`;
}
