import type { Organization, Report, ReportFigures, ReportSummary } from '@nrad/contracts';
import { isDuplicateKeyError } from '@nrad/service-kit';
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

/** The filtered reads of the report store (exported for the plan test: an index on each). */
export const reportQueries = {
  list: (organization: Organization) => ({ filter: { organization }, sort: { createdAt: -1, _id: -1 } as const }),
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

  /** Stores a report once: a retried job that wrote it before finds it (same id) and keeps the first. */
  async save(doc: ReportDoc): Promise<ReportDoc> {
    try {
      await this.reports.collection.insertOne(doc);
      return doc;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      const stored = await this.get(doc._id);
      if (!stored) throw err;
      return stored;
    }
  }

  get(id: Types.ObjectId): Promise<ReportDoc | null> {
    return this.reports.findOne(reportQueries.byId(id).filter).lean<ReportDoc>();
  }

  /** An organization's reports, newest first, without their text and figures. */
  async list(
    organization: Organization,
    limit: number,
    offset: number,
  ): Promise<{ items: ReportDoc[]; total: number }> {
    const q = reportQueries.list(organization);
    const [items, total] = await Promise.all([
      this.reports.find(q.filter, { report: 0, figures: 0 }).sort(q.sort).skip(offset).limit(limit).lean<ReportDoc[]>(),
      this.reports.countDocuments(q.filter),
    ]);
    return { items, total };
  }
}

export const newReportId = () => new Types.ObjectId();
