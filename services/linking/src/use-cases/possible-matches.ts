import {
  type Actor,
  ADMIN_ACCESS_DENIED,
  ERROR_CODES,
  LABEL_BAND_EDGES,
  type LabelFigures,
  type Link,
  POSSIBLE_MATCH_NOT_FOUND,
  type PossibleMatch,
  type PossibleMatchCount,
  type PossibleMatchPage,
  PossibleMatchPageQuerySchema,
  RejectPossibleMatchSchema,
  type UserIdentity,
} from '@nrad/contracts';
import { type AuditActor, conflict, notFound, parse, requireAllAgencies, type Scope, scopeOf } from '@nrad/service-kit';
import type { PossibleMatchDoc, StoredDecision } from '../data/store.ts';
import type { IndexEntry } from '../domain/match-index.ts';
import { bestFirst, decisions } from '../domain/possible-matches.ts';
import {
  ALREADY_LINKED,
  calibrateReview,
  type LinkingDeps,
  parseRecordId,
  reviewClasses,
  scoreAgainst,
  storeLink,
} from './linking.ts';

/**
 * The review band (issue 36, ADR 0022): pairs of two agencies' records the scorer put between
 * REVIEW_THRESHOLD and LINK_THRESHOLD (proposed by autoLink), which the investigators of the two
 * agencies confirm (a manual link) or reject (different people: never proposed or linked again).
 * An agency sees the open pairs one of whose records is its own and both active; ADMIN every pair,
 * decided ones with their decision. Every refusal — no such pair, another agencies' pair, decided,
 * a record deleted — is the same 404 (recorded as `possible-match.refused`).
 */

/** The pair's two records as the index holds them now (undefined if either is unknown). */
function entriesOf(deps: LinkingDeps, doc: PossibleMatchDoc): [IndexEntry, IndexEntry] | undefined {
  const a = deps.index.get(doc.recordIds[0]);
  const b = deps.index.get(doc.recordIds[1]);
  return a && b ? [a, b] : undefined;
}

const bothActive = (deps: LinkingDeps, doc: PossibleMatchDoc) => {
  const entries = entriesOf(deps, doc);
  return entries !== undefined && !entries[0].deleted && !entries[1].deleted;
};

/** What an agency may see and decide: an open pair of its own, both records active. */
const openToAgency = (deps: LinkingDeps, doc: PossibleMatchDoc) => doc.decision === null && bothActive(deps, doc);

/** A possible match as `scope` sees it: its agency's record first. */
function view(deps: LinkingDeps, doc: PossibleMatchDoc, scope: Scope): PossibleMatch {
  const [a, b] = entriesOf(deps, doc) as [IndexEntry, IndexEntry];
  const theirsFirst = !scope.isAll && !scope.includes(a.organization);
  const d = doc.decision;
  return {
    id: doc._id.toHexString(),
    records: theirsFirst ? [b.panel, a.panel] : [a.panel, b.panel],
    confidence: doc.confidence,
    matchCriteria: { ...doc.matchCriteria },
    explanation: doc.explanation.map((e) => ({ ...e })),
    createdAt: doc.createdAt.toISOString(),
    ...(d
      ? {
          decision: {
            kind: d.kind,
            at: d.at.toISOString(),
            byId: d.byId,
            byOrganization: d.byOrganization as PossibleMatch['records'][number]['organization'],
            reason: d.reason,
            ...(d.linkId ? { linkId: d.linkId } : {}),
          },
        }
      : {}),
  };
}

/**
 * `GET /api/possible-matches?limit=&offset=`: the caller's page, best first, recorded as a read
 * (`record.read`, detail `{via: 'possible-matches'}`) of every record it shows before it is answered.
 */
export async function listPossibleMatches(
  deps: LinkingDeps,
  user: UserIdentity,
  actor: AuditActor,
  query: unknown,
): Promise<PossibleMatchPage> {
  const { limit, offset } = parse(PossibleMatchPageQuerySchema, query);
  const scope = scopeOf(user);
  const visible = bestFirst([
    ...deps.possibleMatches.visible(scope, (doc) =>
      scope.isAll ? entriesOf(deps, doc) !== undefined : openToAgency(deps, doc),
    ),
  ]);
  const items = visible.slice(offset, offset + limit).map((doc) => view(deps, doc, scope));
  const shown = [...new Set(items.flatMap((item) => item.records.map((r) => r.id)))];
  if (shown.length > 0) await deps.audit.record(actor, 'record.read', shown, { via: 'possible-matches' });
  return { items, total: visible.length };
}

/**
 * `GET /api/possible-matches/count`: the open pairs the caller may decide — an agency's own with both
 * records active, for ADMIN every such pair. Counts only, no record: not an audited read.
 */
export function countPossibleMatches(deps: LinkingDeps, user: UserIdentity): PossibleMatchCount {
  let open = 0;
  for (const _ of deps.possibleMatches.visible(scopeOf(user), (doc) => openToAgency(deps, doc))) open++;
  return { open };
}

/**
 * `GET /api/possible-matches/labels` (ADMIN): the decisions as labels — a confirmed possible match is
 * the same person, a rejected one or a rejected link two people (one label per pair, the later
 * word counting) — counted per band of the
 * confidence they were proposed or linked at (LABEL_BAND_EDGES), with the precision and the recall
 * above each band's lower edge they estimate. Counts only: not an audited read.
 */
export function labelFigures(deps: LinkingDeps, user: UserIdentity): LabelFigures {
  requireAllAgencies(user, ADMIN_ACCESS_DENIED);
  const labels = decisions(deps.links, deps.possibleMatches);
  const confirmedAll = labels.filter((l) => l.same).length;
  const bands = LABEL_BAND_EDGES.slice(0, -1).map((from, k) => {
    const to = LABEL_BAND_EDGES[k + 1] as number;
    const last = to === LABEL_BAND_EDGES.at(-1);
    const inBand = labels.filter((l) => l.confidence >= from && (l.confidence < to || (last && l.confidence <= to)));
    const confirmed = inBand.filter((l) => l.same).length;
    const above = labels.filter((l) => l.same && l.confidence >= from).length;
    return {
      from,
      to,
      labels: inBand.length,
      confirmed,
      rejected: inBand.length - confirmed,
      precision: inBand.length === 0 ? null : confirmed / inBand.length,
      recallAbove: confirmedAll === 0 ? null : above / confirmedAll,
    };
  });
  return { bands, labels: labels.length, classes: reviewClasses(deps) };
}

/** The open possible match `user` may decide, or a recorded refusal (404). */
async function decidable(
  deps: LinkingDeps,
  user: UserIdentity,
  actor: AuditActor,
  id: string,
  op: 'confirm' | 'reject',
): Promise<{ doc: PossibleMatchDoc; entries: [IndexEntry, IndexEntry] }> {
  const scope = scopeOf(user);
  const doc = deps.possibleMatches.get(id);
  const entries = doc ? entriesOf(deps, doc) : undefined;
  const reason = !doc
    ? 'unknown'
    : !doc.organizations.some((o) => scope.includes(o))
      ? 'not the caller’s'
      : doc.decision
        ? 'decided'
        : !entries || entries[0].deleted || entries[1].deleted
          ? 'deleted'
          : undefined;
  if (reason || !doc || !entries) {
    const ids = doc && reason !== 'not the caller’s' ? doc.recordIds : [];
    await deps.audit.record(actor, 'possible-match.refused', ids, {
      reason: reason ?? 'unknown',
      op,
      possibleMatch: id,
    });
    throw notFound(POSSIBLE_MATCH_NOT_FOUND);
  }
  return { doc, entries };
}

/** Stores a decision (the store first), then the registry. */
async function decide(deps: LinkingDeps, doc: PossibleMatchDoc, decision: StoredDecision): Promise<boolean> {
  if (!(await deps.store.decidePossibleMatch(doc._id, decision))) return false;
  deps.possibleMatches.add({ ...doc, decision });
  if (doc.uncertain) calibrateReview(deps);
  return true;
}

/**
 * `POST /api/possible-matches/{id}/confirm`: a manual link of the pair by the user (the caller's
 * agency's record its source; for ADMIN the record that brought the pair), scored as the service
 * scores the pair now, with its `link.create` audit event (detail: the possible match) in its
 * outbox; then the pair is marked confirmed. A pair linked meanwhile answers 409.
 */
export async function confirmPossibleMatch(
  deps: LinkingDeps,
  user: UserIdentity,
  auditActor: AuditActor,
  rawId: string,
): Promise<Link> {
  const id = parseRecordId(rawId, 'id', 'possible match');
  return deps.linkLock.run(`possible-match:${id}`, async () => {
    const { doc, entries } = await decidable(deps, user, auditActor, id, 'confirm');
    const scope = scopeOf(user);
    const [source, linked] =
      !scope.isAll && !scope.includes(entries[0].organization) ? [entries[1], entries[0]] : entries;
    const pair = deps.links.pair(source.id, linked.id);
    if (pair?.rejection) {
      await deps.audit.record(auditActor, 'possible-match.refused', doc.recordIds, {
        reason: 'rejected link',
        op: 'confirm',
        possibleMatch: id,
      });
      throw notFound(POSSIBLE_MATCH_NOT_FOUND);
    }
    if (pair) throw conflict(ALREADY_LINKED, ERROR_CODES.alreadyLinked);
    const actor: Actor = { userId: user.userId, name: user.name, organization: user.organization };
    const result = scoreAgainst(deps, source, linked);
    const link = await storeLink(deps, source, linked, result, 'manual', actor, {
      actor: auditActor,
      detail: { possibleMatch: id },
    });
    if (!link) throw conflict(ALREADY_LINKED, ERROR_CODES.alreadyLinked);
    await decide(deps, doc, {
      kind: 'confirmed',
      at: new Date(),
      byId: user.userId,
      byOrganization: user.organization,
      reason: '',
      linkId: link.id,
    });
    deps.logger.info({ possibleMatch: id, link: link.id, by: user.organization }, 'possible match confirmed');
    return link;
  });
}

/**
 * `POST /api/possible-matches/{id}/reject` `{reason?}`: the two records are different people; the
 * pair is never proposed or linked again (automatically or by hand). Recorded as
 * `possible-match.reject` (the two records, the reason).
 */
export async function rejectPossibleMatch(
  deps: LinkingDeps,
  user: UserIdentity,
  auditActor: AuditActor,
  rawId: string,
  body: unknown,
): Promise<void> {
  const input = parse(RejectPossibleMatchSchema, body ?? {});
  const id = parseRecordId(rawId, 'id', 'possible match');
  await deps.linkLock.run(`possible-match:${id}`, async () => {
    const { doc } = await decidable(deps, user, auditActor, id, 'reject');
    const reason = input.reason ?? '';
    const decided = await decide(deps, doc, {
      kind: 'rejected',
      at: new Date(),
      byId: user.userId,
      byOrganization: user.organization,
      reason,
    });
    if (!decided) throw notFound(POSSIBLE_MATCH_NOT_FOUND);
    await deps.audit.record(auditActor, 'possible-match.reject', doc.recordIds, {
      possibleMatch: id,
      reason: reason.slice(0, 500),
    });
    deps.logger.info({ possibleMatch: id, by: user.organization }, 'possible match rejected');
  });
}
