/**
 * Which organization owns which record (`record_owners`: `_id` the record id as hex, the
 * organization), kept from the records service's `records.*` events: the audit service cannot read
 * the records database, and an agency may read only the timeline of its own records. A record's
 * organization is set when it is created and never changes, so the first event of a record that
 * arrives writes its owner and every later one finds it there.
 */
import type { Organization } from '@nrad/contracts';
import { insertManyExceptDuplicates, type Scope } from '@nrad/service-kit';
import type { Connection, Model } from 'mongoose';
import { Schema } from 'mongoose';

export const OWNERS_COLLECTION = 'record_owners';

interface OwnerDoc {
  _id: string;
  organization: Organization;
}

const ownerSchema = new Schema<OwnerDoc>(
  {
    _id: { type: String, required: true },
    organization: { type: String, required: true },
  },
  { collection: OWNERS_COLLECTION, versionKey: false },
);

export interface RecordOwner {
  recordId: string;
  organization: Organization;
}

export class RecordOwners {
  readonly owners: Model<OwnerDoc>;

  constructor(conn: Connection) {
    this.owners = conn.model<OwnerDoc>('RecordOwner', ownerSchema);
  }

  async init(): Promise<void> {
    await this.owners.init();
  }

  /**
   * Writes the owners of these records, once each: one unordered insert for all of them (a bulk
   * upload's thousands of events in a few writes); those already known are left as they are.
   * Idempotent, so a redelivered event changes nothing. Resolves how many were new.
   */
  async record(owners: readonly RecordOwner[]): Promise<number> {
    const byId = new Map<string, OwnerDoc>();
    for (const o of owners) byId.set(o.recordId, { _id: o.recordId, organization: o.organization });
    const docs = [...byId.values()];
    const known = await insertManyExceptDuplicates(this.owners.collection, docs);
    return docs.length - known.length;
  }

  /**
   * The organization that owns a record of `scope`, or null when it is another agency's or no
   * event of it has been seen.
   */
  async ownerOf(scope: Scope, recordId: string): Promise<Organization | null> {
    const doc = await this.owners.findById(recordId).lean<OwnerDoc>();
    return doc && scope.includes(doc.organization) ? doc.organization : null;
  }
}
