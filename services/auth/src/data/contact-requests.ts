import type { ContactRequest, Organization } from '@nrad/contracts';
import { type Connection, type Model, Schema, type Types } from 'mongoose';

interface ContactRequestDoc {
  _id: Types.ObjectId;
  userId: Types.ObjectId;
  userEmail: string;
  userName: string;
  userOrganization: Organization;
  subject: string;
  message: string;
  status: 'open' | 'resolved';
  createdAt: Date;
  resolvedAt: Date | null;
}

const contactRequestSchema = new Schema<ContactRequestDoc>(
  {
    userId: { type: Schema.Types.ObjectId, required: true, index: true },
    userEmail: { type: String, required: true },
    userName: { type: String, required: true },
    userOrganization: { type: String, required: true },
    subject: { type: String, required: true },
    message: { type: String, required: true },
    status: { type: String, required: true, enum: ['open', 'resolved'], default: 'open' },
    resolvedAt: { type: Date, default: null },
  },
  { timestamps: { createdAt: true, updatedAt: false }, collection: 'contact_requests' },
);
// ADMIN's inbox: open before resolved ('open' < 'resolved'), newest first.
contactRequestSchema.index({ status: 1, createdAt: -1, _id: -1 });

export function presentContactRequest(d: ContactRequestDoc): ContactRequest {
  return {
    id: d._id.toHexString(),
    userId: d.userId.toHexString(),
    userEmail: d.userEmail,
    userName: d.userName,
    userOrganization: d.userOrganization,
    subject: d.subject,
    message: d.message,
    status: d.status,
    createdAt: d.createdAt.toISOString(),
    resolvedAt: d.resolvedAt ? d.resolvedAt.toISOString() : null,
  };
}

/** The reads of the contact requests (exported for the plan test: each uses an index). */
export const contactRequestQueries = {
  forUser: (userId: string) => ({ filter: { userId }, sort: { createdAt: -1 as const, _id: -1 as const } }),
  /** One status of ADMIN's inbox, newest first (the inbox reads open, then resolved). */
  inbox: (status: 'open' | 'resolved') => ({
    filter: { status },
    sort: { createdAt: -1 as const, _id: -1 as const },
  }),
};

/** Messages users send to the administrator (SPEC §3 "Contact request"). */
export class ContactRequestRepository {
  readonly model: Model<ContactRequestDoc>;

  constructor(conn: Connection) {
    this.model = conn.model<ContactRequestDoc>('ContactRequest', contactRequestSchema);
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  async create(
    input: Omit<ContactRequestDoc, '_id' | 'createdAt' | 'resolvedAt' | 'status' | 'userId'> & { userId: string },
  ) {
    const doc = await this.model.create({ ...input, status: 'open' });
    return presentContactRequest(doc.toObject());
  }

  /**
   * ADMIN's inbox, a page at a time: open requests (newest first), then resolved ones, each
   * status read on its own index so the store sorts; `open` counts every open request.
   */
  async inbox(query: { status?: 'open' | 'resolved'; limit: number; offset: number }) {
    const [open, resolved] = await Promise.all([
      this.model.countDocuments({ status: 'open' }),
      this.model.countDocuments({ status: 'resolved' }),
    ]);
    const segments =
      query.status === 'open'
        ? [{ status: 'open' as const, count: open }]
        : query.status === 'resolved'
          ? [{ status: 'resolved' as const, count: resolved }]
          : [
              { status: 'open' as const, count: open },
              { status: 'resolved' as const, count: resolved },
            ];
    const items: ContactRequest[] = [];
    let skip = query.offset;
    for (const segment of segments) {
      if (items.length >= query.limit) break;
      if (skip >= segment.count) {
        skip -= segment.count;
        continue;
      }
      const q = contactRequestQueries.inbox(segment.status);
      const docs = await this.model
        .find(q.filter)
        .sort(q.sort)
        .skip(skip)
        .limit(query.limit - items.length)
        .lean<ContactRequestDoc[]>();
      items.push(...docs.map(presentContactRequest));
      skip = 0;
    }
    return { items, total: segments.reduce((n, s) => n + s.count, 0), open };
  }

  /**
   * Marks a request resolved, once: resolving it again changes nothing and answers it as it is.
   * Null when there is no such request.
   */
  async resolve(id: string, at: Date): Promise<ContactRequest | null> {
    const updated = await this.model
      .findOneAndUpdate(
        { _id: id, status: 'open' },
        { $set: { status: 'resolved', resolvedAt: at } },
        { returnDocument: 'after' },
      )
      .lean<ContactRequestDoc>();
    if (updated) return presentContactRequest(updated);
    const existing = await this.model.findById(id).lean<ContactRequestDoc>();
    return existing ? presentContactRequest(existing) : null;
  }

  async listForUser(userId: string): Promise<ContactRequest[]> {
    const q = contactRequestQueries.forUser(userId);
    const docs = await this.model.find(q.filter).sort(q.sort).lean<ContactRequestDoc[]>();
    return docs.map(presentContactRequest);
  }
}
