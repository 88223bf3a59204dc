import type { CaseRecord } from '@nrad/contracts';
import { scorePrepared } from '@nrad/matching';
import type { Connection } from 'mongoose';
import type { LinkDoc, PossibleMatchDoc } from './data/store.ts';
import { entryFor, MatchIndex } from './domain/match-index.ts';
import { MatchRate } from './domain/match-rate.ts';
import { calibrateClasses, reviewCeilings } from './domain/review-classes.ts';

/** A stored link that the disclosure rule (issue 34) would not make today. */
export interface FailingLink {
  id: string;
  linkType: string;
  source: string;
  linked: string;
  storedConfidence: number;
  confidence: number;
  createdAt: string;
  createdById: string | null;
  /** Why: under the threshold, or a record no longer in the index. */
  reason: string;
}

export interface LinksAuditReport {
  records: number;
  checked: number;
  rejected: number;
  failing: FailingLink[];
}

/**
 * `npm run links:audit` (issue 34): every stored link that is not rejected, scored again on the
 * stored records as the service scores a manual link today (the index's weights and prior, whole
 * names), and each one under `threshold` listed, for ADMIN to decide (reject it or let it stand: a
 * manual link may rest on a NAMLC check's disclosure, which the store keeps for 30 minutes only).
 * Reads only: no collection, index or document is created or changed, so it runs beside the
 * service.
 */
export async function auditLinks(
  db: Connection,
  threshold: number,
  band: { readonly reviewThreshold: number; readonly linkThreshold: number } = {
    reviewThreshold: threshold,
    linkThreshold: threshold,
  },
): Promise<LinksAuditReport> {
  const raw = db.db;
  if (!raw) throw new Error('not connected');
  const index = new MatchIndex();
  for await (const doc of raw
    .collection<{ record: CaseRecord }>('match_index')
    .find({}, { projection: { record: 1 } })) {
    index.put(entryFor(doc.record));
  }
  new MatchRate(index).estimate(); // the weights and prior the service would score with
  // The uncertain classes' confidences the service has learnt from the decided possible matches.
  const decided = raw.collection<PossibleMatchDoc>('possible_matches').find({ decision: { $ne: null } });
  index.setReview(reviewCeilings(calibrateClasses(await decided.toArray(), band)));
  const report: LinksAuditReport = { records: index.size, checked: 0, rejected: 0, failing: [] };
  for await (const link of raw.collection<LinkDoc>('links').find({})) {
    if (link.rejection) {
      report.rejected++;
      continue;
    }
    report.checked++;
    const source = index.get(link.sourceRecordId);
    const linked = index.get(link.linkedRecordId);
    const confidence =
      source && linked
        ? scorePrepared(
            source.prepared,
            linked.prepared,
            index.scoreOptions(index.activeCount(linked.organization), true),
          ).confidence
        : 0;
    if (source && linked && confidence >= threshold) continue;
    report.failing.push({
      id: link._id.toHexString(),
      linkType: link.linkType,
      source: `${link.sourceOrganization}:${link.sourceRecordId}`,
      linked: `${link.linkedOrganization}:${link.linkedRecordId}`,
      storedConfidence: link.confidence,
      confidence,
      createdAt: link.createdAt.toISOString(),
      createdById: link.createdById,
      reason: source && linked ? `scores ${confidence.toFixed(2)} < ${threshold}` : 'a record is not in the index',
    });
  }
  report.failing.sort((a, b) => a.confidence - b.confidence || a.id.localeCompare(b.id));
  return report;
}

/** The report as lines: a summary, then one line per failing link. */
export function describeLinksAudit(report: LinksAuditReport, threshold: number): string[] {
  const lines = [
    `${report.checked} links checked (${report.rejected} rejected left out) over ${report.records} indexed records: ` +
      `${report.failing.length} would not be made today (disclosure threshold ${threshold}).`,
  ];
  if (report.failing.length > 0) {
    lines.push('link | type | source | linked | stored | now | created | by | why');
    for (const f of report.failing) {
      lines.push(
        [
          f.id,
          f.linkType,
          f.source,
          f.linked,
          f.storedConfidence.toFixed(2),
          f.confidence.toFixed(2),
          f.createdAt,
          f.createdById ?? 'NRAD (automatic)',
          f.reason,
        ].join(' | '),
      );
    }
    lines.push(
      'Nothing was changed. ADMIN decides: reject a link with DELETE /api/records/{id}/links/{linkedId}, or let it stand.',
    );
  }
  return lines;
}
