import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CheckMatchesSchema,
  ContactAdminRequestSchema,
  codePointText,
  findHiddenCharacter,
  formatValidationError,
  GenerateReportSchema,
  RecordInputSchema,
  RecordSearchSchema,
  RecordUpdateSchema,
  RegisterRequestSchema,
  RejectLinkSchema,
  safeText,
  UpdateDropdownOptionsSchema,
  UpdateNameRequestSchema,
} from './index.ts';

const messageOf = (r: { success: boolean; error?: z.ZodError }) => (r.error ? formatValidationError(r.error) : '');

const hidden = (codePoint: number, what: string) =>
  `must not contain invisible or control characters (found ${codePointText(codePoint)}, ${what})`;

/** Each refused character (issue 37) and how the message names it. */
const REFUSED: Array<[string, string]> = [
  // C0 and C1 controls, DEL.
  ...[0x00, 0x01, 0x07, 0x08, 0x0b, 0x0c, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9f].map((c): [string, string] => [
    String.fromCharCode(c),
    hidden(c, 'a control character'),
  ]),
  // Unpaired surrogates, high and low.
  ['\uD800', hidden(0xd800, 'an unpaired surrogate')],
  ['\uDBFF', hidden(0xdbff, 'an unpaired surrogate')],
  ['\uDC00', hidden(0xdc00, 'an unpaired surrogate')],
  ['\uDFFF', hidden(0xdfff, 'an unpaired surrogate')],
  // Bidi embeddings, overrides, isolates and marks.
  ...[0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c].map(
    (c): [string, string] => [String.fromCharCode(c), hidden(c, 'a text-direction control')],
  ),
  // Zero-width characters.
  ...[0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2064, 0xfeff, 0x180e].map((c): [string, string] => [
    String.fromCharCode(c),
    hidden(c, 'a zero-width character'),
  ]),
];

const record = {
  incidentNumber: 'BPS-2024-001',
  suspectName: 'John Smith',
  suspectDob: '1980-05-01',
  incidentDate: '2024-03-10',
  caseAmount: '1000',
  sourceOfRecord: 'Police Investigation',
  internationalNexus: false,
};

const NAMES = [
  'Zoë Ñúñez',
  'Иван Петров',
  '李小龍',
  'محمد',
  'Ngozi Okonkwo-Adébáyọ̀',
  "D'Arcy O'Neil",
  'José 😀',
  '𠜎𠜱 Lee',
];

describe('findHiddenCharacter', () => {
  it('finds each refused character, in the middle, at either end or alone', () => {
    for (const [ch, message] of REFUSED) {
      const codePoint = ch.charCodeAt(0);
      for (const text of [`Ann${ch}Lee`, `${ch}Ann`, `Ann${ch}`, ch]) {
        const found = findHiddenCharacter(text);
        expect(found?.codePoint, `${codePointText(codePoint)} in ${JSON.stringify(text)}`).toBe(codePoint);
        expect(findHiddenCharacter(text, true)?.codePoint, 'multi-line alike').toBe(codePoint);
      }
      expect(message).toMatch(/^must not contain invisible or control characters \(found U\+[0-9A-F]{4}, /);
    }
  });

  it('names the first one found', () => {
    expect(findHiddenCharacter('a\u200Bb\u202Ec')).toEqual({ codePoint: 0x200b, kind: 'zero-width' });
  });

  it('lets every script, accents and characters outside the BMP through (emoji, surrogate pairs)', () => {
    for (const text of [...NAMES, '👍🏽', '🇧🇲', 'e\u0301', 'Ⅻ', '', ' ']) {
      expect(findHiddenCharacter(text), text).toBeUndefined();
    }
  });

  it('keeps line feeds, CR LF, tabs and U+2028/U+2029 in multi-line text only; never a lone CR', () => {
    for (const text of ['a\nb', 'a\r\nb', 'a\tb', 'a\n\n\r\n\tb', 'a\u2028b', 'a\u2029b']) {
      expect(findHiddenCharacter(text, true), JSON.stringify(text)).toBeUndefined();
      expect(findHiddenCharacter(text), JSON.stringify(text)).toBeDefined();
    }
    expect(findHiddenCharacter('a\nb')).toEqual({ codePoint: 0x0a, kind: 'line break' });
    expect(findHiddenCharacter('a\tb')).toEqual({ codePoint: 0x09, kind: 'tab' });
    expect(findHiddenCharacter('a\rb', true)).toEqual({ codePoint: 0x0d, kind: 'control' });
    expect(findHiddenCharacter('a\n\rb', true)).toEqual({ codePoint: 0x0d, kind: 'control' });
  });
});

describe('safeText', () => {
  const Name = safeText(z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(5, 'too long'), {
    label: 'Name',
  });

  it('stays a string schema with its own checks, and stores NFC', () => {
    expect(Name).toBeInstanceOf(z.ZodString);
    expect(Name.parse('  e\u0301  ')).toBe('\u00e9');
    // The limit counts the characters stored: five decomposed letters are five characters.
    expect(Name.parse('e\u0301'.repeat(5))).toBe('\u00e9'.repeat(5));
    expect(z.toJSONSchema(Name, { io: 'input' })).toMatchObject({ type: 'string', minLength: 1, maxLength: 5 });
  });

  it("puts the field's own messages first", () => {
    expect(messageOf(Name.safeParse(42))).toBe('Name is required');
    expect(messageOf(Name.safeParse('  '))).toBe('Name is required');
    expect(Name.safeParse('abcdef\u202E').error?.issues.map((i) => i.message)).toEqual([
      'too long',
      'Name must not contain invisible or control characters (found U+202E, a text-direction control)',
    ]);
  });

  it('starts the message with "must" without a label', () => {
    expect(messageOf(safeText(z.string()).safeParse('a\u200Db'))).toBe(
      'must not contain invisible or control characters (found U+200D, a zero-width character)',
    );
  });
});

describe('record text fields', () => {
  it('refuse each hidden character with a message naming it and the field', () => {
    for (const [ch, message] of REFUSED) {
      for (const [field, label] of [
        ['suspectName', 'Suspect name'],
        ['incidentNumber', 'Incident number'],
        ['sourceOfRecord', 'Source of record'],
        ['additionalInfo', 'Additional information'],
      ] as const) {
        const r = RecordInputSchema.safeParse({ ...record, [field]: `Ann${ch}Lee` });
        expect(messageOf(r), `${field} ${codePointText(ch.charCodeAt(0))}`).toBe(`${field}: ${label} ${message}`);
      }
    }
    expect(messageOf(RecordInputSchema.safeParse({ ...record, suspectName: 'Ann\u202ELee' }))).toBe(
      'suspectName: Suspect name must not contain invisible or control characters (found U+202E, a text-direction control)',
    );
    for (const [field, value] of [
      ['crimeSubtype', 'Ph\u200Bishing'],
      ['country', 'Fr\u0000ance'],
    ] as const) {
      expect(messageOf(RecordInputSchema.safeParse({ ...record, [field]: value })), field).toContain(
        `${field}: ${field === 'country' ? 'Country' : 'Crime subtype'} must not contain invisible or control characters`,
      );
    }
    expect(messageOf(RecordUpdateSchema.safeParse({ ...record, suspectName: 'Ann\u2066Lee' }))).toContain(
      'suspectName: Suspect name must not contain',
    );
  });

  it('a single-line field takes no line break or tab inside; a surrounding one is trimmed as before', () => {
    expect(messageOf(RecordInputSchema.safeParse({ ...record, suspectName: 'Ann\nLee' }))).toBe(
      'suspectName: Suspect name must be a single line (found U+000A, a line break)',
    );
    expect(messageOf(RecordInputSchema.safeParse({ ...record, incidentNumber: 'A\r\n1' }))).toBe(
      'incidentNumber: Incident number must be a single line (found U+000D, a line break)',
    );
    expect(messageOf(RecordInputSchema.safeParse({ ...record, suspectName: 'Ann\tLee' }))).toBe(
      'suspectName: Suspect name must not contain invisible or control characters (found U+0009, a tab)',
    );
    expect(RecordInputSchema.parse({ ...record, suspectName: '\tAnn Lee\n' }).suspectName).toBe('Ann Lee');
  });

  it('additional information keeps its line breaks and tabs', () => {
    const additionalInfo = 'Wire transfers:\n\t- two accounts\r\n\t- one more\n\nFollow-up pending.';
    expect(RecordInputSchema.parse({ ...record, additionalInfo }).additionalInfo).toBe(additionalInfo);
    expect(messageOf(RecordInputSchema.safeParse({ ...record, additionalInfo: 'a\rb' }))).toBe(
      'additionalInfo: Additional information must not contain invisible or control characters (found U+000D, a control character)',
    );
  });

  it('are stored NFC, and every script is accepted as typed', () => {
    expect(RecordInputSchema.parse({ ...record, suspectName: 'Zoe\u0308 N\u0303u\u0301n\u0303ez' }).suspectName).toBe(
      'Zoë Ñúñez',
    );
    expect(RecordInputSchema.parse({ ...record, suspectName: 'e\u0301' }).suspectName).toBe('\u00e9');
    const nfd = RecordInputSchema.parse({
      ...record,
      incidentNumber: 'CAFE\u0301-1',
      additionalInfo: 'Cafe\u0301\nsecond line',
    });
    expect(nfd).toMatchObject({ incidentNumber: 'CAFÉ-1', additionalInfo: 'Café\nsecond line' });
    for (const suspectName of NAMES) {
      expect(RecordInputSchema.parse({ ...record, suspectName }).suspectName, suspectName).toBe(suspectName);
    }
  });

  it('keep the messages they had', () => {
    expect(messageOf(RecordInputSchema.safeParse({ ...record, suspectName: '' }))).toBe(
      'suspectName: Suspect name is required',
    );
    expect(messageOf(RecordInputSchema.safeParse({ ...record, suspectName: 'n'.repeat(201) }))).toBe(
      'suspectName: Suspect name must be at most 200 characters',
    );
  });
});

describe('search text', () => {
  it('refuses hidden characters in each text filter and searches NFC', () => {
    for (const [field, label] of [
      ['freeText', 'Free text'],
      ['incidentNumber', 'Incident number'],
      ['suspectName', 'Suspect name'],
      ['country', 'Country'],
    ] as const) {
      expect(messageOf(RecordSearchSchema.safeParse({ [field]: 'Ann\u202ELee' })), field).toBe(
        `${field}: ${label} must not contain invisible or control characters (found U+202E, a text-direction control)`,
      );
    }
    expect(RecordSearchSchema.parse({ freeText: 'Jose\u0301', suspectName: 'Иван' })).toEqual({
      freeText: 'José',
      suspectName: 'Иван',
    });
  });
});

describe('users, contact, links, reports and option lists', () => {
  const registration = {
    name: 'Ann',
    email: 'ann@bps.bm',
    password: 'long enough',
    role: 'Analyst',
    organization: 'BPS',
  };

  it('a name at registration or on a name change: refused with a hidden character, stored NFC', () => {
    expect(messageOf(RegisterRequestSchema.safeParse({ ...registration, name: 'Ann\u202E' }))).toBe(
      'name: Name must not contain invisible or control characters (found U+202E, a text-direction control)',
    );
    expect(messageOf(RegisterRequestSchema.safeParse({ ...registration, role: 'Ana\u0000lyst' }))).toBe(
      'role: Role must not contain invisible or control characters (found U+0000, a control character)',
    );
    expect(messageOf(UpdateNameRequestSchema.safeParse({ name: 'Ann\u200BLee' }))).toBe(
      'name: Name must not contain invisible or control characters (found U+200B, a zero-width character)',
    );
    expect(messageOf(UpdateNameRequestSchema.safeParse({ name: 'Ann\nLee' }))).toBe(
      'name: Name must be a single line (found U+000A, a line break)',
    );
    expect(RegisterRequestSchema.parse({ ...registration, name: 'Zoe\u0308' }).name).toBe('Zoë');
    for (const name of NAMES) expect(UpdateNameRequestSchema.parse({ name }).name).toBe(name);
    // SPEC's messages are unchanged.
    expect(messageOf(RegisterRequestSchema.safeParse({ ...registration, name: ' ' }))).toBe('name: Name is required');
  });

  it('contact: a one-line subject and a multi-line message', () => {
    expect(ContactAdminRequestSchema.parse({ subject: 'Hi', message: 'Line 1\r\nLine 2\n\tend' }).message).toBe(
      'Line 1\r\nLine 2\n\tend',
    );
    expect(messageOf(ContactAdminRequestSchema.safeParse({ subject: 'Hi\nthere', message: 'x' }))).toBe(
      'subject: Subject must be a single line (found U+000A, a line break)',
    );
    expect(messageOf(ContactAdminRequestSchema.safeParse({ subject: 'Hi', message: 'x\u2067y' }))).toBe(
      'message: Message must not contain invisible or control characters (found U+2067, a text-direction control)',
    );
    expect(messageOf(ContactAdminRequestSchema.safeParse({ subject: '  ', message: 'x\u2067' }))).toMatch(
      /^subject: Please fill in both subject and message fields\./,
    );
  });

  it('the NAMLC check, a link rejection, report parameters and option lists', () => {
    const check = {
      namlcOrganization: 'Customs',
      suspectName: 'Ann\u202ELee',
      suspectDob: '1980-01-01',
      incidentDate: '2020-01-01',
      caseAmount: '1',
    };
    expect(messageOf(CheckMatchesSchema.safeParse(check))).toBe(
      'suspectName: must not contain invisible or control characters (found U+202E, a text-direction control)',
    );
    expect(CheckMatchesSchema.parse({ ...check, suspectName: 'Zoe\u0308' }).suspectName).toBe('Zoë');
    expect(messageOf(RejectLinkSchema.safeParse({ reason: 'twins\u200D' }))).toBe(
      'reason: must not contain invisible or control characters (found U+200D, a zero-width character)',
    );
    expect(RejectLinkSchema.parse({ reason: 'Different people:\nsee file' }).reason).toBe(
      'Different people:\nsee file',
    );
    expect(messageOf(GenerateReportSchema.safeParse({ parameters: 'fraud\u0085' }))).toBe(
      'parameters: Parameters must not contain invisible or control characters (found U+0085, a control character)',
    );
    expect(GenerateReportSchema.parse({ parameters: ' Fraud,\nby month ' }).parameters).toBe('Fraud,\nby month');
    expect(messageOf(UpdateDropdownOptionsSchema.safeParse({ values: ['Tip line', 'Other\u202E'] }))).toBe(
      'values.1: each value must not contain invisible or control characters (found U+202E, a text-direction control)',
    );
    expect(UpdateDropdownOptionsSchema.parse({ values: ['Cafe\u0301 tip', 'CAFÉ TIP', 'a\tb'] }).values).toEqual([
      'Café tip',
      'a b',
    ]);
  });
});
