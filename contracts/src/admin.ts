import { z } from 'zod';
import { ContactRequestSchema } from './auth.ts';
import { offsetPageQuery } from './common.ts';
import { OrganizationSchema } from './organizations.ts';

/**
 * What ADMIN alone reads beyond SPEC §2's Admin Panel (issue 19): the inbox of contact requests
 * (auth service) and the operations console (ops service).
 */

const Count = z.number().int().min(0);

/** SPEC §2 Admin Panel: what everyone but ADMIN sees (the screens and the queue board). */
export const ADMIN_ACCESS_DENIED = 'Access denied. Admin privileges required.';

// --- Contact requests inbox -----------------------------------------------------------------

export const CONTACT_REQUEST_PAGE_MAX = 100;

/** `GET /api/admin/contact-requests?limit=&offset=&status=`: open first, then newest first. */
export const ContactRequestPageQuerySchema = offsetPageQuery(CONTACT_REQUEST_PAGE_MAX).extend({
  status: z.enum(['open', 'resolved'], { error: 'Status must be open or resolved' }).optional(),
});
export type ContactRequestPageQuery = z.output<typeof ContactRequestPageQuerySchema>;

/** A page of the inbox; `open` counts every open request (the panel's badge), whatever the page. */
export const ContactRequestListSchema = z.object({
  items: z.array(ContactRequestSchema),
  total: Count,
  open: Count,
});
export type ContactRequestList = z.infer<typeof ContactRequestListSchema>;

/** `POST /api/admin/contact-requests/{id}/resolve`: the request, now resolved (again: idempotent). */
export const ContactRequestResolvedSchema = z.object({ request: ContactRequestSchema });
export type ContactRequestResolved = z.infer<typeof ContactRequestResolvedSchema>;

// --- Operations console -----------------------------------------------------------------------

/** Where bull-board (the queues' screen) is served, behind the ADMIN session. */
export const QUEUES_BOARD_PATH = '/admin/queues';

/** How often the console reads `GET /api/admin/operations` again. */
export const OPERATIONS_REFRESH_MS = 5000;

export const StreamStateSchema = z.object({
  name: z.string(),
  subjects: z.array(z.string()),
  messages: Count,
  bytes: Count,
  firstSeq: Count,
  lastSeq: Count,
  consumers: Count,
});
export type StreamState = z.infer<typeof StreamStateSchema>;

export const ConsumerStateSchema = z.object({
  stream: z.string(),
  name: z.string(),
  /** Messages of the stream the consumer has not been given yet. */
  pending: Count,
  /** Given but not acknowledged yet. */
  ackPending: Count,
  /** Messages given more than once (their first delivery was not acknowledged in time). */
  redelivered: Count,
  /** Pull requests waiting for messages (a consumer whose service runs has at least one). */
  waiting: Count,
  /** The stream sequence last given, and when (null: never). */
  lastDelivery: z.object({ streamSeq: Count, at: z.string().nullable() }),
});
export type ConsumerState = z.infer<typeof ConsumerStateSchema>;

export const FailedJobSchema = z.object({
  id: z.string(),
  name: z.string(),
  reason: z.string(),
  attemptsMade: Count,
  failedAt: z.string().nullable(),
});
export type FailedJob = z.infer<typeof FailedJobSchema>;

export const QueueStateSchema = z.object({
  name: z.string(),
  waiting: Count,
  active: Count,
  completed: Count,
  failed: Count,
  delayed: Count,
  paused: z.boolean(),
  /** The most recent failed jobs (at most 10; bull-board shows them all, with retry and remove). */
  recentFailures: z.array(FailedJobSchema),
});
export type QueueState = z.infer<typeof QueueStateSchema>;

export const ServiceHealthSchema = z.object({
  name: z.string(),
  /** Its /readyz answered 200. */
  ready: z.boolean(),
  /** Each dependency the service checks (mongo, nats, redis…): up or down; empty if unreachable. */
  checks: z.record(z.string(), z.enum(['up', 'down'])),
  /** The build it runs ("0.1.0+<commit>", "source" when run from TypeScript), null if unreachable. */
  version: z.string().nullable(),
});
export type ServiceHealth = z.infer<typeof ServiceHealthSchema>;

// --- Security alerts (issue 34) ------------------------------------------------------------------

/**
 * What an alert is about: link attempts the linking service answered 404 (`link-refusals`), or
 * requests refused over a per-user limit (`rate-limits`).
 */
export const SECURITY_ALERT_KINDS = ['link-refusals', 'rate-limits'] as const;
export const SecurityAlertKindSchema = z.enum(SECURITY_ALERT_KINDS);
export type SecurityAlertKind = z.infer<typeof SecurityAlertKindSchema>;

/**
 * One alert the gateway raised: a user reached `count` refusals of one kind within `windowSeconds`
 * (one alert per user, kind and window). `path` is the last path tried, without its query string.
 */
export const SecurityAlertSchema = z.object({
  at: z.iso.datetime(),
  userId: z.string().min(1).max(100),
  organization: OrganizationSchema,
  kind: SecurityAlertKindSchema,
  count: Count,
  windowSeconds: Count,
  path: z.string().max(500),
});
export type SecurityAlert = z.infer<typeof SecurityAlertSchema>;

/**
 * The Redis list the gateway keeps its alerts in, newest first, after the gateway's REDIS_PREFIX
 * (`nrad:gateway:security-alerts`); the ops service reads it (its OPS_GATEWAY_REDIS_PREFIX).
 */
export const SECURITY_ALERTS_KEY = 'security-alerts';
/** Alerts kept in that list (the older ones are dropped; the audit trail keeps every one). */
export const SECURITY_ALERTS_KEPT = 200;

/** `GET /api/admin/operations` (ADMIN only): a snapshot an operator's script can watch. */
export const OperationsSchema = z.object({
  at: z.string(),
  streams: z.array(StreamStateSchema),
  consumers: z.array(ConsumerStateSchema),
  queues: z.array(QueueStateSchema),
  services: z.array(ServiceHealthSchema),
  /** The gateway's latest security alerts (at most SECURITY_ALERTS_KEPT), newest first. */
  alerts: z.array(SecurityAlertSchema),
  /** What could not be read this time (NATS or Redis down), in words; empty when all is well. */
  problems: z.array(z.string()),
});
export type Operations = z.infer<typeof OperationsSchema>;

// --- Sign-in waits (issue 37) ----------------------------------------------------------------

/**
 * An address that must wait before trying an account again, after too many failed sign-ins there
 * (the gateway's; the owner signing in from elsewhere is not held up). `id` names the pair.
 */
export const SignInLockSchema = z.object({
  id: z.string().regex(/^[0-9a-f]{32}$/),
  email: z.string(),
  clientAddress: z.string(),
  failures: Count,
  until: z.iso.datetime(),
});
export type SignInLock = z.infer<typeof SignInLockSchema>;

/** `GET /api/admin/sign-in-locks` (ADMIN): the waits not over yet, the longest-lasting first. */
export const SignInLocksSchema = z.object({ items: z.array(SignInLockSchema) });
export type SignInLocks = z.infer<typeof SignInLocksSchema>;

/** `DELETE /api/admin/sign-in-locks/{id}` of a wait that is over, or never was. */
export const SIGN_IN_LOCK_NOT_FOUND = 'This sign-in is not waiting (any more).';
