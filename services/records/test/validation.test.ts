import { type CaseRecord, ERROR_CODES } from '@nrad/contracts';
import type request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordBody, startRecords, userOf } from './harness.ts';

/**
 * Bad input on create and edit (SPEC §3, §5, §9): every refusal is a 4xx with a message naming
 * the field, stores or changes nothing, and publishes no event.
 */
const h = await startRecords();
const bps = userOf('BPS', 'Val Idator');
const fia = userOf('FIA', 'Fran Other');
type Api = Awaited<ReturnType<typeof h.as>>;
let api: Api;
let fiaApi: Api;

/** How many records are stored, and every stored document as JSON (derived fields and outboxes included). */
async function stored(): Promise<{ count: number; docs: string }> {
  const docs = await h.built.deps.records.model.find({}).sort({ _id: 1 }).lean();
  return { count: docs.length, docs: JSON.stringify(docs) };
}

/**
 * What refused requests must leave alone: the stored records and the events of the stream. Taken
 * once, then checked after each refused request (which, being refused, leaves it valid for the next).
 */
async function untouched() {
  const events = (await h.settledEvents()).length;
  const before = await stored();
  /**
   * Sends a request that must be refused with `status` and a message containing `names`, and proves
   * it stored or changed nothing and published no event.
   */
  return async function refused(
    label: string,
    send: () => PromiseLike<request.Response>,
    status: number,
    names: string,
  ) {
    const res = await send();
    expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(status);
    expect(res.body, label).toEqual({ message: expect.any(String), code: expect.any(String) });
    expect(res.body.message, label).toContain(names);
    const after = await stored();
    expect(after.count, label).toBe(before.count);
    expect(after.docs, label).toBe(before.docs);
    expect((await h.settledEvents()).length, label).toBe(events);
    return res;
  };
}

/** A date `days` from today (UTC), as YYYY-MM-DD. Two days ahead is in the future everywhere. */
const daysFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

type Body = Record<string, unknown>;
const without = (body: Body, field: string) => {
  const { [field]: _, ...rest } = body;
  return rest;
};

/** Bad bodies, each made from a valid one, and the field its message must name. */
const INVALID: Array<[string, (b: Body) => Body, string]> = [
  // Required fields (SPEC §3): left out, blank or null.
  ...['incidentNumber', 'suspectName', 'suspectDob', 'incidentDate', 'caseAmount', 'sourceOfRecord'].map(
    (f): [string, (b: Body) => Body, string] => [`${f} missing`, (b) => without(b, f), `${f}:`],
  ),
  ['internationalNexus missing', (b) => without(b, 'internationalNexus'), 'internationalNexus:'],
  ['incidentNumber blank', (b) => ({ ...b, incidentNumber: '   ' }), 'incidentNumber:'],
  ['suspectName empty', (b) => ({ ...b, suspectName: '' }), 'suspectName:'],
  ['sourceOfRecord blank', (b) => ({ ...b, sourceOfRecord: ' ' }), 'sourceOfRecord:'],
  ['suspectDob empty', (b) => ({ ...b, suspectDob: '' }), 'suspectDob:'],
  ['incidentDate null', (b) => ({ ...b, incidentDate: null }), 'incidentDate:'],
  ['caseAmount null', (b) => ({ ...b, caseAmount: null }), 'caseAmount:'],
  ['internationalNexus null', (b) => ({ ...b, internationalNexus: null }), 'internationalNexus:'],
  // Amounts: non-negative, at most 2 decimals, at most 12 digits in all.
  ...['caseAmount', 'seizedAmount', 'confiscatedAmount'].flatMap((f) =>
    ['99999999999.99', '10000000000', '1.234', '-1', '-0.01', 'abc', '1e3', '1,000.00', '0x10', -1, 1.234, true].map(
      (v): [string, (b: Body) => Body, string] => [`${f} ${JSON.stringify(v)}`, (b) => ({ ...b, [f]: v }), `${f}:`],
    ),
  ),
  // Dates: real, not in the future, date of birth before the incident.
  ...['suspectDob', 'incidentDate'].flatMap((f) =>
    ['2023-02-30', '2023-13-01', '2023-00-10', '2021-02-29', 'yesterday', '01/02/2003', '1799-12-31', 20030102].map(
      (v): [string, (b: Body) => Body, string] => [`${f} ${JSON.stringify(v)}`, (b) => ({ ...b, [f]: v }), `${f}:`],
    ),
  ),
  ['incidentDate in the future', (b) => ({ ...b, incidentDate: daysFromToday(2) }), 'incidentDate:'],
  ['suspectDob in the future', (b) => ({ ...b, suspectDob: daysFromToday(2) }), 'suspectDob:'],
  ['suspectDob on the incident date', (b) => ({ ...b, suspectDob: b.incidentDate }), 'suspectDob:'],
  [
    'suspectDob after the incident',
    (b) => ({ ...b, suspectDob: '2024-03-03', incidentDate: '2024-03-02' }),
    'suspectDob:',
  ],
  // Crime type and subtype (SPEC §9).
  ['crimeType unknown', (b) => ({ ...b, crimeType: 'Shoplifting' }), 'crimeType:'],
  ['crimeType in the wrong case', (b) => ({ ...b, crimeType: 'fraud' }), 'crimeType:'],
  ['crimeSubtype without a crimeType', (b) => ({ ...b, crimeSubtype: 'Phishing' }), 'crimeSubtype:'],
  ['crimeSubtype of another type', (b) => ({ ...b, crimeType: 'Fraud', crimeSubtype: 'Phishing' }), 'crimeSubtype:'],
  ['crimeSubtype unknown', (b) => ({ ...b, crimeType: 'Drugs', crimeSubtype: 'Jaywalking' }), 'crimeSubtype:'],
  // Country, nexus, source and NAMLC organization.
  ['country not an option', (b) => ({ ...b, internationalNexus: true, country: 'Atlantis' }), 'country:'],
  ['country without nexus', (b) => ({ ...b, internationalNexus: false, country: 'France' }), 'country:'],
  ['sourceOfRecord not an option', (b) => ({ ...b, sourceOfRecord: 'Hearsay' }), 'sourceOfRecord:'],
  ['namlcOrganization unknown', (b) => ({ ...b, namlcOrganization: 'FBI' }), 'namlcOrganization:'],
  ['namlcOrganization as a code', (b) => ({ ...b, namlcOrganization: 'BPS' }), 'namlcOrganization:'],
  // Types and lengths.
  ['internationalNexus "true"', (b) => ({ ...b, internationalNexus: 'true' }), 'internationalNexus:'],
  ['internationalNexus 1', (b) => ({ ...b, internationalNexus: 1 }), 'internationalNexus:'],
  ['cyberAssisted "no"', (b) => ({ ...b, cyberAssisted: 'no' }), 'cyberAssisted:'],
  ['suspectName a number', (b) => ({ ...b, suspectName: 42 }), 'suspectName:'],
  ['incidentNumber a list', (b) => ({ ...b, incidentNumber: ['A-1'] }), 'incidentNumber:'],
  ['incidentNumber too long', (b) => ({ ...b, incidentNumber: 'N'.repeat(65) }), 'incidentNumber:'],
  ['suspectName too long', (b) => ({ ...b, suspectName: 'n'.repeat(201) }), 'suspectName:'],
  ['additionalInfo too long', (b) => ({ ...b, additionalInfo: 'i'.repeat(10_001) }), 'additionalInfo:'],
  // Hidden characters (issue 37): controls, unpaired surrogates, direction controls, zero-width.
  [
    'suspectName with a right-to-left override',
    (b) => ({ ...b, suspectName: 'John \u202EhtimS' }),
    'suspectName: Suspect name must not contain invisible or control characters (found U+202E, a text-direction control)',
  ],
  [
    'suspectName with a line break',
    (b) => ({ ...b, suspectName: 'John\nSmith' }),
    'suspectName: Suspect name must be a single line (found U+000A, a line break)',
  ],
  [
    'incidentNumber with a NUL',
    (b) => ({ ...b, incidentNumber: `${b.incidentNumber}\u0000` }),
    'incidentNumber: Incident number must not contain invisible or control characters (found U+0000, a control character)',
  ],
  [
    'incidentNumber with a zero-width space',
    (b) => ({ ...b, incidentNumber: `BPS\u200B${b.incidentNumber}` }),
    'incidentNumber: Incident number must not contain invisible or control characters (found U+200B, a zero-width character)',
  ],
  [
    'sourceOfRecord with an isolate',
    (b) => ({ ...b, sourceOfRecord: 'Police \u2067Investigation' }),
    'sourceOfRecord: Source of record must not contain invisible or control characters (found U+2067, a text-direction control)',
  ],
  [
    'additionalInfo with an unpaired surrogate',
    (b) => ({ ...b, additionalInfo: 'Notes \uD800 here' }),
    'additionalInfo: Additional information must not contain invisible or control characters (found U+D800, an unpaired surrogate)',
  ],
  [
    'crimeSubtype with a word joiner',
    (b) => ({ ...b, crimeType: 'Cybercrime', crimeSubtype: 'Phish\u2060ing' }),
    'crimeSubtype: Crime subtype must not contain invisible or control characters (found U+2060, a zero-width character)',
  ],
];

/** The fields of a record body, each given a `$`-operator instead of a value. */
const FIELDS = [
  'incidentNumber',
  'suspectName',
  'suspectDob',
  'incidentDate',
  'caseAmount',
  'seizedAmount',
  'confiscatedAmount',
  'sourceOfRecord',
  'namlcOrganization',
  'internationalNexus',
  'cyberAssisted',
  'country',
  'crimeType',
  'crimeSubtype',
  'additionalInfo',
];
const OPS = [{ $gt: '' }, { $ne: null }, { $regex: '.*' }, { $in: ['x'] }, { $exists: true }];
/** Two operators for each field, taking turns so that each operator is tried on several fields. */
const OPERATORS: Array<[string, (b: Body) => Body, string]> = FIELDS.flatMap((f, i) =>
  [OPS[i % OPS.length], OPS[(i + 1) % OPS.length]].map((op): [string, (b: Body) => Body, string] => [
    `${f} ${JSON.stringify(op)}`,
    (b) => ({ ...b, [f]: op }),
    `${f}:`,
  ]),
);

/** Fields a client may never send (set by the service), and other unknown fields. */
const UNKNOWN = [
  'organization',
  'createdById',
  'id',
  '_id',
  'createdAt',
  'updatedAt',
  'deleted',
  'deletedAt',
  'deletedById',
  'incidentKey',
  'searchTokens',
  'totalCents',
  'outbox',
  'foo',
  '$set',
  '$where',
];
const unknownValue = (field: string): unknown =>
  field === 'organization' ? 'FIA' : field.endsWith('Id') || field === 'id' ? fia.userId : 'x';

beforeAll(async () => {
  api = await h.as(bps);
  fiaApi = await h.as(fia);
});

describe('POST /api/records refuses bad input', () => {
  it('accepts the valid body the cases start from (control)', async () => {
    const events = (await h.settledEvents()).length;
    const { count } = await stored();
    await api.post('/api/records').send(recordBody()).expect(201);
    expect((await stored()).count).toBe(count + 1);
    expect((await h.settledEvents()).length).toBe(events + 1);
  });

  it('breaking any validation rule: 400 naming the field', async () => {
    const refused = await untouched();
    for (const [label, make, names] of INVALID) {
      const res = await refused(label, () => api.post('/api/records').send(make(recordBody())), 400, names);
      expect(res.body.code, label).toBe(ERROR_CODES.validation);
    }
  });

  it('a $-operator in any field: 400 naming the field', async () => {
    const refused = await untouched();
    for (const [label, make, names] of OPERATORS) {
      await refused(label, () => api.post('/api/records').send(make(recordBody())), 400, names);
    }
  });

  it('unknown fields, organization and createdById included: 400 naming the field', async () => {
    const refused = await untouched();
    for (const field of [...UNKNOWN, 'version']) {
      await refused(
        field,
        () => api.post('/api/records').send({ ...recordBody(), [field]: unknownValue(field) }),
        400,
        `"${field}"`,
      );
    }
  });

  it('a duplicate incident number (any letter case or spacing): 409 "Incident number already exists"', async () => {
    const first = (await api.post('/api/records').send(recordBody()).expect(201)).body as CaseRecord;
    const refused = await untouched();
    for (const incidentNumber of [first.incidentNumber, ` ${first.incidentNumber.toLowerCase()}  `]) {
      const res = await refused(
        incidentNumber,
        () => api.post('/api/records').send(recordBody({ incidentNumber })),
        409,
        'Incident number already exists',
      );
      expect(res.body).toEqual({ message: 'Incident number already exists', code: ERROR_CODES.incidentNumberTaken });
    }
    // Another agency's record holds the number just as well.
    await refused(
      'other agency',
      () => fiaApi.post('/api/records').send(recordBody({ incidentNumber: first.incidentNumber })),
      409,
      'Incident number already exists',
    );
  });

  it('a body that is not a JSON object: 400; malformed JSON: 400 MALFORMED_JSON', async () => {
    const refused = await untouched();
    await refused('list', () => api.post('/api/records').send([recordBody()]), 400, 'object');
    for (const text of ['{"incidentNumber": ', '{"incidentNumber": "A-1",}', "{'a': 1}", 'null', '"text"']) {
      const res = await refused(
        text,
        () => api.post('/api/records').set('content-type', 'application/json').send(text),
        400,
        'JSON',
      );
      expect(res.body, text).toEqual({ message: 'Request body is not valid JSON', code: ERROR_CODES.malformedJson });
    }
  });

  it('a body that is not JSON: 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const refused = await untouched();
    const json = JSON.stringify(recordBody());
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await refused(type, () => api.post('/api/records').set('content-type', type).send(json), 415, 'JSON');
      expect(res.body.code, type).toBe(ERROR_CODES.unsupportedMediaType);
    }
  });

  it('a body over 100kb: 413 PAYLOAD_TOO_LARGE', async () => {
    const refused = await untouched();
    const res = await refused(
      'oversized',
      () => api.post('/api/records').send(recordBody({ additionalInfo: 'x'.repeat(120_000) })),
      413,
      'too large',
    );
    expect(res.body).toEqual({ message: expect.any(String), code: ERROR_CODES.payloadTooLarge });
    // Just under the limit the body is read, and the field's own limit answers.
    await refused(
      'under the limit',
      () => api.post('/api/records').send(recordBody({ additionalInfo: 'x'.repeat(90_000) })),
      400,
      'additionalInfo:',
    );
  });
});

describe('POST /api/records stores valid edge values as the option lists spell them', () => {
  it('takes the largest amount, today, listed subtypes and options in any letter case', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const cases: Array<[Body, Partial<CaseRecord>]> = [
      [
        { caseAmount: '9999999999.99', seizedAmount: 9999999999.99, confiscatedAmount: '0.1' },
        { caseAmount: '9999999999.99', seizedAmount: '9999999999.99', confiscatedAmount: '0.10' },
      ],
      [{ incidentDate: today }, { incidentDate: today }],
      [{ suspectDob: '2024-02-29', incidentDate: '2024-03-01' }, { suspectDob: '2024-02-29' }],
      [
        { crimeType: 'Cybercrime', crimeSubtype: 'Phishing' },
        { crimeType: 'Cybercrime', crimeSubtype: 'Phishing' },
      ],
      [
        { crimeType: 'Drugs', crimeSubtype: '' },
        { crimeType: 'Drugs', crimeSubtype: null },
      ],
      [{ internationalNexus: true, country: 'fRANCE' }, { country: 'France' }],
      [{ internationalNexus: false, country: 'bermuda' }, { country: 'Bermuda' }],
      [{ internationalNexus: false, country: '' }, { country: 'Bermuda' }],
      [{ sourceOfRecord: 'police investigation' }, { sourceOfRecord: 'Police Investigation' }],
      [{ namlcOrganization: 'Customs' }, { namlcOrganization: 'Customs' }],
      [{ namlcOrganization: '' }, { namlcOrganization: null }],
    ];
    for (const [overrides, expected] of cases) {
      const res = await api.post('/api/records').send(recordBody(overrides));
      expect(res.status, `${JSON.stringify(overrides)}: ${JSON.stringify(res.body)}`).toBe(201);
      expect(res.body).toMatchObject(expected);
      expect((await api.get(`/api/records/${res.body.id}`).expect(200)).body).toEqual(res.body);
    }
  });
});

describe('POST /api/records stores names and text in NFC (issue 37)', () => {
  it('a name typed with combining accents is stored, answered and published composed', async () => {
    const events = (await h.settledEvents()).length;
    const res = await api
      .post('/api/records')
      .send(
        recordBody({
          suspectName: 'Zoe\u0308 N\u0303u\u0301n\u0303ez',
          additionalInfo: 'Cafe\u0301 meeting.\n\tSecond line.',
        }),
      )
      .expect(201);
    expect(res.body).toMatchObject({
      suspectName: 'Zo\u00eb \u00d1\u00fa\u00f1ez',
      additionalInfo: 'Caf\u00e9 meeting.\n\tSecond line.',
    });
    const doc = await h.built.deps.records.model.findById(res.body.id).lean();
    expect(doc?.suspectName).toBe('Zo\u00eb \u00d1\u00fa\u00f1ez');
    expect((await api.get(`/api/records/${res.body.id}`).expect(200)).body).toEqual(res.body);
    const published = (await h.settledEvents()).slice(events);
    expect(published.map((e) => [e.type, e.record.suspectName])).toEqual([
      ['created', 'Zo\u00eb \u00d1\u00fa\u00f1ez'],
    ]);
  });

  it('names in any script are stored as typed', async () => {
    for (const suspectName of ['Иван Петров', '李小龍', 'محمد', 'José 😀']) {
      const res = await api.post('/api/records').send(recordBody({ suspectName })).expect(201);
      expect(res.body.suspectName, suspectName).toBe(suspectName);
    }
  });
});

describe('PUT /api/records/{id} refuses bad input and changes nothing', () => {
  let record: CaseRecord;
  let other: CaseRecord;
  beforeAll(async () => {
    record = (
      await api
        .post('/api/records')
        .send(recordBody({ suspectName: 'Edit Target' }))
        .expect(201)
    ).body;
    other = (
      await api
        .post('/api/records')
        .send(recordBody({ suspectName: 'Other Record' }))
        .expect(201)
    ).body;
  });

  /** A valid full edit of the record. */
  const edit = (overrides: Body = {}) =>
    recordBody({ incidentNumber: record.incidentNumber, suspectName: 'Edited Name', ...overrides });

  /** `untouched()` for edits of the record, which must also read back exactly as before. */
  async function untouchedRecord() {
    const refused = await untouched();
    const before = (await api.get(`/api/records/${record.id}`).expect(200)).body;
    return async (label: string, body: unknown, status: number, names: string) => {
      const res = await refused(label, () => api.put(`/api/records/${record.id}`).send(body as object), status, names);
      expect((await api.get(`/api/records/${record.id}`).expect(200)).body, label).toEqual(before);
      return res;
    };
  }

  it('breaking any validation rule: 400 naming the field', async () => {
    const putRefused = await untouchedRecord();
    for (const [label, make, names] of INVALID) await putRefused(label, make(edit()), 400, names);
  });

  it('a $-operator in any field: 400 naming the field', async () => {
    const putRefused = await untouchedRecord();
    for (const [label, make, names] of OPERATORS) await putRefused(label, make(edit()), 400, names);
  });

  it('organization, createdById or any other unknown field: 400 naming the field', async () => {
    const putRefused = await untouchedRecord();
    for (const field of UNKNOWN) {
      await putRefused(field, { ...edit(), [field]: unknownValue(field) }, 400, `"${field}"`);
    }
    // Even when the value is what is stored already.
    await putRefused('own organization', { ...edit(), organization: 'BPS' }, 400, '"organization"');
    await putRefused('own createdById', { ...edit(), createdById: bps.userId }, 400, '"createdById"');
  });

  it("another record's incident number: 409", async () => {
    const putRefused = await untouchedRecord();
    for (const incidentNumber of [other.incidentNumber, other.incidentNumber.toLowerCase()]) {
      const res = await putRefused(incidentNumber, edit({ incidentNumber }), 409, 'Incident number already exists');
      expect(res.body).toEqual({ message: 'Incident number already exists', code: ERROR_CODES.incidentNumberTaken });
    }
  });

  it('malformed JSON: 400; not JSON: 415; over 100kb: 413', async () => {
    const before = (await api.get(`/api/records/${record.id}`).expect(200)).body;
    const refused = await untouched();
    const putRefused = await untouchedRecord();
    const malformed = await refused(
      'malformed',
      () => api.put(`/api/records/${record.id}`).set('content-type', 'application/json').send('{"suspectName": "x"'),
      400,
      'JSON',
    );
    expect(malformed.body.code).toBe(ERROR_CODES.malformedJson);
    const text = await refused(
      'text/plain',
      () => api.put(`/api/records/${record.id}`).set('content-type', 'text/plain').send(JSON.stringify(edit())),
      415,
      'JSON',
    );
    expect(text.body.code).toBe(ERROR_CODES.unsupportedMediaType);
    const big = await putRefused('oversized', edit({ additionalInfo: 'x'.repeat(120_000) }), 413, 'too large');
    expect(big.body.code).toBe(ERROR_CODES.payloadTooLarge);
    expect((await api.get(`/api/records/${record.id}`).expect(200)).body).toEqual(before);
  });

  it('a valid edit still goes through afterwards (control)', async () => {
    const events = (await h.settledEvents()).length;
    const res = await api.put(`/api/records/${record.id}`).send(edit()).expect(200);
    expect(res.body).toMatchObject({ suspectName: 'Edited Name', version: record.version + 1, organization: 'BPS' });
    expect((await h.settledEvents()).length).toBe(events + 1);
  });
});

describe('ids', () => {
  const BAD_IDS = [
    'abc',
    '123',
    'zzzzzzzzzzzzzzzzzzzzzzzz',
    '0123456789abcdef0123456',
    '0123456789abcdef012345678',
    '%24ne',
    '%7B%22%24ne%22%3Anull%7D',
    '0123456789abcdef0123456%20',
  ];
  let mine: CaseRecord;
  beforeAll(async () => {
    mine = (await api.post('/api/records').send(recordBody()).expect(201)).body;
  });

  it('a non-ObjectId id on GET, PUT, DELETE and restore: 400 naming the id', async () => {
    const refused = await untouched();
    for (const bad of BAD_IDS) {
      const path = `/api/records/${bad}`;
      const valid = recordBody({ incidentNumber: mine.incidentNumber });
      for (const [label, send] of [
        [`GET ${bad}`, () => api.get(path)],
        [`PUT ${bad}`, () => api.put(path).send(valid)],
        [`DELETE ${bad}`, () => api.delete(path)],
        [`restore ${bad}`, () => api.post(`${path}/restore`)],
      ] as Array<[string, () => PromiseLike<request.Response>]>) {
        const res = await refused(label, send, 400, 'id:');
        expect(res.body.code, label).toBe(ERROR_CODES.validation);
      }
    }
    expect((await api.get(`/api/records/${mine.id}`).expect(200)).body).toEqual(mine);
  });

  it("another agency's record answers 404 exactly as a missing one, and is left alone", async () => {
    const theirs = (await fiaApi.post('/api/records').send(recordBody()).expect(201)).body as CaseRecord;
    const theirsGone = (await fiaApi.post('/api/records').send(recordBody()).expect(201)).body as CaseRecord;
    await fiaApi.delete(`/api/records/${theirsGone.id}`).expect(200);
    const goneBefore = (await fiaApi.get('/api/records/deleted').expect(200)).body;
    const missing = 'aaaaaaaaaaaaaaaaaaaaaaaa';
    const refused = await untouched();
    const requests: Array<[string, (id: string) => PromiseLike<request.Response>]> = [
      ['GET', (id) => api.get(`/api/records/${id}`)],
      ['PUT', (id) => api.put(`/api/records/${id}`).send(recordBody({ incidentNumber: theirs.incidentNumber }))],
      ['PUT with version', (id) => api.put(`/api/records/${id}`).send({ ...recordBody(), version: 1 })],
      ['DELETE', (id) => api.delete(`/api/records/${id}`)],
      ['restore', (id) => api.post(`/api/records/${id}/restore`)],
    ];
    for (const [label, send] of requests) {
      const absent = await refused(`${label} missing`, () => send(missing), 404, 'not found');
      expect(absent.body, label).toEqual({ message: 'Record not found', code: ERROR_CODES.notFound });
      for (const id of [theirs.id, theirsGone.id]) {
        const res = await refused(`${label} other agency`, () => send(id), 404, 'not found');
        expect(res.body, label).toEqual(absent.body);
      }
    }
    expect((await fiaApi.get(`/api/records/${theirs.id}`).expect(200)).body).toEqual(theirs);
    expect((await fiaApi.get('/api/records/deleted').expect(200)).body).toEqual(goneBefore);
  });
});
