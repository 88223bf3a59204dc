import { describe, expect, it } from 'vitest';
import {
  ContactAdminRequestSchema,
  centsToMoney,
  DateOnlySchema,
  formatValidationError,
  LoginRequestSchema,
  MoneySchema,
  moneyToCents,
  RecordInputSchema,
  RegisterRequestSchema,
} from './index.ts';

const messageOf = (r: { success: boolean; error?: import('zod').ZodError }) =>
  r.error ? formatValidationError(r.error) : '';

describe('auth payloads', () => {
  it('login uses the texts of SPEC §5', () => {
    expect(messageOf(LoginRequestSchema.safeParse({ email: 'nope', password: 'x' }))).toBe('email: Invalid email');
    expect(messageOf(LoginRequestSchema.safeParse({ email: 'a@b.co', password: '' }))).toBe(
      'password: String must contain at least 1 character(s)',
    );
  });

  it('registration accepts the three agencies and refuses ADMIN, unknown organizations and short passwords', () => {
    const good = { name: ' Ann ', email: 'ann@bps.bm', password: 'long enough', role: 'Analyst', organization: 'BPS' };
    expect(RegisterRequestSchema.parse(good)).toMatchObject({ name: 'Ann', organization: 'BPS' });
    for (const organization of ['ADMIN', 'XYZ', 'bps']) {
      expect(messageOf(RegisterRequestSchema.safeParse({ ...good, organization }))).toBe(
        'organization: Organization must be one of BPS, FIA, CUS',
      );
    }
    expect(messageOf(RegisterRequestSchema.safeParse({ ...good, password: 'short' }))).toBe(
      'password: Password must be at least 8 characters',
    );
  });

  it('refuses operator objects and unknown fields', () => {
    const r = LoginRequestSchema.safeParse({ email: { $gt: '' }, password: 'x', admin: true });
    expect(r.success).toBe(false);
    const msg = messageOf(r);
    expect(msg).toContain('email:');
    expect(msg).toContain('admin');
  });

  it('contact needs a trimmed subject and message', () => {
    expect(messageOf(ContactAdminRequestSchema.safeParse({ subject: '  ', message: 'x' }))).toBe(
      'subject: Please fill in both subject and message fields.',
    );
  });
});

describe('money', () => {
  it('canonicalizes amounts and keeps to decimal(12,2)', () => {
    expect(MoneySchema.parse('1234.5')).toBe('1234.50');
    expect(MoneySchema.parse(1234.5)).toBe('1234.50');
    expect(MoneySchema.parse('0012')).toBe('12.00');
    expect(MoneySchema.parse('')).toBe('0.00');
    expect(MoneySchema.parse('9999999999.99')).toBe('9999999999.99');
    for (const bad of ['-1', '1.234', '12345678901', 'abc', '1e5', -0.5, 0.001, Number.NaN, {}]) {
      expect(MoneySchema.safeParse(bad).success, String(bad)).toBe(false);
    }
  });

  it('converts to and from integer cents exactly', () => {
    expect(moneyToCents('1234.50')).toBe(123450);
    expect(moneyToCents('9999999999.99')).toBe(999999999999);
    expect(centsToMoney(123450)).toBe('1234.50');
    expect(centsToMoney(5)).toBe('0.05');
    expect(() => centsToMoney(-1)).toThrow();
    // Sums beyond a safe integer stay exact as bigints.
    expect(centsToMoney(12_345_678_901_234_567_890n)).toBe('123456789012345678.90');
    expect(centsToMoney(7n)).toBe('0.07');
    expect(() => centsToMoney(-1n)).toThrow();
  });
});

describe('dates', () => {
  it('keep the calendar date as written, whatever the time zone', () => {
    expect(DateOnlySchema.parse('1980-05-01')).toBe('1980-05-01');
    expect(DateOnlySchema.parse('1980-05-01T00:00:00.000Z')).toBe('1980-05-01');
    expect(DateOnlySchema.parse('1980-05-01T23:30:00-04:00')).toBe('1980-05-01');
    for (const bad of ['2023-02-30', '1980-13-01', '01/05/1980', 'yesterday', '1700-01-01']) {
      expect(DateOnlySchema.safeParse(bad).success, bad).toBe(false);
    }
  });
});

describe('record input', () => {
  const base = {
    incidentNumber: 'BPS-2024-001',
    suspectName: 'John Smith',
    suspectDob: '1980-05-01',
    incidentDate: '2024-03-10',
    caseAmount: '1000',
    sourceOfRecord: 'Police Investigation',
    internationalNexus: false,
  };

  it('applies the defaults of SPEC §3', () => {
    expect(RecordInputSchema.parse(base)).toMatchObject({
      caseAmount: '1000.00',
      seizedAmount: '0.00',
      confiscatedAmount: '0.00',
      cyberAssisted: false,
      country: 'Bermuda',
    });
  });

  it('enforces the cross-field rules', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ suspectDob: '2025-01-01', incidentDate: '2024-01-01' }, 'suspectDob: must be before the incident date'],
      [{ incidentDate: '2999-01-01' }, 'incidentDate: must not be in the future'],
      [{ crimeSubtype: 'Theft' }, 'crimeSubtype: needs a crime type'],
      [{ crimeType: 'Fraud', crimeSubtype: 'Theft' }, 'crimeSubtype: "Theft" is not a subtype of Fraud'],
      [{ country: 'France' }, 'country: must be Bermuda when there is no international nexus'],
      [{ organization: 'FIA' }, 'Unrecognized key: "organization"'],
      [{ namlcOrganization: 'Interpol' }, 'namlcOrganization: NAMLC organization must be one of'],
    ];
    for (const [patch, expected] of cases) {
      expect(messageOf(RecordInputSchema.safeParse({ ...base, ...patch }))).toContain(expected);
    }
    expect(RecordInputSchema.parse({ ...base, internationalNexus: true, country: 'France' }).country).toBe('France');
    expect(
      RecordInputSchema.parse({ ...base, crimeType: 'Acquisitive Crimes', crimeSubtype: 'Theft' }).crimeSubtype,
    ).toBe('Theft');
    expect(RecordInputSchema.parse({ ...base, crimeType: '', crimeSubtype: '' }).crimeType).toBeUndefined();
  });
});
