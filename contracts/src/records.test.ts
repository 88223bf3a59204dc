import { describe, expect, it } from 'vitest';
import { uploadStoppedMessage } from './ingest.ts';
import {
  incidentProbesSpentMessage,
  PageQuerySchema,
  RecordEventSchema,
  RecordSearchSchema,
  RecordUpdateSchema,
  recordInputProblems,
  recordSubject,
  retryTimeText,
  UpdateDropdownOptionsSchema,
} from './records.ts';

const fields = {
  incidentNumber: 'A-1',
  suspectName: 'Ann Lee',
  suspectDob: '1980-01-01',
  incidentDate: '2020-01-01',
  caseAmount: '1',
  sourceOfRecord: 'Other',
  internationalNexus: false,
};

describe('record update', () => {
  it('takes the fields and an optional version, and refuses owner fields', () => {
    expect(RecordUpdateSchema.parse({ ...fields, version: 3 })).toMatchObject({ version: 3, country: 'Bermuda' });
    expect(RecordUpdateSchema.parse(fields).version).toBeUndefined();
    for (const extra of [{ organization: 'FIA' }, { createdById: '0'.repeat(24) }, { id: 'x' }]) {
      expect(RecordUpdateSchema.safeParse({ ...fields, ...extra }).success).toBe(false);
    }
    expect(RecordUpdateSchema.safeParse({ ...fields, version: 0 }).success).toBe(false);
    expect(RecordUpdateSchema.safeParse({ ...fields, suspectDob: '2021-01-01' }).success).toBe(false);
  });
});

describe('every problem of a record input at once (issue 37)', () => {
  const problems = (body: unknown) => {
    const checked = recordInputProblems(body);
    return 'errors' in checked ? checked.errors : [];
  };

  it('answers the input when it is valid, as the schema does', () => {
    expect(recordInputProblems(fields)).toEqual({ input: expect.objectContaining({ country: 'Bermuda' }) });
  });

  it('checks the rules between valid fields while another field fails', () => {
    // The schema alone names only the amount: zod runs the rules on a valid object only.
    expect(problems({ ...fields, caseAmount: 'lots', suspectDob: '2999-01-01' })).toEqual([
      { field: 'caseAmount', message: expect.stringMatching(/amount/) },
      { field: 'suspectDob', message: 'must not be in the future' },
      { field: 'suspectDob', message: 'must be before the incident date' },
    ]);
    expect(problems({ ...fields, suspectName: '', country: 'France', crimeSubtype: 'Phishing' })).toEqual([
      { field: 'suspectName', message: 'Suspect name is required' },
      { field: 'crimeSubtype', message: 'needs a crime type' },
      { field: 'country', message: 'must be Bermuda when there is no international nexus' },
    ]);
  });

  it('leaves out a rule whose fields are not all valid, and tells which fields are', () => {
    const checked = recordInputProblems({ ...fields, internationalNexus: 'maybe', country: 'France', crimeType: 'x' });
    expect('errors' in checked && checked.errors.map((e) => e.field)).toEqual(['internationalNexus', 'crimeType']);
    expect('valid' in checked && checked.valid).toMatchObject({ sourceOfRecord: 'Other', country: 'France' });
    expect('valid' in checked && Object.hasOwn(checked.valid, 'internationalNexus')).toBe(false);
    expect(problems(null)).toEqual([{ field: '', message: expect.any(String) }]);
  });
});

describe('search filter', () => {
  it('treats blanks and nulls as not given and canonicalizes amounts and dates', () => {
    expect(
      RecordSearchSchema.parse({
        freeText: '  ',
        suspectName: null,
        amount: 12.5,
        incidentDate: '2024-02-29T00:00:00.000Z',
        cyberAssisted: false,
        crimeType: '',
      }),
    ).toEqual({ amount: '12.50', incidentDate: '2024-02-29', cyberAssisted: false });
  });

  it('refuses unknown fields, operators and wrong types', () => {
    for (const bad of [
      { other: 1 },
      { freeText: { $regex: '.*' } },
      { country: { $gt: '' } },
      { cyberAssisted: 'yes' },
      { amount: '-1' },
      { suspectDob: '2023-02-30' },
      { crimeType: 'Shoplifting' },
    ]) {
      expect(RecordSearchSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});

describe('paging', () => {
  it('defaults to 100 and bounds the limit', () => {
    expect(PageQuerySchema.parse({})).toEqual({ limit: 100 });
    expect(PageQuerySchema.parse({ limit: '5', cursor: 'abc_-1' })).toEqual({ limit: 5, cursor: 'abc_-1' });
    for (const limit of ['0', '1001', '1.5', 'x']) expect(PageQuerySchema.safeParse({ limit }).success).toBe(false);
    expect(PageQuerySchema.safeParse({ cursor: '$gt' }).success).toBe(false);
  });
});

describe('option lists', () => {
  it('trims, drops blanks and repeats (any letter case), keeps order, needs one value', () => {
    expect(UpdateDropdownOptionsSchema.parse({ values: [' Tip  line ', 'TIP LINE', '', 'Other'] })).toEqual({
      values: ['Tip line', 'Other'],
    });
    expect(UpdateDropdownOptionsSchema.safeParse({ values: [' ', ''] }).success).toBe(false);
    expect(UpdateDropdownOptionsSchema.safeParse({ values: ['a'], more: true }).success).toBe(false);
  });
});

describe('record events', () => {
  it('names subjects by type and validates the payload', () => {
    expect(recordSubject('created')).toBe('records.created');
    expect(recordSubject('restored', 'ns.records')).toBe('ns.records.restored');
    const bad = RecordEventSchema.safeParse({ id: 'not-a-uuid', type: 'created', time: 'x', actor: {}, record: {} });
    expect(bad.success).toBe(false);
  });
});

describe('when a spent budget of incident-number probes is whole again (ADR 0015)', () => {
  const now = new Date('2026-11-27T13:10:00Z');
  it('names the minute after it, in UTC, with the date when it is not today', () => {
    expect(retryTimeText(new Date('2026-11-27T14:04:20Z'), now)).toBe('14:05 UTC');
    expect(retryTimeText(new Date('2026-11-27T14:05:00Z'), now)).toBe('14:05 UTC');
    expect(retryTimeText(new Date('2026-11-27T23:59:30Z'), now)).toBe('2026-11-28 00:00 UTC');
  });

  it('says so on a refused write and on a stopped upload', () => {
    const at = new Date('2026-11-27T14:04:20Z');
    expect(incidentProbesSpentMessage(at, now)).toBe(
      'Too many incident numbers already used by other agencies. Try again after 14:05 UTC.',
    );
    expect(uploadStoppedMessage(9, at, now)).toBe(
      'Stopped at row 9: too many incident numbers already used by other agencies; the rows from 9 on were not imported. Try again after 14:05 UTC.',
    );
  });
});
