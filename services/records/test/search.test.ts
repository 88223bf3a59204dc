import { NEXT_CURSOR_HEADER, TOTAL_COUNT_HEADER, type UserIdentity } from '@nrad/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordBody, startRecords, userOf } from './harness.ts';

/**
 * `POST /api/records/search` (SPEC §3 "Search filter", §7) against a small purpose-built set of BPS
 * records. This file's namespace is its own database, and no other test here creates BPS records,
 * so every BPS search result can be compared exactly, ids in order (newest first).
 */
const h = await startRecords();
const bps = userOf('BPS', 'Sam Searcher');
const fia = userOf('FIA', 'Fay Intel');
const cus = userOf('CUS', 'Cass Customs');
const admin = userOf('ADMIN', 'Ada Admin');

/**
 * The BPS fixture, created in this order (so newest first is the reverse). The comment under each
 * lists its free-text words (incident number, suspect name, additional information, source, crime
 * type and subtype, country), which the free-text expectations below are worked out from.
 */
const FIXTURE = {
  jose: {
    incidentNumber: 'BPS-2024-0001',
    suspectName: 'José Müller',
    suspectDob: '1975-01-10',
    incidentDate: '2023-06-15',
    caseAmount: '100',
    seizedAmount: '20.50',
    confiscatedAmount: '0.25',
    sourceOfRecord: 'Police Investigation',
    internationalNexus: true,
    country: 'Germany',
    crimeType: 'Fraud',
    crimeSubtype: 'Insurance Fraud',
    cyberAssisted: false,
    additionalInfo: 'Quillfeather shipment via harbour',
  },
  // bps 2024 0001 jose muller quillfeather shipment via harbour police investigation fraud insurance germany
  anna: {
    incidentNumber: 'BPS-2024-0002',
    suspectName: 'Anna Maria Okonkwo',
    suspectDob: '1980-02-20',
    incidentDate: '2023-06-15',
    caseAmount: '120.75',
    seizedAmount: '10',
    confiscatedAmount: '0',
    sourceOfRecord: 'Customs Declaration',
    internationalNexus: false,
    country: 'Bermuda',
    crimeType: 'Money Laundering',
    crimeSubtype: 'Smurfing/Structuring',
    cyberAssisted: true,
    additionalInfo: 'Zanzibarite ledger entries',
  },
  // bps 2024 0002 anna maria okonkwo zanzibarite ledger entries customs declaration money laundering
  // smurfing structuring bermuda
  li: {
    incidentNumber: 'FIA-REF-77',
    suspectName: 'Li Wu Chen',
    suspectDob: '1990-03-03',
    incidentDate: '2024-01-05',
    caseAmount: '5000',
    seizedAmount: '0',
    confiscatedAmount: '0',
    sourceOfRecord: 'Suspicious Activity Report (SAR)',
    internationalNexus: true,
    country: 'China',
    crimeType: 'Cybercrime',
    crimeSubtype: 'Phishing',
    cyberAssisted: true,
  },
  // fia ref 77 li wu chen suspicious activity report sar cybercrime phishing china
  smith: {
    incidentNumber: 'BPS-2025-0100',
    suspectName: 'John Smith',
    suspectDob: '1980-02-20',
    incidentDate: '2024-01-05',
    caseAmount: '20.50',
    seizedAmount: '99',
    confiscatedAmount: '0.25',
    sourceOfRecord: 'Informant / Tip-off',
    internationalNexus: false,
    country: 'Bermuda',
    cyberAssisted: false,
    additionalInfo: 'Met at pier 7 with cash',
  },
  // bps 2025 0100 john smith met at pier 7 with cash informant tip off bermuda
  liu: {
    incidentNumber: 'CUS/2023/55',
    suspectName: 'Liu Wen',
    suspectDob: '1985-07-07',
    incidentDate: '2022-12-01',
    caseAmount: '0',
    seizedAmount: '0',
    confiscatedAmount: '0',
    sourceOfRecord: 'Customs Inspection',
    internationalNexus: true,
    country: 'Jamaica',
    crimeType: 'Drugs',
    crimeSubtype: 'Trafficking',
    cyberAssisted: false,
    additionalInfo: 'Quillfeathers crate',
  },
  // cus 2023 55 liu wen quillfeathers crate customs inspection drugs trafficking jamaica
  meta: {
    incidentNumber: 'A.B*C(1)|^$',
    suspectName: 'Mark Ostrowski',
    suspectDob: '1970-12-31',
    incidentDate: '2021-01-01',
    caseAmount: '1',
    seizedAmount: '0',
    confiscatedAmount: '0',
    sourceOfRecord: 'Other',
    internationalNexus: true,
    country: 'France',
    crimeType: 'Piracy',
    crimeSubtype: 'Digital',
    cyberAssisted: false,
  },
  // a b c 1 mark ostrowski other piracy digital france
  axb: {
    incidentNumber: 'AXB-9',
    suspectName: 'Ola Nordmann',
    suspectDob: '1960-01-01',
    incidentDate: '2020-05-05',
    caseAmount: '42',
    seizedAmount: '0',
    confiscatedAmount: '0',
    sourceOfRecord: 'Regulatory Referral',
    internationalNexus: true,
    country: 'Norway',
    cyberAssisted: false,
  },
  // axb 9 ola nordmann regulatory referral norway
} as const;
type Key = keyof typeof FIXTURE;
const ORDER = Object.keys(FIXTURE) as Key[];
const id = {} as Record<Key, string>;

/** The ids of these fixture records, newest first (the order every search answers in). */
function ids(...keys: Key[]): string[] {
  return [...keys].sort((a, b) => ORDER.indexOf(b) - ORDER.indexOf(a)).map((k) => id[k]);
}
const ALL = () => ids(...ORDER);

type Api = Awaited<ReturnType<typeof h.as>>;
let api: Api;

async function searchAs(who: Api, body: unknown, query = '') {
  const res = await who.post(`/api/records/search${query}`).send(body as object);
  expect(res.status, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBe(200);
  return res;
}

/** The ids a BPS search answers with, in order. */
async function search(body: unknown, query = ''): Promise<string[]> {
  return (await searchAs(api, body, query)).body.map((r: { id: string }) => r.id);
}

async function create(user: UserIdentity, overrides: Record<string, unknown>): Promise<string> {
  const res = await (await h.as(user)).post('/api/records').send(recordBody(overrides));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

beforeAll(async () => {
  api = await h.as(bps);
  for (const key of ORDER) id[key] = await create(bps, FIXTURE[key]);
});

describe('no filter', () => {
  it("answers every active record of the caller's agency, newest first, for {} or no body", async () => {
    const all = [id.axb, id.meta, id.liu, id.smith, id.li, id.anna, id.jose];
    expect(ALL()).toEqual(all);
    expect(await search({})).toEqual(all);
    const res = await api.post('/api/records/search').expect(200);
    expect(res.body.map((r: { id: string }) => r.id)).toEqual(all);
    expect(res.headers[TOTAL_COUNT_HEADER]).toBe('7');
  });

  it('answers full records', async () => {
    const [first] = (await searchAs(api, { incidentNumber: 'BPS-2024-0001' })).body;
    expect(first).toMatchObject({
      id: id.jose,
      incidentNumber: 'BPS-2024-0001',
      suspectName: 'José Müller',
      suspectDob: '1975-01-10',
      caseAmount: '100.00',
      seizedAmount: '20.50',
      confiscatedAmount: '0.25',
      organization: 'BPS',
      deleted: false,
    });
  });

  it('treats blank strings and nulls as not given', async () => {
    const blanks = {
      freeText: '',
      incidentNumber: '   ',
      suspectName: '',
      suspectDob: '',
      incidentDate: ' ',
      amount: '',
      caseAmount: '',
      seizedAmount: ' ',
      confiscatedAmount: '',
      country: '',
      cyberAssisted: '',
      crimeType: '',
    };
    expect(await search(blanks)).toEqual(ALL());
    const nulls = Object.fromEntries(Object.keys(blanks).map((k) => [k, null]));
    expect(await search(nulls)).toEqual(ALL());
    // A blank filter beside a real one leaves the real one alone.
    expect(await search({ ...blanks, country: 'Germany' })).toEqual(ids('jose'));
    expect(await search({ ...nulls, crimeType: 'Drugs' })).toEqual(ids('liu'));
  });
});

describe('freeText', () => {
  it('matches words of the incident number', async () => {
    expect(await search({ freeText: 'FIA-REF-77' })).toEqual(ids('li'));
    expect(await search({ freeText: '0100' })).toEqual(ids('smith'));
    expect(await search({ freeText: 'bps' })).toEqual(ids('jose', 'anna', 'smith'));
    expect(await search({ freeText: '2024 0002' })).toEqual(ids('anna'));
  });

  it('matches words of the suspect name', async () => {
    expect(await search({ freeText: 'okonkwo' })).toEqual(ids('anna'));
    expect(await search({ freeText: 'Ostrowski' })).toEqual(ids('meta'));
  });

  it('matches words of the additional information', async () => {
    expect(await search({ freeText: 'zanzibarite' })).toEqual(ids('anna'));
    expect(await search({ freeText: 'ledger entries' })).toEqual(ids('anna'));
    expect(await search({ freeText: 'pier cash' })).toEqual(ids('smith'));
  });

  it('matches words of the source of record', async () => {
    expect(await search({ freeText: 'suspicious activity' })).toEqual(ids('li'));
    expect(await search({ freeText: 'declaration' })).toEqual(ids('anna'));
    expect(await search({ freeText: 'customs' })).toEqual(ids('anna', 'liu'));
    expect(await search({ freeText: 'informant' })).toEqual(ids('smith'));
  });

  it('matches words of the crime type and subtype', async () => {
    expect(await search({ freeText: 'laundering' })).toEqual(ids('anna'));
    expect(await search({ freeText: 'cybercrime' })).toEqual(ids('li'));
    expect(await search({ freeText: 'fraud' })).toEqual(ids('jose'));
    expect(await search({ freeText: 'smurfing' })).toEqual(ids('anna'));
    expect(await search({ freeText: 'phishing' })).toEqual(ids('li'));
    expect(await search({ freeText: 'insurance' })).toEqual(ids('jose'));
    expect(await search({ freeText: 'piracy digital' })).toEqual(ids('meta'));
  });

  it('matches words of the country', async () => {
    expect(await search({ freeText: 'jamaica' })).toEqual(ids('liu'));
    expect(await search({ freeText: 'germany' })).toEqual(ids('jose'));
    expect(await search({ freeText: 'bermuda' })).toEqual(ids('anna', 'smith'));
  });

  it('ignores letter case and accents on both sides', async () => {
    expect(await search({ freeText: 'jose muller' })).toEqual(ids('jose'));
    expect(await search({ freeText: 'MÜLL' })).toEqual(ids('jose'));
    expect(await search({ freeText: 'JOSÉ' })).toEqual(ids('jose'));
    expect(await search({ freeText: 'Okonkwö' })).toEqual(ids('anna'));
    expect(await search({ freeText: 'GERMANY' })).toEqual(ids('jose'));
  });

  it('needs every word to match (in any field)', async () => {
    expect(await search({ freeText: 'jose okonkwo' })).toEqual([]);
    expect(await search({ freeText: 'customs jamaica' })).toEqual(ids('liu'));
    expect(await search({ freeText: 'customs bermuda' })).toEqual(ids('anna'));
    expect(await search({ freeText: 'bps bermuda cash' })).toEqual(ids('smith'));
    expect(await search({ freeText: 'jose nonexistentword' })).toEqual([]);
  });

  it('matches word prefixes, not infixes', async () => {
    expect(await search({ freeText: 'quill' })).toEqual(ids('jose', 'liu'));
    expect(await search({ freeText: 'quillfeather' })).toEqual(ids('jose', 'liu'));
    expect(await search({ freeText: 'quillfeathers' })).toEqual(ids('liu'));
    expect(await search({ freeText: 'zanz led' })).toEqual(ids('anna'));
    expect(await search({ freeText: 'feather' })).toEqual([]);
    expect(await search({ freeText: 'onkwo' })).toEqual([]);
  });

  it('is not fuzzy: a typo finds nothing', async () => {
    expect(await search({ freeText: 'jsoe' })).toEqual([]);
    expect(await search({ freeText: 'okonkwa' })).toEqual([]);
  });
});

describe('suspectName', () => {
  it('ignores letter case, accents and word order', async () => {
    expect(await search({ suspectName: 'jose muller' })).toEqual(ids('jose'));
    expect(await search({ suspectName: 'JOSÉ MÜLLER' })).toEqual(ids('jose'));
    expect(await search({ suspectName: 'Müller José' })).toEqual(ids('jose'));
    expect(await search({ suspectName: 'okonkwo anna' })).toEqual(ids('anna'));
    expect(await search({ suspectName: 'Chen Li Wu' })).toEqual(ids('li'));
    expect(await search({ suspectName: 'smith' })).toEqual(ids('smith'));
  });

  it('tolerates one typo per word: substitution, insertion, deletion, adjacent swap', async () => {
    expect(await search({ suspectName: 'Okonkwa' })).toEqual(ids('anna'));
    expect(await search({ suspectName: 'Okonkwoo' })).toEqual(ids('anna'));
    expect(await search({ suspectName: 'Okonkw' })).toEqual(ids('anna'));
    expect(await search({ suspectName: 'Okoknwo' })).toEqual(ids('anna'));
    expect(await search({ suspectName: 'Xkonkwo' })).toEqual(ids('anna'));
    expect(await search({ suspectName: 'Okonkwox' })).toEqual(ids('anna'));
    expect(await search({ suspectName: 'konkwo' })).toEqual(ids('anna'));
    expect(await search({ suspectName: 'Jsoe Muler' })).toEqual(ids('jose'));
    expect(await search({ suspectName: 'Josx Mxller' })).toEqual(ids('jose'));
    expect(await search({ suspectName: 'Mulelr Jsoe' })).toEqual(ids('jose'));
    // One typo in each word at once.
    expect(await search({ suspectName: 'Anan Mraia Okonkow' })).toEqual(ids('anna'));
    expect(await search({ suspectName: 'Jon Smiht' })).toEqual(ids('smith'));
  });

  it('finds an edited name with one typo, and no longer the old one', async () => {
    const cusApi = await h.as(cus);
    const created = (
      await cusApi
        .post('/api/records')
        .send(recordBody({ suspectName: 'Ottoline Brackenbury' }))
        .expect(201)
    ).body;
    const cusIds = async (suspectName: string) =>
      (await searchAs(cusApi, { suspectName })).body.map((r: { id: string }) => r.id);
    expect(await cusIds('Otoline Brackenbury')).toEqual([created.id]);
    const edit = recordBody({ incidentNumber: created.incidentNumber, suspectName: 'Philippa Quenneville-Thorpe' });
    await cusApi
      .put(`/api/records/${created.id}`)
      .send({ ...edit, version: 1 })
      .expect(200);
    // Words no record held before: the vocabulary learnt them with the edit.
    expect(await cusIds('Philipa Quennevilethorpe')).toEqual([created.id]);
    expect(await cusIds('Phillippa Thorpe')).toEqual([created.id]);
    expect(await cusIds('Otoline Brackenbury')).toEqual([]);
  });

  it('does not match two typos in one word, or a word the name lacks', async () => {
    expect(await search({ suspectName: 'Okonkaa' })).toEqual([]);
    expect(await search({ suspectName: 'Okokwa' })).toEqual([]);
    expect(await search({ suspectName: 'Anna Okonkaa' })).toEqual([]);
    expect(await search({ suspectName: 'Jxsx Muller' })).toEqual([]);
    expect(await search({ suspectName: 'Jose Mxler' })).toEqual([]);
    expect(await search({ suspectName: 'John Paul Smith' })).toEqual([]);
    // Only the suspect name is searched, not the other fields.
    expect(await search({ suspectName: 'Germany' })).toEqual([]);
    expect(await search({ suspectName: 'Quillfeather' })).toEqual([]);
  });

  it('needs words shorter than 3 letters to match exactly', async () => {
    expect(await search({ suspectName: 'Li' })).toEqual(ids('li'));
    expect(await search({ suspectName: 'Li Wu' })).toEqual(ids('li'));
    expect(await search({ suspectName: 'Lu Wu' })).toEqual([]);
    expect(await search({ suspectName: 'Li Xu' })).toEqual([]);
    expect(await search({ suspectName: 'Wn' })).toEqual([]);
    // "Liu" is one letter from "Li", but "Li" is short: each finds only its own.
    expect(await search({ suspectName: 'Liu' })).toEqual(ids('liu'));
    expect(await search({ suspectName: 'Liu Wen' })).toEqual(ids('liu'));
    expect(await search({ suspectName: 'Chn' })).toEqual(ids('li'));
  });
});

describe('incidentNumber', () => {
  it('matches exactly or as a prefix, ignoring letter case and outer spaces', async () => {
    expect(await search({ incidentNumber: 'BPS-2024-0001' })).toEqual(ids('jose'));
    expect(await search({ incidentNumber: 'bps-2024-0001' })).toEqual(ids('jose'));
    expect(await search({ incidentNumber: '  BPS-2024-0001 ' })).toEqual(ids('jose'));
    expect(await search({ incidentNumber: 'BPS-2024' })).toEqual(ids('jose', 'anna'));
    expect(await search({ incidentNumber: 'bps' })).toEqual(ids('jose', 'anna', 'smith'));
    expect(await search({ incidentNumber: 'cus/2023/5' })).toEqual(ids('liu'));
    expect(await search({ incidentNumber: 'A' })).toEqual(ids('meta', 'axb'));
  });

  it('matches the start of any part split at "-", "/", "." or a space', async () => {
    expect(await search({ incidentNumber: '2024-0001' })).toEqual(ids('jose'));
    expect(await search({ incidentNumber: '0001' })).toEqual(ids('jose'));
    expect(await search({ incidentNumber: '2024' })).toEqual(ids('jose', 'anna'));
    expect(await search({ incidentNumber: 'ref-77' })).toEqual(ids('li'));
    expect(await search({ incidentNumber: '77' })).toEqual(ids('li'));
    expect(await search({ incidentNumber: '2023/55' })).toEqual(ids('liu'));
    expect(await search({ incidentNumber: 'B*C(1)' })).toEqual(ids('meta'));
    expect(await search({ incidentNumber: '9' })).toEqual(ids('axb'));
    expect(await search({ incidentNumber: '-2024' })).toEqual(ids('jose', 'anna'));
  });

  it('does not match other numbers, infixes or longer numbers', async () => {
    expect(await search({ incidentNumber: 'BPS-2024-0003' })).toEqual([]);
    expect(await search({ incidentNumber: '024-0001' })).toEqual([]);
    expect(await search({ incidentNumber: 'PS-2024' })).toEqual([]);
    expect(await search({ incidentNumber: 'BPS-2024-00011' })).toEqual([]);
    expect(await search({ incidentNumber: 'EF-77' })).toEqual([]);
    expect(await search({ incidentNumber: '2024 0001' })).toEqual([]);
    expect(await search({ incidentNumber: '---' })).toEqual([]);
  });

  it('takes regular-expression characters literally', async () => {
    expect(await search({ incidentNumber: 'A.B' })).toEqual(ids('meta'));
    expect(await search({ incidentNumber: 'a.b*c(1)|^$' })).toEqual(ids('meta'));
    expect(await search({ incidentNumber: 'A.B*C(1)|' })).toEqual(ids('meta'));
    for (const text of ['^', '.*', '.', '(', ')', '\\', '$', '[', '|', '*', 'A|AXB', 'A.+', '[A-Z]', 'A.B*C(1)|^$x']) {
      expect(await search({ incidentNumber: text }), text).toEqual([]);
    }
  });
});

describe('names written in several parts', () => {
  let cusApi: Api;
  const found: Record<string, string> = {};
  const cusSearch = async (body: unknown) =>
    (await searchAs(cusApi, body)).body.map((r: { id: string }) => r.id) as string[];

  beforeAll(async () => {
    cusApi = await h.as(cus);
    found.marie = await create(cus, { incidentNumber: 'CUS-2026-001', suspectName: 'Marie-Hélène Dubois' });
    found.obrien = await create(cus, { incidentNumber: 'CUS-2026-002', suspectName: "Seán O'Brien" });
  });

  it('finds a hyphenated name with or without its hyphen, in any letter case and word order, with one typo', async () => {
    for (const name of [
      'marie helene dubois',
      'Marie-Hélène Dubois',
      'MARIE-HELENE DUBOIS',
      'mariehelene dubois',
      'MarieHelene Dubois',
      'dubois marie helene',
      'dubois mariehelene',
      'marie helen dubois',
      'mariehelen dubois',
      'Dubios Marie-Helene',
      'marie-helene',
      'helene',
    ]) {
      expect(await cusSearch({ suspectName: name }), name).toEqual([found.marie]);
    }
    for (const name of ["o'brien", 'OBrien', 'o brien', 'Sean OBrian', 'brien sean']) {
      expect(await cusSearch({ suspectName: name }), name).toEqual([found.obrien]);
    }
  });

  it('uses a word once: written together, the parts are not there a second time', async () => {
    expect(await cusSearch({ suspectName: 'mariehelene helene' })).toEqual([]);
    expect(await cusSearch({ suspectName: 'mariehelene marie' })).toEqual([]);
    expect(await cusSearch({ suspectName: 'marie helene mariehelene' })).toEqual([]);
  });

  it('finds them by free text written either way', async () => {
    expect(await cusSearch({ freeText: 'mariehelene' })).toEqual([found.marie]);
    expect(await cusSearch({ freeText: 'marie-hel' })).toEqual([found.marie]);
    expect(await cusSearch({ freeText: 'obrie' })).toEqual([found.obrien]);
  });
});

describe('dates', () => {
  it('suspectDob matches the same day', async () => {
    expect(await search({ suspectDob: '1980-02-20' })).toEqual(ids('anna', 'smith'));
    expect(await search({ suspectDob: '1975-01-10' })).toEqual(ids('jose'));
    expect(await search({ suspectDob: '1975-01-10T00:00:00.000Z' })).toEqual(ids('jose'));
    expect(await search({ suspectDob: '1975-01-11' })).toEqual([]);
    expect(await search({ suspectDob: '1975-01-09' })).toEqual([]);
  });

  it('incidentDate matches the same day', async () => {
    expect(await search({ incidentDate: '2023-06-15' })).toEqual(ids('jose', 'anna'));
    expect(await search({ incidentDate: '2024-01-05' })).toEqual(ids('li', 'smith'));
    expect(await search({ incidentDate: '2024-01-06' })).toEqual([]);
    expect(await search({ incidentDate: '2020-05-05' })).toEqual(ids('axb'));
  });
});

describe('amounts', () => {
  it('amount is the total of case, seized and confiscated', async () => {
    // jose: 100 + 20.50 + 0.25; anna has a case amount of 120.75 but a total of 130.75.
    expect(await search({ amount: '120.75' })).toEqual(ids('jose'));
    expect(await search({ amount: 120.75 })).toEqual(ids('jose'));
    expect(await search({ amount: '130.75' })).toEqual(ids('anna'));
    expect(await search({ amount: '119.75' })).toEqual(ids('smith'));
    expect(await search({ amount: '100' })).toEqual([]);
    expect(await search({ amount: '0' })).toEqual(ids('liu'));
    expect(await search({ amount: '5000.00' })).toEqual(ids('li'));
  });

  it('caseAmount, seizedAmount and confiscatedAmount are exact', async () => {
    expect(await search({ caseAmount: '120.75' })).toEqual(ids('anna'));
    expect(await search({ caseAmount: '120.7' })).toEqual([]);
    expect(await search({ caseAmount: '100' })).toEqual(ids('jose'));
    expect(await search({ caseAmount: '20.5' })).toEqual(ids('smith'));
    expect(await search({ caseAmount: 0 })).toEqual(ids('liu'));
    expect(await search({ seizedAmount: '20.50' })).toEqual(ids('jose'));
    expect(await search({ seizedAmount: '0' })).toEqual(ids('li', 'liu', 'meta', 'axb'));
    expect(await search({ seizedAmount: '99.00' })).toEqual(ids('smith'));
    expect(await search({ seizedAmount: '9' })).toEqual([]);
    expect(await search({ confiscatedAmount: '0.25' })).toEqual(ids('jose', 'smith'));
    expect(await search({ confiscatedAmount: '0.2' })).toEqual([]);
  });
});

describe('country, crimeType, cyberAssisted', () => {
  it('country is exact, in any letter case', async () => {
    expect(await search({ country: 'Germany' })).toEqual(ids('jose'));
    expect(await search({ country: 'gERMANY' })).toEqual(ids('jose'));
    expect(await search({ country: 'Bermuda' })).toEqual(ids('anna', 'smith'));
    expect(await search({ country: 'Norway' })).toEqual(ids('axb'));
    expect(await search({ country: 'Germ' })).toEqual([]);
    expect(await search({ country: 'Spain' })).toEqual([]);
  });

  it('crimeType is exact', async () => {
    expect(await search({ crimeType: 'Fraud' })).toEqual(ids('jose'));
    expect(await search({ crimeType: 'Money Laundering' })).toEqual(ids('anna'));
    expect(await search({ crimeType: 'Drugs' })).toEqual(ids('liu'));
    expect(await search({ crimeType: 'Tax Crimes' })).toEqual([]);
  });

  it('cyberAssisted true and false', async () => {
    expect(await search({ cyberAssisted: true })).toEqual(ids('anna', 'li'));
    expect(await search({ cyberAssisted: false })).toEqual(ids('jose', 'smith', 'liu', 'meta', 'axb'));
  });
});

describe('combined filters', () => {
  it('are combined with AND', async () => {
    expect(await search({ country: 'Bermuda', cyberAssisted: true })).toEqual(ids('anna'));
    expect(await search({ country: 'Bermuda', cyberAssisted: false })).toEqual(ids('smith'));
    expect(await search({ freeText: 'bps', suspectDob: '1980-02-20' })).toEqual(ids('anna', 'smith'));
    expect(await search({ suspectName: 'Jon Smith', incidentDate: '2024-01-05' })).toEqual(ids('smith'));
    expect(await search({ suspectName: 'John Smith', incidentDate: '2023-06-15' })).toEqual([]);
    expect(await search({ incidentNumber: 'BPS-2024', crimeType: 'Fraud' })).toEqual(ids('jose'));
    expect(await search({ incidentDate: '2023-06-15', caseAmount: '120.75' })).toEqual(ids('anna'));
    expect(await search({ seizedAmount: '0', cyberAssisted: true })).toEqual(ids('li'));
    expect(await search({ freeText: 'quill', country: 'Jamaica' })).toEqual(ids('liu'));
    expect(await search({ freeText: 'quill', country: 'Bermuda' })).toEqual([]);
  });

  it('every filter at once finds the one record, and any one filter off makes it nothing', async () => {
    const all = {
      freeText: 'jose harbour',
      incidentNumber: 'BPS-2024-0001',
      suspectName: 'Muller Jose',
      suspectDob: '1975-01-10',
      incidentDate: '2023-06-15',
      amount: '120.75',
      caseAmount: '100',
      seizedAmount: '20.5',
      confiscatedAmount: '0.25',
      country: 'Germany',
      cyberAssisted: false,
      crimeType: 'Fraud',
    };
    expect(await search(all)).toEqual(ids('jose'));
    const wrong: Record<keyof typeof all, unknown> = {
      freeText: 'jose okonkwo',
      incidentNumber: 'BPS-2024-0002',
      suspectName: 'Anna Muller',
      suspectDob: '1975-01-11',
      incidentDate: '2023-06-16',
      amount: '100',
      caseAmount: '120.75',
      seizedAmount: '20.25',
      confiscatedAmount: '0',
      country: 'Bermuda',
      cyberAssisted: true,
      crimeType: 'Drugs',
    };
    for (const key of Object.keys(wrong) as Array<keyof typeof all>) {
      expect(await search({ ...all, [key]: wrong[key] }), key).toEqual([]);
    }
  });
});

describe('scope', () => {
  it("never answers another agency's records; ADMIN searches every agency", async () => {
    const twin = await create(fia, { ...FIXTURE.jose, incidentNumber: 'BPS-2024-0009' });
    for (const body of [
      { freeText: 'jose quillfeather' },
      { suspectName: 'jose muller' },
      { incidentNumber: 'BPS-2024' },
      { country: 'Germany' },
      { amount: '120.75' },
      { crimeType: 'Fraud' },
      { suspectDob: '1975-01-10' },
      { incidentDate: '2023-06-15', cyberAssisted: false },
    ]) {
      const found = await search(body);
      expect(found, JSON.stringify(body)).not.toContain(twin);
      expect(found.length, JSON.stringify(body)).toBeGreaterThan(0);
    }
    expect(await search({})).toEqual(ALL());
    expect(await search({ incidentNumber: 'BPS-2024-0009' })).toEqual([]);

    const fiaApi = await h.as(fia);
    const fiaIds = async (body: unknown) =>
      (await searchAs(fiaApi, body)).body.map((r: { id: string }) => r.id) as string[];
    expect(await fiaIds({ suspectName: 'jose muller' })).toEqual([twin]);
    expect(await fiaIds({})).toEqual([twin]);
    expect(await fiaIds({ incidentNumber: 'BPS-2024-0001' })).toEqual([]);

    const adminApi = await h.as(admin);
    const adminIds = async (body: unknown) =>
      (await searchAs(adminApi, body)).body.map((r: { id: string }) => r.id) as string[];
    expect(await adminIds({ suspectName: 'jose muller' })).toEqual([twin, id.jose]);
    expect(await adminIds({ incidentNumber: 'BPS-2024' })).toEqual([twin, id.anna, id.jose]);
  });
});

describe('deleted records', () => {
  it('are never answered, and are again after a restore', async () => {
    const cusApi = await h.as(cus);
    const first = await create(cus, { suspectName: 'Dora Vanderbilt', additionalInfo: 'Gossamerine' });
    const second = await create(cus, { suspectName: 'Dora Vanderbilt', additionalInfo: 'Gossamerine' });
    const cusIds = async (body: unknown) => {
      const res = await searchAs(cusApi, body);
      return { ids: res.body.map((r: { id: string }) => r.id), total: res.headers[TOTAL_COUNT_HEADER] };
    };
    const incidentNumber = (await cusApi.get(`/api/records/${first}`).expect(200)).body.incidentNumber;
    expect(await cusIds({ suspectName: 'dora vanderbilt' })).toEqual({ ids: [second, first], total: '2' });

    await cusApi.delete(`/api/records/${first}`).expect(200);
    expect(await cusIds({ suspectName: 'dora vanderbilt' })).toEqual({ ids: [second], total: '1' });
    expect(await cusIds({ suspectName: 'Dora Vanderbilt' })).toEqual({ ids: [second], total: '1' });
    expect(await cusIds({ freeText: 'gossamerine' })).toEqual({ ids: [second], total: '1' });
    expect(await cusIds({ incidentNumber })).toEqual({ ids: [], total: '0' });
    const adminRes = await searchAs(await h.as(admin), { freeText: 'gossamerine' });
    expect(adminRes.body.map((r: { id: string }) => r.id)).toEqual([second]);

    await cusApi.post(`/api/records/${first}/restore`).expect(200);
    expect(await cusIds({ suspectName: 'dora vanderbilt' })).toEqual({ ids: [second, first], total: '2' });
    expect(await cusIds({ freeText: 'gossamerine' })).toEqual({ ids: [second, first], total: '2' });
    expect(await cusIds({ incidentNumber })).toEqual({ ids: [first], total: '1' });
  });
});

describe('paging', () => {
  /** Follows `x-next-cursor` to the end; every page must report the same total. */
  async function allPages(who: Api, body: unknown, limit: number) {
    const pages: string[][] = [];
    let cursor: string | undefined;
    let total: string | undefined;
    do {
      const res = await searchAs(who, body, `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      pages.push(res.body.map((r: { id: string }) => r.id));
      total ??= res.headers[TOTAL_COUNT_HEADER];
      expect(res.headers[TOTAL_COUNT_HEADER]).toBe(total);
      cursor = res.headers[NEXT_CURSOR_HEADER];
      expect(pages.length).toBeLessThan(20);
    } while (cursor);
    return { pages, total };
  }

  it('pages like the list, with x-total-count and x-next-cursor', async () => {
    const [a1, b1, c1] = ALL();
    const first = await searchAs(api, {}, '?limit=3');
    expect(first.body.map((r: { id: string }) => r.id)).toEqual([a1, b1, c1]);
    expect(first.headers[TOTAL_COUNT_HEADER]).toBe('7');
    expect(first.headers[NEXT_CURSOR_HEADER]).toEqual(expect.any(String));
    expect(await allPages(api, {}, 3)).toEqual({
      pages: [ids('axb', 'meta', 'liu'), ids('smith', 'li', 'anna'), ids('jose')],
      total: '7',
    });
    expect(await allPages(api, { freeText: 'bps' }, 2)).toEqual({
      pages: [ids('smith', 'anna'), ids('jose')],
      total: '3',
    });
    expect(await allPages(api, { cyberAssisted: false }, 5)).toEqual({
      pages: [ids('axb', 'meta', 'liu', 'smith', 'jose')],
      total: '5',
    });
    const none = await searchAs(api, { country: 'Spain' }, '?limit=2');
    expect(none.body).toEqual([]);
    expect(none.headers[TOTAL_COUNT_HEADER]).toBe('0');
    expect(none.headers[NEXT_CURSOR_HEADER]).toBeUndefined();
  });

  it('pages a suspectName search (matched in code) the same way', async () => {
    const cusApi = await h.as(cus);
    const p1 = await create(cus, { suspectName: 'Petra Quigley' });
    await create(cus, { suspectName: 'Someone Else' });
    const p2 = await create(cus, { suspectName: 'Petra Quiglee' });
    const p3 = await create(cus, { suspectName: 'Quigley Petra' });
    await create(cus, { suspectName: 'Petra Quixote' });
    const p4 = await create(cus, { suspectName: 'Petra Quigly' });
    await create(cus, { suspectName: 'Pedro Quigley Jr' });
    const p5 = await create(cus, { suspectName: 'PETRA QUIGLEY' });
    const body = { suspectName: 'petra quigley' };
    expect(await allPages(cusApi, body, 2)).toEqual({ pages: [[p5, p4], [p3, p2], [p1]], total: '5' });
    expect(await allPages(cusApi, body, 4)).toEqual({ pages: [[p5, p4, p3, p2], [p1]], total: '5' });
    expect(await allPages(cusApi, body, 5)).toEqual({ pages: [[p5, p4, p3, p2, p1]], total: '5' });
    expect(await allPages(cusApi, body, 100)).toEqual({ pages: [[p5, p4, p3, p2, p1]], total: '5' });
    // With another filter as well: the filter narrows the candidates, the name decides.
    const withText = { suspectName: 'petra quigley', freeText: 'quiglee' };
    expect(await allPages(cusApi, withText, 1)).toEqual({ pages: [[p2]], total: '1' });
  });

  it('refuses a bad limit or cursor with 400', async () => {
    for (const q of ['limit=0', 'limit=1001', 'limit=abc', 'cursor=%24gt', 'cursor=bm90LWEtY3Vyc29y']) {
      const res = await api.post(`/api/records/search?${q}`).send({ suspectName: 'jose' }).expect(400);
      expect(res.body.message).toMatch(/limit|cursor/);
    }
  });
});

describe('hostile input', () => {
  it('takes regular-expression characters in free text and names literally', async () => {
    // Text is split into words at anything but letters and digits; text without any word finds
    // nothing (it never means "no filter").
    for (const text of ['.*', '(', ')', '\\', '^', '$', '*', '+', '?', '[', '^.*$', '.+', '(?=)', '|', '{,}']) {
      expect(await search({ freeText: text }), `freeText ${text}`).toEqual([]);
      expect(await search({ suspectName: text }), `suspectName ${text}`).toEqual([]);
      expect(await search({ country: text }), `country ${text}`).toEqual([]);
    }
    // "a|b" is the words "a" and "b": records with a word starting with each (worked out above).
    expect(await search({ freeText: 'a|b' })).toEqual(ids('anna', 'smith', 'meta'));
    expect(await search({ freeText: 'a.b*c(1)' })).toEqual(ids('meta'));
    expect(await search({ freeText: 'quill.*' })).toEqual(ids('jose', 'liu'));
    expect(await search({ suspectName: 'a|b' })).toEqual([]);
    expect(await search({ suspectName: 'Okonkwo.*' })).toEqual(ids('anna'));
    expect(await search({ country: 'Germany|Bermuda' })).toEqual([]);
    expect(await search({ country: '.*Germany' })).toEqual([]);
  });

  it('refuses $-operators in every filter with 400 naming the field', async () => {
    const operators: Array<[string, unknown]> = [
      ['freeText', { $regex: '.*' }],
      ['freeText', { $ne: '' }],
      ['incidentNumber', { $exists: true }],
      ['incidentNumber', { $regex: '^' }],
      ['suspectName', { $ne: '' }],
      ['suspectName', { $in: ['x'] }],
      ['suspectDob', { $gt: '1900-01-01' }],
      ['incidentDate', { $ne: null }],
      ['amount', { $gte: 0 }],
      ['caseAmount', { $ne: '0' }],
      ['seizedAmount', { $gt: 0 }],
      ['confiscatedAmount', { $lt: 1 }],
      ['country', { $gt: '' }],
      ['country', { $ne: 'x' }],
      ['cyberAssisted', { $ne: null }],
      ['crimeType', { $in: ['Fraud', 'Drugs'] }],
      ['freeText', ['jose']],
      ['country', ['Germany']],
    ];
    for (const [field, value] of operators) {
      const res = await api.post('/api/records/search').send({ [field]: value });
      expect(res.status, `${field} ${JSON.stringify(value)}`).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.message).toContain(`${field}:`);
    }
  });

  it('refuses unknown filter fields (operators at the top level included) with 400', async () => {
    const unknown: Array<[string, unknown]> = [
      ['name', 'jose'],
      ['organization', 'FIA'],
      ['deleted', true],
      ['suspectname', 'jose'],
      ['$where', '1 == 1'],
      ['$or', [{ organization: 'FIA' }]],
      ['searchTokens', 'jose'],
    ];
    for (const [field, value] of unknown) {
      const res = await api.post('/api/records/search').send({ country: 'Germany', [field]: value });
      expect(res.status, field).toBe(400);
      expect(res.body.message, field).toContain(`"${field}"`);
    }
  });

  it('refuses a body that is not an object', async () => {
    const res = await api.post('/api/records/search').send([{ freeText: 'jose' }]);
    expect(res.status).toBe(400);
  });
});

describe('invalid values', () => {
  it('answer 400 naming the field', async () => {
    const invalid: Array<[string, unknown]> = [
      ['suspectDob', 'yesterday'],
      ['suspectDob', '2023-02-30'],
      ['suspectDob', 19800220],
      ['incidentDate', '2023-13-01'],
      ['incidentDate', '15/06/2023'],
      ['amount', '-1'],
      ['amount', -5],
      ['amount', '1.234'],
      ['amount', 'abc'],
      ['amount', '99999999999.99'],
      ['caseAmount', '-0.01'],
      ['seizedAmount', 'x'],
      ['confiscatedAmount', '1,000'],
      ['cyberAssisted', 'true'],
      ['cyberAssisted', 'yes'],
      ['cyberAssisted', 1],
      ['cyberAssisted', 0],
      ['crimeType', 'Jaywalking'],
      ['crimeType', 'fraud'],
      ['crimeType', '.*'],
      ['freeText', 42],
      ['freeText', 'x'.repeat(501)],
      ['suspectName', 'x'.repeat(201)],
      ['incidentNumber', true],
      ['country', 7],
    ];
    for (const [field, value] of invalid) {
      const res = await api.post('/api/records/search').send({ [field]: value });
      expect(res.status, `${field} ${JSON.stringify(value)}`).toBe(400);
      expect(res.body).toEqual({ message: expect.stringContaining(`${field}:`), code: 'VALIDATION_ERROR' });
    }
  });
});
