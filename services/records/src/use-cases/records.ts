import { randomUUID } from 'node:crypto';
import {
  type Actor,
  type AdminRecord,
  type AuditAction,
  type AuditEvent,
  type CaseRecord,
  centsToMoney,
  DEFAULT_COUNTRY,
  ERROR_CODES,
  INCIDENT_NUMBER_TAKEN,
  type Link,
  type LinkEvent,
  moneyToCents,
  ObjectIdSchema,
  type Organization,
  type PageQuery,
  type RecordEvent,
  type RecordEventType,
  RecordInputSchema,
  type RecordSearch,
  RecordSearchSchema,
  RecordUpdateSchema,
  recordSubject,
  type UserIdentity,
} from '@nrad/contracts';
import {
  AppError,
  type AuditActor,
  type AuditStreamConfig,
  type AuditTrail,
  auditEvents,
  auditOutboxEntry,
  conflict,
  type KeyedLock,
  type Logger,
  notFound,
  parse,
  type Scope,
  scopeOf,
  validationError,
} from '@nrad/service-kit';
import { Types } from 'mongoose';
import { decodeCursor, encodeCursor } from '../data/cursor.ts';
import type { DropdownRepository } from '../data/dropdowns.ts';
import type { ImportEventsRepository } from '../data/import-events.ts';
import {
  dayToDate,
  derivedFields,
  IncidentNumberTakenError,
  type ListedDoc,
  newRecordDoc,
  type OutboxEntry,
  op,
  type Page,
  presentRecord,
  type RecordCriteria,
  type RecordDoc,
  type RecordFilter,
  type RecordRepository,
  type SortField,
  storedFields,
} from '../data/records.ts';
import { escapeRegex, incidentPrefix, nameMatches, words } from '../domain/text.ts';
import type { OutboxRelay } from '../events/outbox-relay.ts';
import type { ListScope, ListTotals } from '../lib/list-totals.ts';
import type { ProbeBudget } from '../lib/probe-budget.ts';
import { holdProbe, type Probe } from './probes.ts';

export interface RecordDeps {
  records: RecordRepository;
  /** The lists' totals, kept between pages and moved by this process's changes. */
  totals: ListTotals;
  /** The import outbox: the `created` events of import requests (docs/adr/0011). */
  imports: ImportEventsRepository;
  dropdowns: DropdownRepository;
  relay: OutboxRelay;
  lock: KeyedLock;
  logger: Logger;
  /** Subjects are `<prefix>.created` etc. (`records` in production; a namespace in tests). */
  subjectPrefix: string;
  /** Reads, lists and refusals are recorded here; a change's audit event goes in its outbox. */
  audit: AuditTrail;
  /** Where the outbox's audit events go. */
  auditStream: AuditStreamConfig;
  /** Each user's budget of incident numbers found held by other agencies (docs/adr/0015). */
  probes: ProbeBudget;
}

/** The service name audit events carry. */
export const AUDIT_SERVICE = 'records';

export const RECORD_NOT_FOUND = 'Record not found';
export const STALE_VERSION = 'This record was changed by someone else since you opened it. Reload it and try again.';

/**
 * One record of the user's scope (`scopeOf`: their agency's, every agency's for ADMIN; ADR 0006,
 * 0020), active or deleted as asked, or null. Another agency's record is refused as a missing one
 * would be (the repository answers null for both), and the attempt is recorded (`access.refused`,
 * issue 21) before the caller answers 404; so is an agency user's id that nobody holds.
 */
async function scopedRecord(deps: RecordDeps, scope: Scope, actor: AuditActor, id: Types.ObjectId, deleted: boolean) {
  const doc = await deps.records.findById(scope, id);
  if (!doc) {
    // An id nobody holds is recorded alike (issue 34): the trail, and the time the answer takes,
    // must not tell another agency's record from a missing one. A scope of every agency has no
    // other agency's record to try.
    if (!scope.isAll) await deps.audit.record(actor, 'access.refused', [id.toHexString()], { status: 404 });
    return null;
  }
  return doc.deleted === deleted ? doc : null;
}

/** A change's audit event, as an outbox entry beside the change (they cannot part). */
function auditEntry(deps: RecordDeps, action: AuditAction, actor: AuditActor, recordId: string): OutboxEntry {
  const [event] = auditEvents(AUDIT_SERVICE, action, actor, [recordId]);
  return auditOutboxEntry(deps.auditStream, event as AuditEvent);
}

const actorOf = (user: UserIdentity): Actor => ({
  userId: user.userId,
  name: user.name,
  organization: user.organization,
});

export function outboxEntry(
  prefix: string,
  type: RecordEventType,
  user: UserIdentity,
  record: CaseRecord,
): OutboxEntry {
  const event: RecordEvent = {
    id: randomUUID(),
    type,
    time: new Date().toISOString(),
    actor: actorOf(user),
    record,
  };
  return { id: event.id, subject: recordSubject(type, prefix), payload: JSON.stringify(event), createdAt: new Date() };
}

/** A record id from the path: 24 hex characters, or 400. */
export function parseRecordId(id: string): Types.ObjectId {
  if (!ObjectIdSchema.safeParse(id).success) throw validationError('id: must be a valid record id');
  return new Types.ObjectId(id);
}

/** The option lists ADMIN keeps, by lower-case value (read once for a whole import). */
export interface OptionLists {
  sources: Map<string, string>;
  countries: Map<string, string>;
}

export async function optionLists(deps: RecordDeps): Promise<OptionLists> {
  const [sources, countries] = await Promise.all([deps.dropdowns.recent('source'), deps.dropdowns.recent('country')]);
  const byLower = (values: string[]) => new Map(values.map((v) => [v.toLowerCase(), v]));
  return {
    sources: byLower(sources.map((o) => o.value)),
    countries: byLower([DEFAULT_COUNTRY, ...countries.map((o) => o.value)]),
  };
}

/**
 * Source and country must be options of the lists ADMIN keeps (letter case aside; the option's own
 * spelling is stored). A value the record already has stays acceptable after ADMIN removes it from
 * the list, so old records remain editable. The canonical values, or each field's problem.
 */
export function checkOptionsIn(
  lists: OptionLists,
  input: { sourceOfRecord: string; country: string },
  current?: { sourceOfRecord: string; country: string },
): { values: { sourceOfRecord: string; country: string } } | { errors: Array<{ field: string; message: string }> } {
  const pick = (value: string, options: Map<string, string>, kept: string | undefined) =>
    value === kept ? value : options.get(value.toLowerCase());
  const source = pick(input.sourceOfRecord, lists.sources, current?.sourceOfRecord);
  const country = pick(input.country, lists.countries, current?.country);
  const errors: Array<{ field: string; message: string }> = [];
  if (!source) errors.push({ field: 'sourceOfRecord', message: 'must be one of the Source of Record options' });
  if (!country) errors.push({ field: 'country', message: 'must be one of the country options' });
  if (errors.length) return { errors };
  return { values: { sourceOfRecord: source as string, country: country as string } };
}

async function checkOptions(
  deps: RecordDeps,
  input: { sourceOfRecord: string; country: string },
  current?: { sourceOfRecord: string; country: string },
) {
  const checked = checkOptionsIn(await optionLists(deps), input, current);
  if ('errors' in checked) throw validationError(checked.errors.map((e) => `${e.field}: ${e.message}`).join('; '));
  return checked.values;
}

export async function createRecord(
  deps: RecordDeps,
  user: UserIdentity,
  actor: AuditActor,
  body: unknown,
): Promise<CaseRecord> {
  const input = parse(RecordInputSchema, body);
  const canonical = await checkOptions(deps, input);
  const doc = newRecordDoc({ ...input, ...canonical }, { organization: user.organization, createdById: user.userId });
  const record = presentRecord(doc);
  const event = outboxEntry(deps.subjectPrefix, 'created', user, record);
  const audit = auditEntry(deps, 'record.create', actor, record.id);
  const insert = () => deps.records.insert(scopeOf(user), { ...doc, outbox: [event, audit], outboxPending: true });
  // Held while the insert runs: a number another agency holds is a probe (docs/adr/0015).
  const probe = await holdProbe(deps, user, actor, 'create');
  try {
    await deps.totals.change(
      doc.organization,
      insert,
      () => ({ organization: doc.organization, active: 1, deleted: 0 }),
      refusedChange,
    );
  } catch (err) {
    if (err instanceof IncidentNumberTakenError) {
      await probe.taken(await deps.records.incidentKeyHolder(doc.incidentKey, doc._id));
      throw conflict(INCIDENT_NUMBER_TAKEN, ERROR_CODES.incidentNumberTaken);
    }
    deps.relay.unsure(doc._id); // stored before the answer was lost? then its events go out soon
    throw err;
  } finally {
    await probe.done();
  }
  deps.relay.kick(doc._id, [event, audit]); // a new record has no older event: publish them without a read
  return record;
}

/**
 * One record of the user's scope: its details (`record.read`) or, for `purpose` `edit`, the edit
 * form's (`record.edit-form`), recorded before it is answered.
 */
export async function getRecord(
  deps: RecordDeps,
  user: UserIdentity,
  actor: AuditActor,
  id: string,
  purpose: 'read' | 'edit' = 'read',
): Promise<CaseRecord> {
  const recordId = parseRecordId(id);
  const doc = await scopedRecord(deps, scopeOf(user), actor, recordId, false);
  if (!doc) throw notFound(RECORD_NOT_FOUND);
  await deps.audit.record(actor, purpose === 'edit' ? 'record.edit-form' : 'record.read', [id]);
  return presentRecord(doc);
}

/** `If-Match: "3"` (or W/"3", or 3) → 3. */
export function versionFromIfMatch(header: string | undefined): number | undefined {
  if (!header || header.trim() === '*') return undefined;
  const m = /^(?:W\/)?"?(\d{1,9})"?$/.exec(header.trim());
  if (!m) throw validationError('If-Match must be the ETag of the record, such as "3"');
  return Number(m[1]);
}

/** Whether a change's error means it was refused (nothing written), not that its outcome is unknown. */
export const refusedChange = (err: unknown) => err instanceof AppError || err instanceof IncidentNumberTakenError;

/** The audit action of each kind of change. */
const AUDIT_ACTION_OF: Record<RecordEventType, AuditAction> = {
  created: 'record.create',
  updated: 'record.edit',
  deleted: 'record.delete',
  restored: 'record.restore',
};

/**
 * Applies `change` to a record of the user's scope under the record's lock, at the version read,
 * with its event in the same write. `deleted` says which records qualify (active or deleted ones).
 */
async function changeRecord(
  deps: RecordDeps,
  user: UserIdentity,
  actor: AuditActor,
  id: Types.ObjectId,
  type: RecordEventType,
  deleted: boolean,
  change: (current: RecordDoc) => Promise<Partial<RecordDoc>> | Partial<RecordDoc>,
): Promise<CaseRecord> {
  const scope = scopeOf(user);
  const apply = () =>
    deps.lock.run(id.toHexString(), async () => {
      const current = await scopedRecord(deps, scope, actor, id, deleted);
      if (!current) throw notFound(RECORD_NOT_FOUND);
      const changed = { ...(await change(current)), version: current.version + 1, updatedAt: new Date() };
      const record = presentRecord({ ...current, ...changed });
      const event = outboxEntry(deps.subjectPrefix, type, user, record);
      const audit = auditEntry(deps, AUDIT_ACTION_OF[type], actor, record.id);
      // A field the change sets to undefined is removed from the document.
      const set = Object.fromEntries(Object.entries(changed).filter(([, v]) => v !== undefined));
      const unset = Object.keys(changed).filter((k) => changed[k as keyof typeof changed] === undefined);
      let applied: boolean;
      try {
        applied = await deps.records.updateAtVersion(
          scope,
          id,
          current.version,
          set,
          [event, audit],
          unset as Array<keyof RecordDoc>,
        );
      } catch (err) {
        if (err instanceof IncidentNumberTakenError)
          throw conflict(INCIDENT_NUMBER_TAKEN, ERROR_CODES.incidentNumberTaken);
        deps.relay.unsure(id); // applied before the answer was lost? then its events go out soon
        throw err;
      }
      if (!applied) throw conflict(STALE_VERSION, ERROR_CODES.staleVersion);
      return record;
    });
  // A delete or restore moves a record between the lists; an edit moves none.
  const moved = type === 'deleted' ? -1 : type === 'restored' ? 1 : 0;
  const result = moved
    ? await deps.totals.change(
        scope.agencyOr(undefined),
        apply,
        (r) => ({ organization: r.organization, active: moved, deleted: -moved }),
        refusedChange,
      )
    : await apply();
  deps.relay.kick(id);
  return result;
}

export async function updateRecord(
  deps: RecordDeps,
  user: UserIdentity,
  actor: AuditActor,
  id: string,
  body: unknown,
  ifMatch: string | undefined,
): Promise<CaseRecord> {
  const recordId = parseRecordId(id);
  const { version, ...input } = parse(RecordUpdateSchema, body);
  const headerVersion = versionFromIfMatch(ifMatch);
  // An edit that changes the number holds a probe until it is written (docs/adr/0015).
  let probe: Probe | undefined;
  try {
    return await changeRecord(deps, user, actor, recordId, 'updated', false, async (current) => {
      for (const expected of [version, headerVersion]) {
        if (expected !== undefined && expected !== current.version)
          throw conflict(STALE_VERSION, ERROR_CODES.staleVersion);
      }
      const canonical = await checkOptions(deps, input, current);
      const fields = storedFields({ ...input, ...canonical });
      const derived = derivedFields(fields);
      if (derived.incidentKey !== current.incidentKey) {
        probe = await holdProbe(deps, user, actor, 'edit');
        const holder = await deps.records.incidentKeyHolder(derived.incidentKey, current._id);
        if (holder !== null) {
          await probe.taken(holder);
          throw conflict(INCIDENT_NUMBER_TAKEN, ERROR_CODES.incidentNumberTaken);
        }
      }
      return { ...fields, ...derived };
    });
  } finally {
    await probe?.done();
  }
}

export function deleteRecord(deps: RecordDeps, user: UserIdentity, actor: AuditActor, id: string): Promise<CaseRecord> {
  return changeRecord(deps, user, actor, parseRecordId(id), 'deleted', false, () => ({
    deleted: true,
    deletedAt: new Date(),
    deletedById: new Types.ObjectId(user.userId),
  }));
}

export function restoreRecord(
  deps: RecordDeps,
  user: UserIdentity,
  actor: AuditActor,
  id: string,
): Promise<CaseRecord> {
  return changeRecord(deps, user, actor, parseRecordId(id), 'restored', true, () => ({
    deleted: false,
    deletedAt: undefined, // removed: the field holds dates only (ADR 0006)
    deletedById: undefined,
  }));
}

/**
 * A new cross-agency link (`links.created`): each of its two records gets the other's organization
 * among its linked organizations, if the record is in this database (a record is never removed,
 * so an unknown id names nothing of ours and is skipped). Not an edit: no version, no `updatedAt`,
 * no `records.*` event. Under each record's lock, like every write here (FerretDB updates are
 * read-modify-write: an edit and this must not interleave). A repeated link changes nothing.
 */
export async function recordLink(
  deps: Pick<RecordDeps, 'records' | 'lock' | 'logger'>,
  link: Pick<Link, 'id' | 'sourceRecordId' | 'linkedRecordId' | 'sourceOrganization' | 'linkedOrganization'>,
): Promise<void> {
  const sides: Array<[string, Organization]> = [
    [link.sourceRecordId, link.linkedOrganization],
    [link.linkedRecordId, link.sourceOrganization],
  ];
  for (const [hex, organization] of sides) {
    const id = new Types.ObjectId(hex);
    const outcome = await deps.lock.run(id.toHexString(), () => deps.records.addLinkedOrganization(id, organization));
    if (outcome === 'missing') deps.logger.debug({ linkId: link.id, recordId: hex }, 'linked record not ours; skipped');
  }
}

/**
 * A link rejected or restored (`links.rejected`, `links.restored`): each of its two records that is
 * in this database gets the linked organizations the event names for it (the linking service's, as
 * of the change: it alone knows a record's other links). Under each record's lock; a repeat sets
 * the same.
 */
export async function recordLinkChange(
  deps: Pick<RecordDeps, 'records' | 'lock' | 'logger'>,
  event: Pick<LinkEvent, 'id' | 'organizations'>,
): Promise<void> {
  for (const [hex, organizations] of Object.entries(event.organizations ?? {})) {
    if (!Types.ObjectId.isValid(hex)) continue;
    const id = new Types.ObjectId(hex);
    const outcome = await deps.lock.run(id.toHexString(), () => deps.records.setLinkedOrganizations(id, organizations));
    if (outcome === 'missing') deps.logger.debug({ event: event.id, recordId: hex }, 'linked record not ours; skipped');
  }
}

function presentPage(page: Page<ListedDoc>): Page<CaseRecord> {
  return { ...page, items: page.items.map(presentRecord) };
}

/** Which list a scope's list is: its agency's (every organization's for an all-agency scope). */
const listScope = (scope: Scope, deleted: boolean): ListScope => ({ organization: scope.agencyOr('*'), deleted });

/** The user's active records, newest first. */
export async function listRecords(deps: RecordDeps, user: UserIdentity, paging: PageQuery) {
  const scope = scopeOf(user);
  return presentPage(await pageOf(deps, scope, { deleted: false }, paging, 'createdAt', listScope(scope, false)));
}

/** The user's soft-deleted records, most recently deleted first. */
export async function listDeletedRecords(deps: RecordDeps, user: UserIdentity, paging: PageQuery) {
  const scope = scopeOf(user);
  return presentPage(await pageOf(deps, scope, { deleted: true }, paging, 'deletedAt', listScope(scope, true)));
}

/** Every organization's active records with their total amount (ADMIN's scope: the caller checks). */
export async function listAllRecords(deps: RecordDeps, scope: Scope, paging: PageQuery): Promise<Page<AdminRecord>> {
  if (!scope.isAll) throw new Error(`the list of every organization's records asked in ${scope}`);
  const page = await pageOf(deps, scope, { deleted: false }, paging, 'createdAt', listScope(scope, false));
  return {
    ...page,
    items: page.items.map((d) => ({ ...presentRecord(d), amount: centsToMoney(d.totalCents) })),
  };
}

/**
 * A page of the records of `scope` matching `criteria` and their total; a list's (`list`) total is
 * the one its `ListTotals` keeps, a search's is counted.
 */
function pageOf(
  deps: RecordDeps,
  scope: Scope,
  criteria: RecordCriteria,
  paging: PageQuery,
  sort: SortField,
  list?: ListScope,
) {
  const after = paging.cursor ? decodeCursor(paging.cursor) : undefined;
  if (!list) return deps.records.page(scope, criteria, paging.limit, after, sort);
  return deps.records.page(scope, criteria, paging.limit, after, sort, () =>
    deps.totals.total(list, () => deps.records.count(scope, criteria)),
  );
}

/** A condition no record meets. */
const nothing = (): RecordFilter => ({ _id: op({ $in: [] }) });

/** The stored name terms within one edit of each searched name word, by word (NameTermRepository.near). */
export type NearTerms = ReadonlyMap<string, readonly string[]>;

/** Looks up the name terms near each word of a search's suspect name. */
export async function nearTerms(deps: Pick<RecordDeps, 'records'>, s: RecordSearch): Promise<NearTerms> {
  const nameWords = words(s.suspectName);
  return new Map(await Promise.all(nameWords.map(async (w) => [w, await deps.records.nameTerms.near(w)] as const)));
}

/**
 * The criteria of a search (SPEC §7) among active records (the repository adds the scope). Every
 * piece of user text is either compared for equality or escaped into an anchored prefix pattern.
 * A name word finds the records holding one of its `near` terms (only itself when none are given).
 */
export function searchCriteria(s: RecordSearch, near: NearTerms = new Map()): RecordCriteria {
  const and: RecordFilter[] = [];
  const textWords = words(s.freeText);
  // Text given without a single word (".*", "(") is a literal search that finds nothing, never "no filter".
  if (s.freeText && textWords.length === 0) and.push(nothing());
  for (const word of textWords) {
    // Each word the start of a word of the name or of the other texts (stored apart: ADR 0006).
    const prefix = `^${escapeRegex(word)}`;
    and.push({ $or: [{ searchTokens: op({ $regex: prefix }) }, { suspectNameTerms: op({ $regex: prefix }) }] });
  }
  if (s.incidentNumber) {
    // The start of the number or of any of its parts ("2026-001" finds "BPS-2026-001").
    const prefix = incidentPrefix(s.incidentNumber);
    and.push(prefix ? { incidentKeyParts: op({ $regex: `^${escapeRegex(prefix)}` }) } : nothing());
  }
  const nameWords = words(s.suspectName);
  if (s.suspectName && nameWords.length === 0) and.push(nothing());
  for (const word of nameWords) and.push({ suspectNameTerms: op({ $in: [...(near.get(word) ?? [word])] }) });
  if (s.suspectDob) and.push({ suspectDob: dayToDate(s.suspectDob) });
  if (s.incidentDate) and.push({ incidentDate: dayToDate(s.incidentDate) });
  if (s.amount) and.push({ totalCents: moneyToCents(s.amount) });
  if (s.caseAmount) and.push({ caseCents: moneyToCents(s.caseAmount) });
  if (s.seizedAmount) and.push({ seizedCents: moneyToCents(s.seizedAmount) });
  if (s.confiscatedAmount) and.push({ confiscatedCents: moneyToCents(s.confiscatedAmount) });
  if (s.country) and.push({ country: s.country });
  if (s.crimeType) and.push({ crimeType: s.crimeType });
  if (s.cyberAssisted !== undefined) and.push({ cyberAssisted: s.cyberAssisted });
  return { deleted: false, and };
}

/**
 * A page of a search's results, recorded (`record.search`: what was asked, which records were
 * answered) before it is answered.
 */
export async function searchRecords(
  deps: RecordDeps,
  user: UserIdentity,
  actor: AuditActor,
  body: unknown,
  paging: PageQuery,
): Promise<Page<CaseRecord>> {
  const search = parse(RecordSearchSchema, body ?? {});
  const page = await findRecords(deps, user, search, paging);
  await deps.audit.record(
    actor,
    'record.search',
    page.items.map((r) => r.id),
    searchDetail(search),
  );
  return page;
}

/** What a search asked, for its audit event (each criterion given; text cut to the detail's 500 characters). */
function searchDetail(search: RecordSearch): AuditEvent['detail'] {
  return Object.fromEntries(
    Object.entries(search)
      .filter(([, v]) => v !== undefined && v !== '')
      .map(([k, v]) => [k, typeof v === 'string' ? v.slice(0, 500) : (v as number | boolean)]),
  );
}

async function findRecords(
  deps: RecordDeps,
  user: UserIdentity,
  search: RecordSearch,
  paging: PageQuery,
): Promise<Page<CaseRecord>> {
  if (search.country) {
    // Records store the option's spelling; a search in other letter case means the same country.
    const wanted = search.country.toLowerCase();
    const options = [DEFAULT_COUNTRY, ...(await deps.dropdowns.recent('country')).map((o) => o.value)];
    search.country = options.find((o) => o.toLowerCase() === wanted) ?? search.country;
  }
  const scope = scopeOf(user);
  const criteria = searchCriteria(search, await nearTerms(deps, search));
  const nameWords = words(search.suspectName);
  if (nameWords.length === 0) return presentPage(await pageOf(deps, scope, criteria, paging, 'createdAt'));

  // Name search: the terms near each word narrow the candidates; the edit distance decides here.
  const candidates = await deps.records.nameCandidates(scope, criteria, 'createdAt');
  const matching = candidates.filter((c) => nameMatches(nameWords, c.suspectNameWords, c.suspectNameCompounds));
  let start = 0;
  if (paging.cursor) {
    const after = decodeCursor(paging.cursor);
    const t = after.time.getTime();
    start = matching.findIndex(
      (c) => c.time.getTime() < t || (c.time.getTime() === t && c._id.toHexString() < after.id),
    );
    if (start < 0) start = matching.length;
  }
  const slice = matching.slice(start, start + paging.limit);
  const docs = await deps.records.findByIds(
    scope,
    slice.map((c) => c._id),
  );
  const byId = new Map(docs.map((d) => [d._id.toHexString(), d]));
  const items = slice.flatMap((c) => byId.get(c._id.toHexString()) ?? []);
  const last = slice.at(-1);
  const more = start + paging.limit < matching.length;
  return {
    items: items.map(presentRecord),
    total: matching.length,
    nextCursor: more && last ? encodeCursor({ time: last.time, id: last._id.toHexString() }) : null,
  };
}
