import { createHash } from 'node:crypto';
import {
  DEFAULT_COUNTRY,
  INCIDENT_NUMBER_TAKEN,
  type RecordCheckOutcome,
  type RecordImportOutcome,
  type RecordImportRequest,
  type RecordInput,
  recordInputProblems,
  type UserIdentity,
} from '@nrad/contracts';
import type { AuditActor } from '@nrad/service-kit';
import { Types } from 'mongoose';
import type { ImportEventsDoc } from '../data/import-events.ts';
import { newRecordDoc, presentRecord, type RecordDoc } from '../data/records.ts';
import { checkOptionsIn, type OptionLists, optionLists, outboxEntry, type RecordDeps } from './records.ts';

/**
 * The id of the record an import key creates. The same key always names the same record, so a
 * retried or replayed import finds it instead of creating a second one (the `_id` index decides,
 * atomically on every store).
 *
 * A key of the ingest worker's form `<upload>:<row>` (row below 2^24) gives 9 bytes of the upload
 * part's SHA-256 followed by the row number: an upload's records have ids in the order of their
 * rows, so each `_id`-ordered index of every store that keeps them (the records, the linking and
 * stats copies) takes a batch's entries side by side on a few pages, where ids scattered over the
 * whole index made every entry write a page of its own (bench:ingest 100,000 rows: 64-68 → 56 s,
 * the store's CPU 50-56 → 43 CPU-s). Ids of two uploads meet only if 72 bits of their hashes do.
 * Any other key gives 12 bytes of its SHA-256, as every key did before (`legacyImportedRecordId`).
 */
export function importedRecordId(key: string): Types.ObjectId {
  const at = key.lastIndexOf(':');
  const digits = key.slice(at + 1);
  const row = Number(digits);
  if (at > 0 && /^(0|[1-9]\d{0,7})$/.test(digits) && row < 0x1000000) {
    const id = Buffer.alloc(12);
    createHash('sha256')
      .update(`nrad-import-rows:${key.slice(0, at)}`)
      .digest()
      .copy(id, 0, 0, 9);
    id.writeUIntBE(row, 9, 3);
    return new Types.ObjectId(id);
  }
  return legacyImportedRecordId(key);
}

/** The id every import key named before ids followed an upload's rows (a job begun then may resume now). */
export function legacyImportedRecordId(key: string): Types.ObjectId {
  return new Types.ObjectId(createHash('sha256').update(`nrad-import:${key}`).digest().subarray(0, 12));
}

/**
 * A row checked as a single create checks it — the contract schema, then the option lists — with
 * every problem listed at once (issue 37): a row the schema refuses also has the rules between its
 * valid fields and the option lists of its valid source and country checked, so that the uploader
 * fixes the row once.
 */
export function checkRow(
  body: unknown,
  lists: OptionLists,
): { input: RecordInput } | { errors: Array<{ field: string; message: string }> } {
  const checked = recordInputProblems(body);
  if ('input' in checked) {
    const options = checkOptionsIn(lists, checked.input);
    if ('errors' in options) return options;
    return { input: { ...checked.input, ...options.values } as RecordInput };
  }
  const errors = checked.errors.map((e) => ({ ...e, field: e.field || 'record' }));
  const flagged = new Set(errors.map((e) => e.field));
  const { valid } = checked;
  // Each list on its own field's valid value; the problems of a field not checked are dropped.
  const source = typeof valid.sourceOfRecord === 'string' && !flagged.has('sourceOfRecord');
  const country = Object.hasOwn(valid, 'country') && !flagged.has('country');
  if (source || country) {
    const options = checkOptionsIn(lists, {
      sourceOfRecord: source ? (valid.sourceOfRecord as string) : '',
      country: country ? ((valid.country as string | null | undefined) ?? DEFAULT_COUNTRY) : DEFAULT_COUNTRY,
    });
    if ('errors' in options) {
      errors.push(
        ...options.errors.filter((e) => (e.field === 'sourceOfRecord' ? source : e.field === 'country' && country)),
      );
    }
  }
  return { errors };
}

/** The outcome of an item whose incident number another record (or an earlier item) holds. */
const TAKEN = { outcome: 'taken', errors: [{ field: 'incidentNumber', message: INCIDENT_NUMBER_TAKEN }] } as const;

/**
 * Creates records for `owner` from import items (the ingest worker's rows), each validated and
 * stored as `createRecord` stores one — option lists, unique incident number, a `records.created`
 * event each (through the import outbox) — and answers each item's outcome in order. Idempotent by
 * key: an item whose record exists already answers `existed` and changes nothing.
 */
export async function importRecords(
  deps: RecordDeps,
  { owner, items, actor }: { owner: UserIdentity; items: RecordImportRequest['items']; actor: AuditActor },
  lists?: OptionLists,
): Promise<RecordImportOutcome[]> {
  lists ??= await optionLists(deps);

  const outcomes: RecordImportOutcome[] = items.map((item) => ({ key: item.key, outcome: 'invalid' }));
  const candidates: Array<{ at: number; doc: RecordDoc }> = [];
  const now = new Date();
  items.forEach((item, at) => {
    const checked = checkRow(item.body, lists);
    if ('errors' in checked) {
      (outcomes[at] as RecordImportOutcome).errors = checked.errors;
      return;
    }
    const doc = newRecordDoc(
      checked.input,
      { organization: owner.organization, createdById: owner.userId },
      now,
      importedRecordId(item.key),
    );
    candidates.push({ at, doc });
  });

  // Imported before (a retry, a replay): the record is there under the key's id.
  const existing = new Set(
    (await deps.records.existingIds(candidates.map((c) => c.doc._id))).map((id) => id.toHexString()),
  );
  // Incident numbers other records hold (or an earlier item of this request).
  const taken = new Set(await deps.records.takenIncidentKeys(candidates.map((c) => c.doc.incidentKey)));
  // A row of a job begun before ids followed the rows, resumed since, was created under its key's
  // legacy id: its number is taken, by that record. Looked up only for rows whose number is taken.
  const legacy = new Map<number, string>();
  const legacyIds = candidates
    .filter((c) => !existing.has(c.doc._id.toHexString()) && taken.has(c.doc.incidentKey))
    .map((c) => {
      const id = legacyImportedRecordId((items[c.at] as RecordImportRequest['items'][number]).key);
      legacy.set(c.at, id.toHexString());
      return id;
    });
  const legacyExisting = new Set(
    legacyIds.length ? (await deps.records.existingIds(legacyIds)).map((id) => id.toHexString()) : [],
  );
  const fresh: Array<{ at: number; doc: RecordDoc }> = [];
  for (const c of candidates) {
    const outcome = outcomes[c.at] as RecordImportOutcome;
    const id = c.doc._id.toHexString();
    const legacyId = legacy.get(c.at);
    if (existing.has(id)) {
      Object.assign(outcome, { outcome: 'existed', id });
    } else if (legacyId !== undefined && legacyExisting.has(legacyId)) {
      Object.assign(outcome, { outcome: 'existed', id: legacyId });
    } else if (taken.has(c.doc.incidentKey)) {
      Object.assign(outcome, TAKEN);
    } else {
      taken.add(c.doc.incidentKey);
      fresh.push(c);
    }
  }

  // The events first, all in one document (the import outbox, docs/adr/0011), then the records,
  // each naming that document (`importId`): an event is relayed only for a record that exists and
  // was inserted by its document's request, so a crash between the two loses none, and a retry
  // after a crash (its own document, the rest of the records) publishes none twice.
  const batchId = new Types.ObjectId();
  for (const { doc } of fresh) doc.importId = batchId;
  const batch: ImportEventsDoc = {
    _id: batchId,
    events: fresh.map(({ doc }) => ({
      recordId: doc._id,
      entry: outboxEntry(deps.subjectPrefix, 'created', owner, presentRecord(doc)),
    })),
    createdAt: now,
    audit: actor,
  };
  if (fresh.length === 0) return outcomes;
  deps.relay.importBegun(batchId);
  let failed = new Set<string>();
  const store = async () => {
    await deps.imports.add(batch);
    failed = new Set((await deps.records.insertMany(fresh.map((c) => c.doc))).map((id) => id.toHexString()));
  };
  try {
    await deps.totals.change(owner.organization, store, () => ({
      organization: owner.organization,
      active: fresh.length - failed.size,
      deleted: 0,
    }));
    if (failed.size) {
      // Lost a race (another import of the same key, or a create of the same number meanwhile).
      const lost = fresh.filter((c) => failed.has(c.doc._id.toHexString())).map((c) => c.doc._id);
      const nowExisting = new Set((await deps.records.existingIds(lost)).map((id) => id.toHexString()));
      for (const c of fresh) {
        const id = c.doc._id.toHexString();
        if (!failed.has(id)) continue;
        Object.assign(outcomes[c.at] as RecordImportOutcome, nowExisting.has(id) ? { outcome: 'existed', id } : TAKEN);
      }
    }
  } catch (err) {
    // Stored or not, in part or whole: the sweep publishes what the document's records became.
    deps.relay.importAbandoned(batchId);
    throw err;
  }
  const created = new Set<string>();
  for (const c of fresh) {
    const id = c.doc._id.toHexString();
    if (failed.has(id)) continue;
    created.add(id);
    Object.assign(outcomes[c.at] as RecordImportOutcome, { outcome: 'created', id });
  }
  // Their events go out together; the answer does not wait for them (the relay retries what fails).
  deps.relay.relayImported(batch, created);
  return outcomes;
}

/**
 * Rows the ingest worker refused already (`check`): each checked as `importRecords` checks an item
 * — nothing is looked up and nothing stored — with every problem listed, in order.
 */
export function checkRows(rows: NonNullable<RecordImportRequest['check']>, lists: OptionLists): RecordCheckOutcome[] {
  return rows.map((row) => {
    const checked = checkRow(row.body, lists);
    return { key: row.key, errors: 'errors' in checked ? checked.errors : [] };
  });
}
