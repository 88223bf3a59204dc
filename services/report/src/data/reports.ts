import type { Organization, Report, ReportFigures, ReportSummary } from '@nrad/contracts';
import { isDuplicateKeyError, type Scope } from '@nrad/service-kit';
import { type Connection, type Model, Schema, Types } from 'mongoose';

/** One stored report: who asked, when, what for, who wrote it, and the figures it was written from. */
export interface ReportDoc {
  _id: Types.ObjectId;
  organization: Organization;
  createdBy: { id: string; name: string };
  createdAt: Date;
  parameters: string | null;
  /** The model's name, or "template". */
  model: string;
  report: string;
  figures: ReportFigures;
  /** The BullMQ job that wrote it. */
  jobId: string;
}

const reportSchema = new Schema<ReportDoc>(
  {
    _id: { type: Schema.Types.ObjectId, required: true },
    organization: { type: String, required: true },
    createdBy: { type: Schema.Types.Mixed, required: true },
    createdAt: { type: Date, required: true },
    parameters: { type: String, default: null },
    model: { type: String, required: true },
    report: { type: String, required: true },
    figures: { type: Schema.Types.Mixed, required: true },
    jobId: { type: String, required: true },
  },
  { collection: 'reports', versionKey: false, minimize: false },
);
// An agency's reports newest first: the list's filter and order, one index walk.
reportSchema.index({ organization: 1, createdAt: -1, _id: -1 });

/** What `ReportStore.get` answers for another organization's report (not its content). */
export const OUTSIDE_SCOPE = 'outside scope';

/**
 * The filtered reads of the report store (exported for the plan test: an index on each). A report
 * is its requester's organization's own (ADMIN's too): `Scope.ownFilter` (docs/adr/0020).
 */
export const reportQueries = {
  list: (scope: Scope) => ({ filter: scope.ownFilter(), sort: { createdAt: -1, _id: -1 } as const }),
  byId: (id: Types.ObjectId) => ({ filter: { _id: id } }),
};

export function summaryOf(doc: ReportDoc): ReportSummary {
  return {
    id: doc._id.toHexString(),
    createdAt: doc.createdAt.toISOString(),
    model: doc.model,
    parameters: doc.parameters,
    organization: doc.organization,
    createdBy: doc.createdBy,
  };
}

export function reportOf(doc: ReportDoc): Report {
  return { ...summaryOf(doc), report: doc.report, figures: doc.figures };
}

/** The report service's own database. Only this module touches it. */
export class ReportStore {
  readonly reports: Model<ReportDoc>;

  constructor(conn: Connection) {
    this.reports = conn.model<ReportDoc>('Report', reportSchema);
  }

  async init(): Promise<void> {
    await this.reports.init();
  }

  /**
   * Stores a report of the scope's own once: a retried job that wrote it before finds it (same id)
   * and keeps the first.
   */
  async save(scope: Scope, doc: ReportDoc): Promise<ReportDoc> {
    if (!scope.owns(doc.organization)) throw new Error(`a report of ${doc.organization} is outside ${scope}`);
    try {
      await this.reports.collection.insertOne(doc);
      return doc;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      const stored = await this.get(scope, doc._id);
      if (stored === null || stored === OUTSIDE_SCOPE) throw err;
      return stored;
    }
  }

  /**
   * A report of the scope's own by id; `OUTSIDE_SCOPE` for another organization's (whose content
   * never leaves here: the caller records the attempt), null for none.
   */
  async get(scope: Scope, id: Types.ObjectId): Promise<ReportDoc | typeof OUTSIDE_SCOPE | null> {
    const doc = await this.reports.findOne(reportQueries.byId(id).filter).lean<ReportDoc>();
    if (doc && !scope.owns(doc.organization)) return OUTSIDE_SCOPE;
    return doc;
  }

  /** The scope's own reports, newest first, without their text and figures. */
  async list(scope: Scope, limit: number, offset: number): Promise<{ items: ReportDoc[]; total: number }> {
    const q = reportQueries.list(scope);
    const [items, total] = await Promise.all([
      this.reports.find(q.filter, { report: 0, figures: 0 }).sort(q.sort).skip(offset).limit(limit).lean<ReportDoc[]>(),
      this.reports.countDocuments(q.filter),
    ]);
    return { items, total };
  }
}

export const newReportId = () => new Types.ObjectId();
