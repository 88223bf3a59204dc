import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  type Actor,
  type Agency,
  type AuditEvent,
  type CaseRecord,
  type CheckMatches,
  CheckMatchesSchema,
  CreateLinkSchema,
  ERROR_CODES,
  type Link,
  type LinkEvent,
  type LinkedRecordSummary,
  type LinkSummary,
  LinkSummarySchema,
  linkSubject,
  type MatchCandidate,
  NAMLC_AGENCY,
  ObjectIdSchema,
  type Organization,
  type RecordEvent,
  type RecordLinkView,
  type UserIdentity,
} from '@nrad/contracts';
import {
  type AuditActor,
  type AuditStreamConfig,
  type AuditTrail,
  auditEvents,
  auditOutboxEntry,
  conflict,
  type Logger,
  notFound,
  parse,
  validationError,
} from '@nrad/service-kit';
import { Types } from 'mongoose';
import { type LinkDoc, type LinkingStore, LinkTakenError, linkFromDoc } from '../data/store.ts';
import type { LinkRegistry } from '../domain/link-registry.ts';
import { pairKeyOf } from '../domain/link-registry.ts';
import { entryFor, type IndexEntry, type MatchIndex, type ScoredCandidate } from '../domain/match-index.ts';
import { keyWeights, type MatchRate, type MatchRateEstimate, type WeightChoice } from '../domain/match-rate.ts';
import { type LinkRelay, pendingLink } from '../events/link-relay.ts';
import type { LevelWeights } from '../matching/em.ts';
import { blockingKeys, type MatchResult, prepareRecord, scorePrepared } from '../matching/index.ts';

export const RECORD_NOT_FOUND = 'Record not found';
export const LINKED_RECORD_NOT_FOUND = 'Linked record not found';
export const ALREADY_LINKED = 'Records are already linked';
export const SELF_LINK = 'A record cannot be linked to itself';
export const SAME_ORGANIZATION = 'Records of the same organization cannot be linked';

export interface LinkingDeps {
  store: LinkingStore;
  index: MatchIndex;
  /** The index's match rate (the prior's r) and weights, re-estimated as the records change. */
  matchRate: MatchRate;
  links: LinkRegistry;
  relay: LinkRelay;
  logger: Logger;
  autoLink: boolean;
  threshold: number;
  matchLimit: number;
  recordWaitMs: number;
  linksSubjectPrefix: string;
  /** NAMLC checks, reads of links and refusals are recorded here; a link's audit event goes in its outbox. */
  audit: AuditTrail;
  /** Where the links' audit events go. */
  auditStream: AuditStreamConfig;
}

/** The service name audit events carry. */
export const AUDIT_SERVICE = 'linking';

/**
 * Applies a run of `records.*` events in stream order (the consumer's batch; one event is a run of
 * one) to the index — idempotent: an event no newer than the stored version changes nothing — and,
 * for `records.created`, links the record to matching records of the other organizations. The
 * run's entries are written in one bulk write (those of records new to the index inserted
 * together) before the in-memory index and the links follow event by event, so a new record is
 * linked to those indexed before it, not to later ones of the run. Redelivered, a created event
 * links nothing twice (one link per pair). Then the match rate is re-estimated if due.
 *
 * Finding a record's matches is synchronous work (tens of milliseconds among 300,000 records), so
 * the run gives the event loop a turn after each `AUTO_LINK_SLICE_MS` of it: a run of an upload's
 * records otherwise held every request of the service for as long as the whole run took (a
 * 50-row upload: NAMLC checks answered in 1.7 s instead of 15 ms under the load test).
 */
export async function applyRecordEvents(deps: LinkingDeps, events: readonly RecordEvent[]): Promise<void> {
  const newest = new Map<string, IndexEntry>();
  const entries = events.map((event) => {
    const current = newest.get(event.record.id) ?? deps.index.get(event.record.id);
    if (current && event.record.version <= current.version) return undefined;
    const entry = entryFor(event.record);
    newest.set(entry.id, entry);
    return entry;
  });
  await deps.store.saveEntries([...newest.values()], (entry) => !deps.index.get(entry.id));
  let sliceFrom = performance.now();
  for (const [at, event] of events.entries()) {
    const entry = entries[at];
    if (entry) deps.index.put(entry);
    if (event.type !== 'created' || !deps.autoLink) continue;
    const current = deps.index.get(event.record.id);
    if (current && !current.deleted) await autoLink(deps, current, event.actor);
    if (performance.now() - sliceFrom >= AUTO_LINK_SLICE_MS) {
      await nextTurn();
      sliceFrom = performance.now();
    }
  }
  refreshMatchRate(deps);
}

/** Synchronous linking work done before a run of record events lets requests in (ms). */
const AUTO_LINK_SLICE_MS = 10;

const hundredths = (x: number) => Math.round(x * 100) / 100;

/** The match rate's fields for the log (no record data). */
export function matchRateLog(estimate: MatchRateEstimate) {
  return {
    matchesPerRecord: Math.round(estimate.matchesPerRecord * 1000) / 1000,
    estimated: estimate.estimated,
    priorBits: hundredths(estimate.priorBits),
    weights: weightsLog(estimate.weights),
    sample: estimate.sample,
    pairs: estimate.pairs,
    ms: estimate.ms,
  };
}

/** The six key weights (keyWeights), rounded to hundredths of a bit. */
function roundedKeyWeights(weights: LevelWeights | undefined) {
  const { name, dob } = keyWeights(weights);
  const round = (levels: Record<string, number>) =>
    Object.fromEntries(Object.entries(levels).map(([level, w]) => [level, hundredths(w)]));
  return { name: round(name), dob: round(dob) };
}

/**
 * Which weights score ('estimated' or 'fixed') and their key weights; when the fixed ones stay
 * despite an estimate, why and the estimate's key weights; what EM saw (records, candidate pairs,
 * the sessions' pairs); the time.
 */
export function weightsLog(choice: WeightChoice) {
  const { estimate } = choice;
  return {
    inUse: choice.adopted ? 'estimated' : 'fixed',
    ...roundedKeyWeights(choice.adopted),
    ...(choice.fixedBecause ? { fixedBecause: choice.fixedBecause } : {}),
    ...(estimate && !choice.adopted ? { rejected: roundedKeyWeights(estimate.weights) } : {}),
    records: choice.records,
    pairs: choice.pairs,
    ...(estimate ? { sessionPairs: { name: estimate.sessions.name.pairs, dob: estimate.sessions.dob.pairs } } : {}),
    ms: choice.ms,
  };
}

/**
 * Re-estimates the index's match rate and weights in the background when the records have changed
 * enough (MatchRate.refresh); logs the new ones (which weights score, and why). Events and requests
 * go on meanwhile.
 */
export function refreshMatchRate(deps: LinkingDeps): void {
  const refreshing = deps.matchRate.refresh();
  if (!refreshing) return;
  void refreshing.then(
    (estimate) => deps.logger.info({ matchRate: matchRateLog(estimate) }, 'match rate estimated'),
    (err: unknown) => deps.logger.error({ err }, 'match rate estimate failed'),
  );
}

/**
 * Links `entry` to every active record of another organization at or above the threshold. Each
 * link is recorded (`link.create`, detail `{auto: true}`) as done by `by`, the actor of the record
 * event that brought the record: the user who created it (no request of this service's).
 */
export async function autoLink(deps: LinkingDeps, entry: IndexEntry, by: Actor): Promise<Link[]> {
  const audit: LinkAudit = {
    actor: { userId: by.userId, organization: by.organization, requestId: null, clientAddress: null },
    detail: { auto: true },
  };
  const found = deps.index.find(entry.prepared, entry.keys, {
    excludeOrganization: entry.organization,
    excludeId: entry.id,
    threshold: deps.threshold,
  });
  const made: Link[] = [];
  for (const candidate of found) {
    if (deps.links.hasPair(entry.id, candidate.entry.id)) continue;
    const link = await storeLink(deps, entry, candidate.entry, candidate.result, 'auto', null, audit);
    if (link) made.push(link);
  }
  if (made.length > 0) {
    deps.logger.info({ record: entry.id, links: made.length }, 'records linked automatically');
  }
  return made;
}

/** Who a link's audit event names, and what else it says. */
interface LinkAudit {
  actor: AuditActor;
  detail?: AuditEvent['detail'];
}

/** The id of a link's audit event: made from the link's, so that publishing it again stores it once. */
export const linkAuditId = (linkId: string) => `link-${linkId}`;

/**
 * Stores a link with its pending events — `links.created` and the `link.create` audit event naming
 * both records, in the same document so that they cannot part — and queues them; null when the
 * pair was taken meanwhile (then neither event exists).
 */
async function storeLink(
  deps: LinkingDeps,
  source: IndexEntry,
  linked: IndexEntry,
  result: MatchResult,
  linkType: Link['linkType'],
  actor: Actor | null,
  audit: LinkAudit,
): Promise<Link | null> {
  const id = new Types.ObjectId();
  const createdAt = new Date();
  const link: Link = {
    id: id.toHexString(),
    sourceRecordId: source.id,
    linkedRecordId: linked.id,
    sourceOrganization: source.organization as Link['sourceOrganization'],
    linkedOrganization: linked.organization as Link['linkedOrganization'],
    linkType,
    confidence: result.confidence,
    matchCriteria: { ...result.matchCriteria },
    explanation: result.explanation.map((e) => ({ ...e })),
    createdAt: createdAt.toISOString(),
    createdById: actor?.userId ?? null,
  };
  const subject = linkSubject(deps.linksSubjectPrefix);
  const event: LinkEvent = { id: link.id, type: 'created', time: link.createdAt, actor, link };
  const [auditEvent] = auditEvents(AUDIT_SERVICE, 'link.create', audit.actor, [source.id, linked.id], {
    id: linkAuditId(link.id),
    at: createdAt,
    ...(audit.detail ? { detail: audit.detail } : {}),
  });
  const auditEntry = auditOutboxEntry(deps.auditStream, auditEvent as AuditEvent, createdAt);
  const doc: LinkDoc = {
    _id: id,
    pairKey: pairKeyOf(source.id, linked.id),
    sourceRecordId: link.sourceRecordId,
    linkedRecordId: link.linkedRecordId,
    sourceOrganization: link.sourceOrganization,
    linkedOrganization: link.linkedOrganization,
    linkType,
    confidence: link.confidence,
    matchCriteria: link.matchCriteria,
    explanation: link.explanation,
    createdAt,
    createdById: link.createdById,
    event: JSON.stringify(event),
    audit: { id: auditEntry.id, subject: auditEntry.subject, payload: auditEntry.payload },
    published: false,
  };
  try {
    await deps.store.insertLink(doc);
  } catch (err) {
    if (err instanceof LinkTakenError) return null;
    throw err;
  }
  deps.links.add(linkFromDoc(doc));
  deps.relay.enqueue(pendingLink(doc, subject));
  return link;
}

const inScope = (user: UserIdentity, entry: IndexEntry) =>
  user.organization === 'ADMIN' || entry.organization === user.organization;

function parseRecordId(id: string, field = 'id'): string {
  if (!ObjectIdSchema.safeParse(id).success) throw validationError(`${field}: must be a valid record id`);
  return id.toLowerCase();
}

/**
 * The index entry of a record, waiting briefly when the id was made moments ago: the record was
 * just saved and its `records.created` is on its way (the Add Record screen links right after
 * saving). Older ids are answered at once.
 */
async function lookUp(deps: LinkingDeps, id: string): Promise<IndexEntry | undefined> {
  const now = deps.index.get(id);
  if (now) return now;
  const age = Date.now() - new Types.ObjectId(id).getTimestamp().getTime();
  const recent = age >= -60_000 && age < 60_000;
  return recent ? deps.index.waitFor(id, deps.recordWaitMs) : undefined;
}

/**
 * A record of the user's scope that is not deleted, or 404 as if it did not exist. Another agency's
 * record (deleted or not) is refused the same way, and the attempt is recorded (`access.refused`,
 * issue 21) before the caller answers 404; an id nobody holds is no refusal.
 */
async function ownRecord(deps: LinkingDeps, user: UserIdentity, actor: AuditActor, id: string): Promise<IndexEntry> {
  const entry = await lookUp(deps, id);
  if (entry && !inScope(user, entry)) {
    await deps.audit.record(actor, 'access.refused', [entry.id], { status: 404 });
    throw notFound(RECORD_NOT_FOUND);
  }
  if (!entry || entry.deleted) throw notFound(RECORD_NOT_FOUND);
  return entry;
}

/** A manual link's score: as a search of b's organization would score the pair (MatchIndex.scoreOptions). */
function scoreAgainst(deps: LinkingDeps, a: IndexEntry, b: IndexEntry): MatchResult {
  return scorePrepared(a.prepared, b.prepared, deps.index.scoreOptions(deps.index.activeCount(b.organization)));
}

function candidateView({ entry, result }: ScoredCandidate): MatchCandidate {
  const r = entry.record;
  return {
    id: r.id,
    incidentNumber: r.incidentNumber,
    suspectName: r.suspectName,
    suspectDob: r.suspectDob,
    incidentDate: r.incidentDate,
    caseAmount: r.caseAmount,
    organization: r.organization,
    confidence: result.confidence,
    matchCriteria: { ...result.matchCriteria },
    explanation: result.explanation.map((e) => ({ ...e })),
  };
}

/** What a NAMLC check asked, as an audit event's detail (text cut to 500 characters). */
function checkDetail(input: CheckMatches): AuditEvent['detail'] {
  return Object.fromEntries(
    Object.entries(input)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, typeof v === 'string' ? v.slice(0, 500) : (v as number | boolean | null)]),
  );
}

/**
 * `POST /api/records/check-namlc-matches`: active records of the named organization that match.
 * Recorded (`namlc.check`: what was asked, which records the answer discloses) before it is answered.
 */
export async function checkMatches(
  deps: LinkingDeps,
  actor: AuditActor,
  body: unknown,
): Promise<{ matches: MatchCandidate[] }> {
  const input = parse(CheckMatchesSchema, body);
  const organization = NAMLC_AGENCY[input.namlcOrganization];
  const query = prepareRecord({
    id: '',
    suspectName: input.suspectName,
    suspectDob: input.suspectDob,
    incidentDate: input.incidentDate,
    caseAmount: input.caseAmount,
  });
  const found = deps.index.find(query, blockingKeys(query), {
    organization,
    threshold: deps.threshold,
    limit: deps.matchLimit,
  });
  const matches = found.map(candidateView);
  await deps.audit.record(
    actor,
    'namlc.check',
    matches.map((m) => m.id),
    checkDetail(input),
  );
  return { matches };
}

/**
 * `POST /api/records/link`: the caller's record (source) with an active record of another
 * organization. The confidence, criteria and explanation are the scorer's; the client's
 * `matchCriteria` is checked for shape only. The link's `link.create` audit event (the two record
 * ids) is stored with it.
 */
export async function createLink(
  deps: LinkingDeps,
  user: UserIdentity,
  auditActor: AuditActor,
  body: unknown,
): Promise<RecordLinkView> {
  const input = parse(CreateLinkSchema, body);
  const sourceId = input.sourceRecordId.toLowerCase();
  const linkedId = input.linkedRecordId.toLowerCase();
  if (sourceId === linkedId) throw validationError(SELF_LINK);
  const source = await ownRecord(deps, user, auditActor, sourceId);
  const linked = await lookUp(deps, linkedId);
  if (!linked || linked.deleted) throw notFound(LINKED_RECORD_NOT_FOUND);
  if (linked.organization === source.organization) throw validationError(SAME_ORGANIZATION);
  if (deps.links.hasPair(source.id, linked.id)) throw conflict(ALREADY_LINKED, ERROR_CODES.alreadyLinked);
  const actor: Actor = { userId: user.userId, name: user.name, organization: user.organization };
  const result = scoreAgainst(deps, source, linked);
  const link = await storeLink(deps, source, linked, result, 'manual', actor, { actor: auditActor });
  if (!link) throw conflict(ALREADY_LINKED, ERROR_CODES.alreadyLinked);
  return { ...link, linkedRecord: withLinkFlags(deps, linked.record) };
}

/**
 * A record's snapshot with its Linked flag and linked organizations as of now: the snapshot came
 * with the record's last event, and a link is not a record change (no event of its own).
 */
function withLinkFlags(deps: LinkingDeps, record: CaseRecord): CaseRecord {
  const organizations = new Set<Organization>();
  for (const l of deps.links.forRecord(record.id)) {
    organizations.add(l.sourceRecordId === record.id ? l.linkedOrganization : l.sourceOrganization);
  }
  const linkedOrganizations = [...organizations].sort();
  return { ...record, linked: linkedOrganizations.length > 0, linkedOrganizations };
}

/** A link as seen from one of its records: that record is the source, the other the linked one. */
function seenFrom(link: Link, recordId: string): Link {
  if (link.sourceRecordId === recordId) return link;
  return {
    ...link,
    sourceRecordId: link.linkedRecordId,
    linkedRecordId: link.sourceRecordId,
    sourceOrganization: link.linkedOrganization,
    linkedOrganization: link.sourceOrganization,
  };
}

/** The links of a record with the other record of each; links to records deleted since are left out. */
function activeLinks(deps: LinkingDeps, entry: IndexEntry): Array<{ link: Link; other: CaseRecord }> {
  return deps.links.forRecord(entry.id).flatMap((l) => {
    const link = seenFrom(l, entry.id);
    const other = deps.index.get(link.linkedRecordId);
    return other && !other.deleted ? [{ link, other: other.record }] : [];
  });
}

/**
 * The active links of a record of the user's scope, recorded as a read (`record.read`, detail
 * `{via: 'links'}`) of the record and of each linked record they disclose, before they are answered.
 */
async function readLinks(deps: LinkingDeps, user: UserIdentity, actor: AuditActor, id: string) {
  const entry = await ownRecord(deps, user, actor, parseRecordId(id));
  const links = activeLinks(deps, entry);
  await deps.audit.record(actor, 'record.read', [entry.id, ...links.map(({ other }) => other.id)], { via: 'links' });
  return links;
}

/** `GET /api/records/{id}/links`. */
export async function listLinks(
  deps: LinkingDeps,
  user: UserIdentity,
  actor: AuditActor,
  id: string,
): Promise<RecordLinkView[]> {
  const links = await readLinks(deps, user, actor, id);
  return links.map(({ link, other }) => ({ ...link, linkedRecord: withLinkFlags(deps, other) }));
}

/** `GET /api/records/{id}/linked`. */
export async function listLinked(
  deps: LinkingDeps,
  user: UserIdentity,
  actor: AuditActor,
  id: string,
): Promise<LinkedRecordSummary[]> {
  const links = await readLinks(deps, user, actor, id);
  return links.map(({ other }) => ({
    organization: other.organization,
    id: other.id,
    incidentNumber: other.incidentNumber,
    suspectName: other.suspectName,
  }));
}

/**
 * `GET /api/links/summary`: links whose two records are both not deleted, by the pair of agencies
 * they join; an agency's pairs are those it is part of, ADMIN's every pair. Counted from the links
 * in memory (a few thousand per 100,000 records: well under a millisecond). It discloses counts
 * only, no record, so it is not an audited read.
 */
export function linkSummary(deps: LinkingDeps, user: UserIdentity): LinkSummary {
  const scope = user.organization === 'ADMIN' ? null : user.organization;
  const pairs = new Map<string, LinkSummary['pairs'][number]>();
  let total = 0;
  for (const link of deps.links.all()) {
    const a = link.sourceOrganization;
    const b = link.linkedOrganization;
    if (a === 'ADMIN' || b === 'ADMIN' || (scope !== null && a !== scope && b !== scope)) continue;
    if (deps.index.get(link.sourceRecordId)?.deleted !== false) continue;
    if (deps.index.get(link.linkedRecordId)?.deleted !== false) continue;
    const agencies: [Agency, Agency] = a < b ? [a, b] : [b, a];
    const key = agencies.join(':');
    const pair = pairs.get(key) ?? { agencies, count: 0, auto: 0, manual: 0 };
    pairs.set(key, pair);
    pair.count++;
    pair[link.linkType]++;
    total++;
  }
  const sorted = [...pairs.values()].sort(
    (x, y) => y.count - x.count || x.agencies.join(':').localeCompare(y.agencies.join(':')),
  );
  return LinkSummarySchema.parse({ total, pairs: sorted });
}

/** Loads the index and the links from the database; queues the events (and audit events) of unpublished links. */
export async function loadState(deps: LinkingDeps): Promise<void> {
  for await (const record of deps.store.allRecords()) deps.index.put(entryFor(record));
  for await (const doc of deps.store.allLinks()) {
    deps.links.add(linkFromDoc(doc));
    if (!doc.published) deps.relay.enqueue(pendingLink(doc, linkSubject(deps.linksSubjectPrefix)));
  }
}
