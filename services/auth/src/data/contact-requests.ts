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

  async listForUser(userId: string): Promise<ContactRequest[]> {
    const q = contactRequestQueries.forUser(userId);
    const docs = await this.model.find(q.filter).sort(q.sort).lean<ContactRequestDoc[]>();
    return docs.map(presentContactRequest);
  }
}
