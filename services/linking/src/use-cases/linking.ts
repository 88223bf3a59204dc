import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import {
  type Actor,
  ADMIN_ACCESS_DENIED,
  type Agency,
  type AuditEvent,
  type CaseRecord,
  type CheckMatches,
  CheckMatchesSchema,
  CreateLinkSchema,
  ERROR_CODES,
  LINK_NOT_FOUND,
  LINKED_RECORD_NOT_FOUND,
  type Link,
  type LinkEvent,
  type LinkEventType,
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
  RejectLinkSchema,
  type UserIdentity,
} from '@nrad/contracts';
import {
  blockingKeys,
  keyWeights,
  type LevelWeights,
  type MatchResult,
  prepareRecord,
  scorePrepared,
} from '@nrad/matching';
import {
  type AuditActor,
  type AuditStreamConfig,
  type AuditTrail,
  auditEvents,
  auditOutboxEntry,
  conflict,
  isAgency,
  type KeyedLock,
  type Logger,
  notFound,
  parse,
  RECORD_EVENTS_BATCH,
  requireAllAgencies,
  Scope,
  scopeOf,
  validationError,
} from '@nrad/service-kit';
import { Types } from 'mongoose';
import {
  type LinkDoc,
  type LinkingStore,
  LinkTakenError,
  linkFromDoc,
  type OutboxMessage,
  type PossibleMatchDoc,
  type StoredRejection,
} from '../data/store.ts';
import type { Disclosures } from '../domain/disclosures.ts';
import type { LinkRegistry } from '../domain/link-registry.ts';
import { pairKeyOf } from '../domain/link-registry.ts';
import { entryFor, type IndexEntry, type MatchIndex, type ScoredCandidate } from '../domain/match-index.ts';
import type { MatchRate, MatchRateEstimate, QuietTimer, WeightChoice } from '../domain/match-rate.ts';
import type { PossibleMatches } from '../domain/possible-matches.ts';
import { modelChanged, type Relinking, rateRose } from '../domain/relinking.ts';
import { type ClassCalibration, calibrateClasses, reviewCeilings } from '../domain/review-classes.ts';
import { hasPending, type LinkRelay, pendingLink } from '../events/link-relay.ts';

export const RECORD_NOT_FOUND = 'Record not found';
export { LINK_NOT_FOUND, LINKED_RECORD_NOT_FOUND };
export const ALREADY_LINKED = 'Records are already linked';
export const SELF_LINK = 'A record cannot be linked to itself';

export interface LinkingDeps {
  store: LinkingStore;
  index: MatchIndex;
  /** The index's match rate (the prior's r) and weights, re-estimated as the records change. */
  matchRate: MatchRate;
  /** Auto-linking again of the records scored before the weights changed (refreshMatchRate). */
  relinking: Relinking;
  /** The re-estimate a short run of record events asks for, once the events pause (MATCH_RATE_QUIET_MS). */
  quietRefresh: QuietTimer;
  links: LinkRegistry;
  relay: LinkRelay;
  logger: Logger;
  autoLink: boolean;
  threshold: number;
  /** Lowest confidence of a possible match (REVIEW_THRESHOLD; = threshold: none is proposed). */
  reviewThreshold: number;
  /** The possible matches (issue 36), decided or not. */
  possibleMatches: PossibleMatches;
  /** One change of a link document at a time (a rejection, a restore, its publish being marked). */
  linkLock: KeyedLock;
  /** The lowest confidence that discloses another agency's record (a check's match, a manual link). */
  disclosureThreshold: number;
  /** What NAMLC checks disclosed to whom, and how long that lets the user link the record (ms). */
  disclosures: Disclosures;
  disclosureTtlMs: number;
  matchLimit: number;
  recordWaitMs: number;
  linksSubjectPrefix: string;
  /** NAMLC checks, reads of links and refusals are recorded here; a link's audit event goes in its outbox. */
  audit: AuditTrail;
  /** Where the links' audit events go. */
  auditStream: AuditStreamConfig;
  /**
   * Whether the records service holds this record for the user, active (asked as the user, so the
   * records service applies their scope itself); undefined when not configured (RECORDS_URL).
   */
  recordOfUser?: (user: UserIdentity, id: string, requestId: string | null) => Promise<boolean>;
}

/** The service name audit events carry. */
export const AUDIT_SERVICE = 'linking';

/**
 * Applies a run of `records.*` events in stream order (the consumer's batch; one event is a run of
 * one) to the index — idempotent: an event no newer than the stored version changes nothing — and,
 * for `records.created`, links the record to matching records of the other organizations. The
 * run's entries are written in bulk writes of a part of the run each (SAVED_PART_EVENTS; those of
 * records new to the index inserted together), each part's before the in-memory index takes any of
 * them — the next part's written while this part's records are linked — and the index and the
 * links follow event by event, so a new record is linked to those indexed before it, not to later
 * ones of the run, and every record the index holds is in the store. Redelivered, a created event
 * links nothing twice (one link per pair). Then the match rate is re-estimated if due.
 *
 * Finding a record's matches is synchronous work (tens of milliseconds among 300,000 records), so
 * the run gives the event loop a turn after each `AUTO_LINK_SLICE_MS` of it: a run of an upload's
 * records otherwise held every request of the service for as long as the whole run took (a
 * 50-row upload: NAMLC checks answered in 1.7 s instead of 15 ms under the load test).
 */
export async function applyRecordEvents(deps: LinkingDeps, events: readonly RecordEvent[]): Promise<void> {
  deps.quietRefresh.cancel();
  type Newest = { entry: IndexEntry; record: CaseRecord };
  const newest = new Map<string, Newest>();
  // The records whose first entry of the run is among each SAVED_PART_EVENTS of its events: a
  // part's are stored, at their newest versions, before the index takes any of them.
  const parts: string[][] = [];
  const entries = events.map((event, at) => {
    const current = newest.get(event.record.id)?.entry ?? deps.index.get(event.record.id);
    if (current && event.record.version <= current.version) return undefined;
    const entry = entryFor(event.record);
    // Stored, put and linked in this run: its keys made once for the three (released below).
    entry.holdKeys();
    if (!newest.has(entry.id)) {
      const k = Math.floor(at / SAVED_PART_EVENTS);
      const part = parts[k];
      if (part) part.push(entry.id);
      else parts[k] = [entry.id];
    }
    newest.set(entry.id, { entry, record: event.record });
    return entry;
  });
  // A full run means more events wait: a backlog, which passes of linking again wait for.
  const backlog = events.length >= RECORD_EVENTS_BATCH;
  if (backlog) deps.relinking.backlog();
  const save = (part: number) => {
    const ids = parts[part];
    // A part's records are not in the index yet if they were not when the run began.
    const saving = ids
      ? deps.store.saveEntries(
          ids.map((id) => newest.get(id) as Newest),
          (entry) => !deps.index.get(entry.id),
        )
      : Promise.resolve();
    saving.catch(() => {}); // awaited below; a failure the loop outran is not unhandled meanwhile
    return saving;
  };
  try {
    let saving = save(0);
    let sliceFrom = performance.now();
    for (const [at, event] of events.entries()) {
      if (at % SAVED_PART_EVENTS === 0) {
        // This part's entries are stored before the index takes them; the next part's are being
        // stored while this part is linked.
        await saving;
        saving = save(at / SAVED_PART_EVENTS + 1);
      }
      const entry = entries[at];
      if (entry) deps.index.put(entry);
      if (event.type !== 'created' || !deps.autoLink) continue;
      const current = deps.index.get(event.record.id);
      if (current && !current.deleted) await autoLink(deps, current, auditActorOf(event.actor));
      if (performance.now() - sliceFrom >= AUTO_LINK_SLICE_MS) {
        await nextTurn();
        sliceFrom = performance.now();
      }
    }
    await saving;
  } finally {
    for (const entry of entries) entry?.releaseKeys();
  }
  // Not behind a backlog: re-estimating meanwhile took over a third of the service's time during an
  // upload (issue 36), and the weights barely move within one — unless the pairs across agencies
  // have grown fourfold since the last estimate (MatchRate.grown: an upload into a new deployment).
  // A short run's re-estimate waits for the events to pause (MATCH_RATE_QUIET_MS).
  if (deps.matchRate.grown()) refreshMatchRate(deps);
  else if (!backlog) deps.quietRefresh.arm(() => refreshMatchRate(deps));
}

/**
 * Events of a run whose entries are stored together, the next part's while the one before is linked
 * (a run's entries stored in one write before any was linked: linking waited on the store for 24
 * of its 55 s over a 100,000-row upload, and its links came 8-10 s after the job).
 */
export const SAVED_PART_EVENTS = 250;

/** The audit actor of a record event's user (no request of this service's). */
const auditActorOf = (by: Actor): AuditActor => ({
  userId: by.userId,
  organization: by.organization,
  requestId: null,
  clientAddress: null,
});

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

/** Level weights rounded to hundredths of a bit. */
const roundedLevels = (levels: Readonly<Record<string, number>>) =>
  Object.fromEntries(Object.entries(levels).map(([level, w]) => [level, hundredths(w)]));

/** The six key weights (keyWeights), rounded to hundredths of a bit. */
function roundedKeyWeights(weights: LevelWeights | undefined) {
  const { name, dob } = keyWeights(weights);
  return { name: roundedLevels(name), dob: roundedLevels(dob) };
}

/**
 * Which key weights score ('estimated' or 'fixed') and what they are; the date-of-birth levels
 * taken from the estimate either way (dobLevels); when the fixed ones stay despite an estimate,
 * why and the estimate's key weights; what EM saw (records, candidate pairs,
 * the sessions' pairs); the time.
 */
export function weightsLog(choice: WeightChoice) {
  const { estimate } = choice;
  return {
    inUse: choice.adopted && !choice.fixedBecause ? 'estimated' : 'fixed',
    ...roundedKeyWeights(choice.adopted),
    ...(Object.keys(choice.dobLevels).length > 0 ? { dobLevels: roundedLevels(choice.dobLevels) } : {}),
    ...(choice.fixedBecause ? { fixedBecause: choice.fixedBecause } : {}),
    ...(estimate && choice.fixedBecause ? { rejected: roundedKeyWeights(estimate.weights) } : {}),
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
  const before = deps.index.weights;
  const rateBefore = deps.index.matchesPerRecord;
  const refreshing = deps.matchRate.refresh();
  if (!refreshing) return;
  void refreshing.then(
    (estimate) => {
      deps.logger.info({ matchRate: matchRateLog(estimate) }, 'match rate estimated');
      const weightsChanged = modelChanged(before, estimate.weights.adopted);
      if (!deps.autoLink || !(weightsChanged || rateRose(rateBefore, estimate.matchesPerRecord))) return;
      // Every record so far was scored with an older model: link them again (relinking.ts).
      const records = deps.index.size;
      const why = weightsChanged ? 'weights' : 'matches per record';
      deps.logger.info({ records, changed: why }, 'linking again after the weights changed');
      deps.relinking.request(records);
    },
    (err: unknown) => deps.logger.error({ err }, 'match rate estimate failed'),
  );
}

/**
 * Links `entry` to every active record of another organization at or above the threshold, and
 * proposes those from REVIEW_THRESHOLD up to it as possible matches (issue 36). Each link is
 * recorded (`link.create`, detail `{auto: true}`) and each proposal (`possible-match.create`) as
 * done by `by`, the actor of the record event that brought the record: the user who created it (no
 * request of this service's). A pair with a link or a possible match already, decided or not, is
 * left as it is.
 */
export async function autoLink(
  deps: LinkingDeps,
  entry: IndexEntry,
  actor: AuditActor,
  detail: AuditEvent['detail'] = { auto: true },
): Promise<{ links: Link[]; possibleMatches: number }> {
  const audit: LinkAudit = { actor, detail };
  const found = deps.index.find(entry.prepared, entry.keys, {
    excludeOrganization: entry.organization,
    excludeId: entry.id,
    threshold: Math.min(deps.reviewThreshold, deps.threshold),
    review: true,
  });
  const made: Link[] = [];
  let proposed = 0;
  for (const candidate of found) {
    if (deps.links.hasPair(entry.id, candidate.entry.id)) continue;
    if (deps.possibleMatches.pair(entry.id, candidate.entry.id)) continue;
    // An uncertain class (a partial name, one word against another) is never linked automatically.
    if (candidate.result.confidence < deps.threshold || candidate.result.uncertain) {
      if (await proposePossibleMatch(deps, entry, candidate, actor, detail?.relinked === true)) proposed++;
      continue;
    }
    const link = await storeLink(deps, entry, candidate.entry, candidate.result, 'auto', null, audit);
    if (link) made.push(link);
  }
  if (made.length > 0 || proposed > 0) {
    deps.logger.info(
      { record: entry.id, links: made.length, possibleMatches: proposed },
      'records linked automatically',
    );
  }
  return { links: made, possibleMatches: proposed };
}

/** Who links again after the model changed (relinking.ts): the service itself, no user. */
const RELINK_ACTOR: AuditActor = { userId: null, organization: null, requestId: null, clientAddress: null };

/** auto-linking of a record again after the model changed (Relinking's `link`): audited as the service's. */
export async function linkAgain(
  deps: LinkingDeps,
  entry: IndexEntry,
): Promise<{ links: number; possibleMatches: number }> {
  const made = await autoLink(deps, entry, RELINK_ACTOR, { auto: true, relinked: true });
  return { links: made.links.length, possibleMatches: made.possibleMatches };
}

/**
 * Stores the pair of `entry` and a candidate as a possible match and records it
 * (`possible-match.create`, the two records; `relinked` when a pass after a change of the weights
 * found it); false when the pair has one already.
 */
async function proposePossibleMatch(
  deps: LinkingDeps,
  entry: IndexEntry,
  { entry: other, result }: ScoredCandidate,
  actor: AuditActor,
  relinked = false,
): Promise<boolean> {
  const doc: PossibleMatchDoc = {
    _id: new Types.ObjectId(),
    pairKey: pairKeyOf(entry.id, other.id),
    recordIds: [entry.id, other.id],
    organizations: [entry.organization, other.organization],
    confidence: result.confidence,
    matchCriteria: { ...result.matchCriteria },
    explanation: result.explanation.map((e) => ({ ...e })),
    createdAt: new Date(),
    ...(result.uncertain ? { uncertain: result.uncertain } : {}),
    decision: null,
  };
  if (!(await deps.store.insertPossibleMatch(doc))) return false;
  deps.possibleMatches.add(doc);
  await deps.audit.record(actor, 'possible-match.create', doc.recordIds, {
    possibleMatch: doc._id.toHexString(),
    confidence: doc.confidence,
    ...(relinked ? { relinked: true } : {}),
  });
  return true;
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
export async function storeLink(
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
    rejection: null,
    changeSeq: 0,
    pending: [],
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

/** An id from a path (`what` it names: a record, a possible match), lower-cased; 400 when malformed. */
export function parseRecordId(id: string, field = 'id', what = 'record'): string {
  if (!ObjectIdSchema.safeParse(id).success) throw validationError(`${field}: must be a valid ${what} id`);
  return id.toLowerCase();
}

/** Whether an id was made within a minute of now: its record may have been saved moments ago. */
function madeJustNow(id: string): boolean {
  const age = Date.now() - new Types.ObjectId(id).getTimestamp().getTime();
  return age >= -60_000 && age < 60_000;
}

/**
 * The index entry of a record, waiting briefly when the id was made moments ago: the record was
 * just saved and its `records.created` is on its way (the Add Record screen links right after
 * saving). Older ids are answered at once.
 */
async function lookUp(deps: LinkingDeps, id: string): Promise<IndexEntry | undefined> {
  const now = deps.index.get(id);
  if (now) return now;
  return madeJustNow(id) ? deps.index.waitFor(id, deps.recordWaitMs) : undefined;
}

/**
 * A record of the user's scope that is not deleted, or 404 as if it did not exist. Another agency's
 * record (deleted or not) and an id nobody holds are refused alike, in the same time (issue 34):
 * both are recorded (`access.refused`), and a refusal of an id made within the last minute comes
 * no sooner than the wait for such a record's event (RECORD_WAIT_MS) would have ended, so that
 * neither the answer nor its time tells whether another agency holds the id.
 */
async function ownRecord(deps: LinkingDeps, user: UserIdentity, actor: AuditActor, id: string): Promise<IndexEntry> {
  const started = Date.now();
  const entry = await lookUp(deps, id);
  if (entry && scopeOf(user).includes(entry.organization)) {
    if (entry.deleted) throw notFound(RECORD_NOT_FOUND);
    return entry;
  }
  await deps.audit.record(actor, 'access.refused', [id], { status: 404 });
  if (madeJustNow(id)) await sleep(Math.max(0, started + deps.recordWaitMs - Date.now()));
  throw notFound(RECORD_NOT_FOUND);
}

/**
 * A manual link's score: as a search of b's organization would score the pair of two records
 * (MatchIndex.scoreOptions, the uncertain classes in the review band).
 */
export function scoreAgainst(deps: LinkingDeps, a: IndexEntry, b: IndexEntry): MatchResult {
  return scorePrepared(a.prepared, b.prepared, deps.index.scoreOptions(deps.index.activeCount(b.organization), true));
}

/**
 * A record's whole snapshot from the store (the index keeps its panel only), with its Linked flags
 * as of now; a record the index holds is in the store (written before the index takes it).
 */
async function snapshotOf(deps: LinkingDeps, id: string): Promise<CaseRecord> {
  const record = (await deps.store.snapshots([id])).get(id);
  if (!record) throw new Error(`record ${id} is in the index but not in the store`);
  return withLinkFlags(deps, record);
}

function candidateView({ entry, result }: ScoredCandidate): MatchCandidate {
  return {
    ...entry.panel,
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
 * `POST /api/records/check-namlc-matches`: active records of the named organization that match at
 * or above the disclosure threshold (scored as the service scores every pair: the names must agree
 * on whole words, so a surname or given name alone discloses nothing). Recorded (`namlc.check`:
 * what was asked, which records the answer discloses) and noted as disclosed to the user (for
 * createLink) before it is answered.
 */
export async function checkMatches(
  deps: LinkingDeps,
  user: UserIdentity,
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
    threshold: deps.disclosureThreshold,
    limit: deps.matchLimit,
  });
  const matches = found.map(candidateView);
  const ids = matches.map((m) => m.id);
  await deps.audit.record(actor, 'namlc.check', ids, checkDetail(input));
  await noteDisclosures(deps, user, ids);
  return { matches };
}

/** Forgets the disclosures past their time, in memory and in the store (at start, then every TTL). */
export async function forgetExpiredDisclosures(deps: LinkingDeps, now = new Date()): Promise<void> {
  deps.disclosures.prune(now.getTime());
  await deps.store.removeExpiredDisclosures(now);
}

/** Notes that a check disclosed these records to the user (store, then memory). */
async function noteDisclosures(deps: LinkingDeps, user: UserIdentity, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const expiresAt = Date.now() + deps.disclosureTtlMs;
  await deps.store.saveDisclosures(user.userId, ids, new Date(expiresAt));
  deps.disclosures.add(user.userId, ids, expiresAt);
}

/**
 * `POST /api/records/link`: the caller's record (source) with an active record of another
 * organization, only on the scorer's evidence (issue 34): the stored pair scores at least the
 * disclosure threshold, or the same user's NAMLC check disclosed the other record within
 * DISCLOSURE_TTL_MINUTES. The confidence, criteria and explanation are the scorer's; the client's
 * `matchCriteria` is checked for shape only. Every refusal of the other id — nobody holds it, it is
 * the caller's own agency's, deleted, a rejected pair, too weak, not disclosed — is recorded
 * (`link.refused`, with the reason) and answered the same 404 "Linked record not found" after the
 * same steps (the score and the disclosure are looked up in memory in every case). The link's
 * `link.create` audit event (the two record ids) is stored with it.
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
  const linked = deps.index.get(linkedId);
  const pair = deps.links.pair(source.id, linkedId);
  if (pair && !pair.rejection && linked && !linked.deleted) throw conflict(ALREADY_LINKED, ERROR_CODES.alreadyLinked);
  const result = linked ? scoreAgainst(deps, source, linked) : undefined;
  const disclosed = deps.disclosures.has(user.userId, linkedId, Date.now());
  const refusal = !linked
    ? 'unknown'
    : linked.deleted
      ? 'deleted'
      : linked.organization === source.organization || !isAgency(linked.organization)
        ? 'same organization'
        : pair?.rejection || deps.possibleMatches.pair(source.id, linkedId)?.decision?.kind === 'rejected'
          ? 'rejected'
          : (result?.confidence ?? 0) < deps.disclosureThreshold && !disclosed
            ? 'too weak'
            : undefined;
  if (refusal || !linked || !result) {
    const detail = { reason: refusal ?? 'unknown', sourceRecordId: source.id, linkedRecordId: linkedId };
    await deps.audit.record(auditActor, 'link.refused', [source.id], detail);
    throw notFound(LINKED_RECORD_NOT_FOUND);
  }
  const actor: Actor = { userId: user.userId, name: user.name, organization: user.organization };
  const link = await storeLink(deps, source, linked, result, 'manual', actor, { actor: auditActor });
  if (!link) throw conflict(ALREADY_LINKED, ERROR_CODES.alreadyLinked);
  return { ...link, linkedRecord: await snapshotOf(deps, linked.id) };
}

/** The organizations each of a link's two records is linked to now (rejected links left out). */
function organizationsOf(deps: LinkingDeps, link: Link): Record<string, Organization[]> {
  return Object.fromEntries(
    [link.sourceRecordId, link.linkedRecordId].map((id) => [id, linkedOrganizationsOf(deps, id)]),
  );
}

/**
 * Rejects or restores a stored link, under the link's lock (its `links.created` being marked
 * published, or another change, waits): its new state, its `links.rejected`/`links.restored` event
 * (each record's linked organizations after the change) and its audit event in one update, then
 * the registry, then the relay publishes the messages. `allowed` is asked inside the lock, of the
 * link as it is then: a refusal answers 404 "Link not found" (recorded as `link.refused`).
 */
async function changeLink(
  deps: LinkingDeps,
  user: UserIdentity,
  auditActor: AuditActor,
  pair: readonly [recordId: string, linkedId: string],
  change: {
    type: Exclude<LinkEventType, 'created'>;
    allowed: (link: Link | undefined) => link is Link;
    rejection: StoredRejection | null;
    detail?: AuditEvent['detail'];
  },
): Promise<Link> {
  const [recordId, linkedId] = pair;
  const refuse = async (): Promise<never> => {
    const detail = { reason: 'no such link', op: change.type, recordId, linkedRecordId: linkedId };
    const entry = deps.index.get(recordId);
    await deps.audit.record(
      auditActor,
      'link.refused',
      entry && scopeOf(user).includes(entry.organization) ? [recordId] : [],
      detail,
    );
    throw notFound(LINK_NOT_FOUND);
  };
  const link = deps.links.pair(recordId, linkedId);
  if (!change.allowed(link)) return refuse();
  return deps.linkLock.run(link.id, async () => {
    const current = deps.links.pair(recordId, linkedId);
    const doc = change.allowed(current) ? await deps.store.link(new Types.ObjectId(link.id)) : null;
    if (!doc) return refuse();
    const changeSeq = (doc.changeSeq ?? 0) + 1;
    const time = new Date();
    const changed = linkFromDoc({ ...doc, rejection: change.rejection });
    const actor: Actor = { userId: user.userId, name: user.name, organization: user.organization };
    const eventId = `${link.id}-${change.type}-${changeSeq}`;
    deps.links.add(changed); // organizationsOf reads the link as it will be
    const event: LinkEvent = {
      id: eventId,
      type: change.type,
      time: time.toISOString(),
      actor,
      link: changed,
      organizations: organizationsOf(deps, changed),
    };
    const [auditEvent] = auditEvents(
      AUDIT_SERVICE,
      change.type === 'rejected' ? 'link.reject' : 'link.restore',
      auditActor,
      [link.sourceRecordId, link.linkedRecordId],
      { id: `link-${eventId}`, at: time, ...(change.detail ? { detail: change.detail } : {}) },
    );
    const auditEntry = auditOutboxEntry(deps.auditStream, auditEvent as AuditEvent, time);
    const messages: OutboxMessage[] = [
      ...(doc.pending ?? []),
      { id: eventId, subject: linkSubject(deps.linksSubjectPrefix, change.type), payload: JSON.stringify(event) },
      { id: auditEntry.id, subject: auditEntry.subject, payload: auditEntry.payload },
    ];
    let written = false;
    try {
      written = await deps.store.changeLink(doc._id, changeSeq, change.rejection, messages);
    } finally {
      if (!written) deps.links.add(linkFromDoc(doc)); // not written: the registry keeps the link as stored
    }
    if (!written) return refuse();
    const stored = { ...doc, rejection: change.rejection, changeSeq, pending: messages };
    deps.relay.enqueue(pendingLink(stored, linkSubject(deps.linksSubjectPrefix)));
    return changed;
  });
}

/**
 * `DELETE /api/records/{id}/links/{linkedId}` `{reason?}`: either agency whose record is in the
 * link, or ADMIN, rejects it. From then on neither side's views show it, the Linked flags and the
 * counts follow, and the pair is never linked again (automatically or by hand) unless ADMIN
 * restores it. Every refusal — the record not the caller's, no such link, rejected already — is
 * the same 404 "Link not found" (recorded as `link.refused`).
 */
export async function rejectLink(
  deps: LinkingDeps,
  user: UserIdentity,
  auditActor: AuditActor,
  id: string,
  linkedId: string,
  body: unknown,
): Promise<void> {
  const input = parse(RejectLinkSchema, body ?? {});
  const pair = [parseRecordId(id), parseRecordId(linkedId, 'linkedId')] as const;
  const entry = deps.index.get(pair[0]);
  const ours = entry !== undefined && scopeOf(user).includes(entry.organization);
  const reason = input.reason ?? '';
  const rejection: StoredRejection = { at: new Date(), byId: user.userId, byOrganization: user.organization, reason };
  const link = await changeLink(deps, user, auditActor, pair, {
    type: 'rejected',
    allowed: (l): l is Link => ours && l !== undefined && !l.rejection,
    rejection,
    detail: { reason: reason.slice(0, 500) },
  });
  deps.logger.info({ link: link.id, by: user.organization }, 'link rejected');
}

/** `POST /api/records/{id}/links/{linkedId}/restore` (ADMIN): a rejected link discloses again. */
export async function restoreLink(
  deps: LinkingDeps,
  user: UserIdentity,
  auditActor: AuditActor,
  id: string,
  linkedId: string,
): Promise<RecordLinkView> {
  requireAllAgencies(user, ADMIN_ACCESS_DENIED);
  const pair = [parseRecordId(id), parseRecordId(linkedId, 'linkedId')] as const;
  const other = deps.index.get(pair[1]);
  const restored = await changeLink(deps, user, auditActor, pair, {
    type: 'restored',
    allowed: (l): l is Link => other !== undefined && l?.rejection !== undefined,
    rejection: null,
  });
  return { ...seenFrom(restored, pair[0]), linkedRecord: await snapshotOf(deps, (other as IndexEntry).id) };
}

/**
 * A record's snapshot with its Linked flag and linked organizations as of now: the snapshot came
 * with the record's last event, and a link is not a record change (no event of its own).
 */
function withLinkFlags(deps: LinkingDeps, record: CaseRecord): CaseRecord {
  const linkedOrganizations = linkedOrganizationsOf(deps, record.id);
  return { ...record, linked: linkedOrganizations.length > 0, linkedOrganizations };
}

/** The organizations of the records a record is linked to (rejected links left out), sorted. */
function linkedOrganizationsOf(deps: LinkingDeps, recordId: string): Organization[] {
  const organizations = new Set<Organization>();
  for (const l of deps.links.forRecord(recordId)) {
    organizations.add(l.sourceRecordId === recordId ? l.linkedOrganization : l.sourceOrganization);
  }
  return [...organizations].sort();
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

/**
 * The links of a record with the other record of each; links to records deleted since are left
 * out, and rejected links too unless `withRejected` (ADMIN's views).
 */
function activeLinks(
  deps: LinkingDeps,
  entry: IndexEntry,
  withRejected = false,
): Array<{ link: Link; other: IndexEntry }> {
  return deps.links.forRecord(entry.id, { withRejected }).flatMap((l) => {
    const link = seenFrom(l, entry.id);
    const other = deps.index.get(link.linkedRecordId);
    return other && !other.deleted ? [{ link, other }] : [];
  });
}

/**
 * The active links of a record of the user's scope, recorded as a read (`record.read`, detail
 * `{via: 'links'}`) of the record and of each linked record they disclose, before they are answered.
 * A record the index has not seen yet (its `records.created` behind a backlog) that the records
 * service holds for the user, active, has no links yet: `pending`, answered at once (issue 36) —
 * the records service recorded the user's read of it. Anything else the index lacks is refused as
 * before (ownRecord: the same 404, after the same wait, whoever holds the id).
 */
async function readLinks(
  deps: LinkingDeps,
  user: UserIdentity,
  actor: AuditActor,
  id: string,
): Promise<{ links: Array<{ link: Link; other: IndexEntry }>; pending: boolean }> {
  const recordId = parseRecordId(id);
  if (!deps.index.get(recordId) && deps.recordOfUser) {
    const theirs = await deps.recordOfUser(user, recordId, actor.requestId).catch((err: unknown) => {
      deps.logger.warn({ err }, 'the records service could not say whose a record is');
      return false;
    });
    if (theirs && !deps.index.get(recordId)) return { links: [], pending: true };
  }
  const entry = await ownRecord(deps, user, actor, recordId);
  const links = activeLinks(deps, entry, scopeOf(user).isAll);
  await deps.audit.record(actor, 'record.read', [entry.id, ...links.map(({ other }) => other.id)], { via: 'links' });
  return { links, pending: false };
}

/** `GET /api/records/{id}/links`; `pending` while the index has not seen the user's record. */
export async function listLinks(
  deps: LinkingDeps,
  user: UserIdentity,
  actor: AuditActor,
  id: string,
): Promise<{ views: RecordLinkView[]; pending: boolean }> {
  const { links, pending } = await readLinks(deps, user, actor, id);
  const snapshots = await deps.store.snapshots(links.map(({ other }) => other.id));
  const views = links.flatMap(({ link, other }) => {
    const record = snapshots.get(other.id);
    return record ? [{ ...link, linkedRecord: withLinkFlags(deps, record) }] : [];
  });
  return { views, pending };
}

/** `GET /api/records/{id}/linked`; `pending` while the index has not seen the user's record. */
export async function listLinked(
  deps: LinkingDeps,
  user: UserIdentity,
  actor: AuditActor,
  id: string,
): Promise<{ summaries: LinkedRecordSummary[]; pending: boolean }> {
  const { links, pending } = await readLinks(deps, user, actor, id);
  const summaries = links
    .filter(({ link }) => !link.rejection)
    .map(({ other: { panel } }) => ({
      organization: panel.organization,
      id: panel.id,
      incidentNumber: panel.incidentNumber,
      suspectName: panel.suspectName,
    }));
  return { summaries, pending };
}

/**
 * `GET /api/links/summary`: links whose two records are both not deleted, by the pair of agencies
 * they join; an agency's pairs are those it is part of, ADMIN's every pair. Counted from the links
 * in memory (a few thousand per 100,000 records: well under a millisecond). It discloses counts
 * only, no record, so it is not an audited read.
 */
export function linkSummary(deps: LinkingDeps, user: UserIdentity): LinkSummary {
  const pairs = new Map<string, LinkSummary['pairs'][number]>();
  let total = 0;
  for (const link of deps.links.active(scopeOf(user))) {
    const a = link.sourceOrganization;
    const b = link.linkedOrganization;
    if (!isAgency(a) || !isAgency(b)) continue;
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

/**
 * The uncertain classes' confidences (issue 36: calibration from labels, domain/review-classes.ts),
 * derived from the decided possible matches: what ADMIN's figures show and the index scores with.
 */
export function reviewClasses(deps: LinkingDeps): ClassCalibration[] {
  return calibrateClasses(deps.possibleMatches.decided(), {
    reviewThreshold: deps.reviewThreshold,
    linkThreshold: deps.threshold,
  });
}

/** Gives the index the classes' confidences it scores two records with: at start and after each decision. */
export function calibrateReview(deps: LinkingDeps): void {
  deps.index.setReview(reviewCeilings(reviewClasses(deps)));
}

/** Loads the index and the links from the database; queues the events (and audit events) of unpublished links. */
export async function loadState(deps: LinkingDeps): Promise<void> {
  const everything = Scope.system('linking: the index and the links loaded at start');
  for await (const record of deps.store.allRecords(everything)) deps.index.put(entryFor(record));
  for await (const doc of deps.store.allLinks(everything)) {
    deps.links.add(linkFromDoc(doc));
    if (hasPending(doc)) deps.relay.enqueue(pendingLink(doc, linkSubject(deps.linksSubjectPrefix)));
  }
  for await (const doc of deps.store.allPossibleMatches(everything)) deps.possibleMatches.add(doc);
  calibrateReview(deps);
  const now = new Date();
  await forgetExpiredDisclosures(deps, now);
  for await (const d of deps.store.currentDisclosures(now)) {
    deps.disclosures.add(d.userId, [d.recordId], d.expiresAt.getTime());
  }
}
