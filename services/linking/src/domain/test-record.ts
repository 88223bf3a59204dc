/**
 * A whole case record for the domain tests: every field a record of the records service carries,
 * with `over` on top (unique incident numbers; dates of now).
 */
import type { CaseRecord } from '@nrad/contracts';
import { Types } from 'mongoose';

let next = 0;

export function caseRecord(over: Partial<CaseRecord> = {}): CaseRecord {
  next++;
  const now = new Date().toISOString();
  return {
    id: new Types.ObjectId().toHexString(),
    incidentNumber: `I-${next}`,
    suspectName: 'Test Person',
    suspectDob: '1980-01-01',
    incidentDate: '2024-01-01',
    caseAmount: '100.00',
    seizedAmount: '0.00',
    confiscatedAmount: '0.00',
    sourceOfRecord: 'Police Investigation',
    namlcOrganization: null,
    internationalNexus: false,
    cyberAssisted: false,
    country: 'Bermuda',
    crimeType: null,
    crimeSubtype: null,
    additionalInfo: null,
    organization: 'BPS',
    createdById: new Types.ObjectId().toHexString(),
    createdAt: now,
    updatedAt: now,
    deleted: false,
    deletedAt: null,
    deletedById: null,
    version: 1,
    linked: false,
    linkedOrganizations: [],
    ...over,
  };
}
