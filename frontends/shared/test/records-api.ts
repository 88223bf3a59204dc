/**
 * Records made straight through the gateway, as the signed-in user of the page (its cookie), for
 * the record screens' tests to show, change and find.
 */
import type { CaseRecord, RecordLinkView } from '@nrad/contracts';

const json = { 'Content-Type': 'application/json' };
let counter = 0;

/** A unique incident number, so tests sharing a stack never collide. */
export const incidentNumber = (prefix = 'T') =>
  `${prefix}-${Date.now().toString(36).toUpperCase()}-${(counter++).toString(36).toUpperCase()}`;

/** Creates a record (a plain police record unless `fields` say otherwise); throws when refused. */
export async function createRecord(fields: Record<string, unknown> = {}): Promise<CaseRecord> {
  const body = {
    incidentNumber: incidentNumber(),
    suspectName: 'Ada Testperson',
    suspectDob: '1980-05-01',
    incidentDate: '2024-03-02',
    caseAmount: '100',
    seizedAmount: '0',
    confiscatedAmount: '0',
    sourceOfRecord: 'Police Investigation',
    namlcOrganization: null,
    internationalNexus: false,
    cyberAssisted: false,
    country: 'Bermuda',
    crimeType: null,
    crimeSubtype: null,
    additionalInfo: null,
    ...fields,
  };
  const response = await fetch('/api/records', { method: 'POST', headers: json, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`create: ${response.status} ${await response.text()}`);
  return (await response.json()) as CaseRecord;
}

/** Soft-deletes a record; throws when refused. */
export async function deleteRecord(id: string): Promise<void> {
  const response = await fetch(`/api/records/${id}`, { method: 'DELETE' });
  if (!response.ok) throw new Error(`delete: ${response.status} ${await response.text()}`);
}

/** Waits until the linking service has linked the record (it links new records by itself). */
export async function linksOf(id: string, atLeast = 1, timeoutMs = 20_000): Promise<RecordLinkView[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`/api/records/${id}/links`);
    if (response.ok) {
      const links = (await response.json()) as RecordLinkView[];
      if (links.length >= atLeast) return links;
    }
    if (Date.now() > until) throw new Error(`record ${id} was not linked within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Creates `count` records, a few at a time (`fields(i)` for the i-th); resolves with them in order. */
export async function createRecords(count: number, fields: (i: number) => Record<string, unknown>) {
  const made: CaseRecord[] = [];
  for (let start = 0; start < count; start += 8) {
    const batch = Array.from({ length: Math.min(8, count - start) }, (_, k) => createRecord(fields(start + k)));
    made.push(...(await Promise.all(batch)));
  }
  return made;
}
