import { z } from 'zod';
import { offsetPageQuery } from './common.ts';
import { OrganizationSchema } from './organizations.ts';

/**
 * The audit trail (issue 21): who saw and changed what. Each service publishes an audit event for
 * what it did (on `audit.<action>` in the AUDIT stream; through its outbox where the action
 * changes data), and the audit writer stores every event once, append-only, in a hash chain: each
 * entry holds the hash of the one before it, so an entry edited or removed afterwards shows.
 */

/** The JetStream stream of audit events, and its subjects' prefix. */
export const AUDIT_STREAM = 'AUDIT';
export const AUDIT_SUBJECT_PREFIX = 'audit';

/** What can be audited. */
export const AUDIT_ACTIONS = [
  'sign-in',
  'sign-in-failed',
  'lockout',
  'sign-out',
  'record.read',
  'record.edit-form',
  'record.list',
  'record.search',
  'record.create',
  'record.edit',
  'record.delete',
  'record.restore',
  'link.create',
  /** A link refused (issue 34): what was tried, whatever the reason (the caller only saw 404). */
  'link.refused',
  'link.reject',
  'link.restore',
  /** A possible match proposed for review (issue 36): the two records. */
  'possible-match.create',
  /** A possible match rejected (issue 36): the two records, the reason. */
  'possible-match.reject',
  /** A decision on a possible match refused: what was tried (the caller only saw 404). */
  'possible-match.refused',
  'namlc.check',
  'upload',
  'report',
  'options.update',
  'admin',
  'access.refused',
  /** A request over a per-user limit (issue 34): the limit, the path. */
  'rate.limited',
  /** Repeated refusals or limits hit by one user (issue 34): ADMIN sees it in the operations console. */
  'security.alert',
] as const;
export const AuditActionSchema = z.enum(AUDIT_ACTIONS, { error: 'Unknown audit action' });
export type AuditAction = z.infer<typeof AuditActionSchema>;

/** Record ids one event may name (a page of a list or a search names each record it returned). */
export const AUDIT_MAX_RECORD_IDS = 1000;

/** A detail's value: short text, a number, a yes/no, or nothing. */
const DetailValueSchema = z.union([z.string().max(500), z.number(), z.boolean(), z.null()]);

/** One audit event, as a service publishes it (the event id is its `Nats-Msg-Id`). */
export const AuditEventSchema = z.strictObject({
  /** Unique per event: a redelivered or re-published event is stored once. */
  id: z.string().min(1).max(100),
  action: AuditActionSchema,
  /** When it happened (ISO 8601, UTC). */
  at: z.iso.datetime(),
  /** Who: the signed-in user, or null (a sign-in attempt for an unknown user). */
  userId: z.string().max(100).nullable(),
  organization: OrganizationSchema.nullable(),
  /** The records it read, changed or disclosed (each id of a list page or search result). */
  recordIds: z.array(z.string().min(1).max(100)).max(AUDIT_MAX_RECORD_IDS),
  /** The request's id (X-Request-Id), to find the request in the services' logs. */
  requestId: z.string().max(200).nullable(),
  /** The client's address as the gateway saw it. */
  clientAddress: z.string().max(100).nullable(),
  /** The service that did it. */
  service: z.string().min(1).max(50),
  /** What else says what happened (what a NAMLC check asked, an HTTP status): no secrets. */
  detail: z.record(z.string().max(50), DetailValueSchema).optional(),
});
export type AuditEvent = z.infer<typeof AuditEventSchema>;

/**
 * A group commit (issue 38): the events of concurrent requests of one service, published as one
 * message on `audit.batch` while that service's previous publish was waiting for the stream. The
 * audit writer stores each event as if it had come alone (once, by its id).
 */
export const AUDIT_BATCH_SUBJECT = 'batch';
/** Most events one batch carries. */
export const AUDIT_MAX_BATCH_EVENTS = 200;
export const AuditBatchSchema = z.strictObject({
  events: z.array(AuditEventSchema).min(2).max(AUDIT_MAX_BATCH_EVENTS),
});
export type AuditBatch = z.infer<typeof AuditBatchSchema>;

/** An event as the audit writer stores it: its place in the chain and the chain's hashes. */
export const AuditEntrySchema = AuditEventSchema.extend({
  /** 1, 2, 3, … in the order stored. */
  seq: z.number().int().min(1),
  /** The hash of the entry before (AUDIT_GENESIS_HASH for the first). */
  prevHash: z.string().regex(/^[0-9a-f]{64}$/),
  /** SHA-256 over prevHash, seq and the event (see the audit service's chain.ts). */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/** The prevHash of the first entry of a chain. */
export const AUDIT_GENESIS_HASH = '0'.repeat(64);

/** `GET /api/audit`: a record's timeline, a user's actions, a time range (ADMIN; an agency: its own records). */
export const AuditQuerySchema = offsetPageQuery(200).extend({
  recordId: z.string().min(1).max(100).optional(),
  userId: z.string().min(1).max(100).optional(),
  from: z.iso.datetime({ error: 'from must be an ISO 8601 date and time' }).optional(),
  to: z.iso.datetime({ error: 'to must be an ISO 8601 date and time' }).optional(),
});
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

/**
 * One entry as `GET /api/audit` lists it; ADMIN's also say where from (`clientAddress`), which
 * service, and the detail (what was tried: a path and method refused, an email, what a check
 * asked — never a password).
 */
export const AuditItemSchema = AuditEventSchema.pick({
  id: true,
  action: true,
  organization: true,
  userId: true,
  recordIds: true,
  at: true,
  requestId: true,
}).extend({
  seq: z.number().int().min(1),
  clientAddress: AuditEventSchema.shape.clientAddress.optional(),
  service: AuditEventSchema.shape.service.optional(),
  detail: AuditEventSchema.shape.detail,
});
export type AuditItem = z.infer<typeof AuditItemSchema>;

export const AuditPageSchema = z.object({ items: z.array(AuditItemSchema), total: z.number().int().min(0) });
export type AuditPage = z.infer<typeof AuditPageSchema>;
