import { mongo } from 'mongoose';
import { Random } from '../../src/random.ts';

const { Binary, BSONRegExp, Double, Int32, Long, ObjectId } = mongo.BSON;

/** The shared PRNG, with what the generators here draw besides. */
export class Rng extends Random {
  /** An integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }
  some<T>(items: readonly T[], max: number): T[] {
    const n = 1 + this.below(max);
    return Array.from({ length: n }, () => this.pick(items));
  }
}

type Doc = Record<string, unknown>;

/** ObjectIds with fixed times, so two generations with one seed are equal. */
function objectId(rng: Rng, secondsFrom = 1_700_000_000): InstanceType<typeof ObjectId> {
  const hex = (secondsFrom + rng.below(10_000_000)).toString(16).padStart(8, '0');
  let rest = '';
  for (let i = 0; i < 16; i++) rest += rng.below(16).toString(16);
  return new ObjectId(hex + rest);
}

const DAY = 86_400_000;
/** Dates whose milliseconds have 13 digits (2001-09-09 to 2286-11-20). */
const goodDate = (rng: Rng) => new Date(1_000_000_000_000 + rng.below(60) * DAY + rng.below(2) * 1000);
/** Dates outside that: before 2001, before 1970, after 2286. */
const oddDate = (rng: Rng) =>
  rng.pick([
    new Date(Date.UTC(1999, 11, 31)),
    new Date(Date.UTC(1969, 6, 20)),
    new Date(Date.UTC(2300, 0, 1)),
    new Date(0),
    new Date(999_999_999_999),
    new Date(10_000_000_000_000),
  ]);

/** Strings with what breaks naive SQL text comparison, pattern matching and JSON escaping. */
export const TRICKY_STRINGS = [
  'BPS-2026-001',
  'bps-2026-001',
  'BPS-2026-0011',
  'FIA/2025/17',
  'CUS.2024.3',
  'a<b',
  'a>b',
  'R&D',
  '100%',
  '100',
  'x_y',
  'x%y',
  'quote"inside',
  'back\\slash',
  'tab\there',
  'line\nbreak',
  'Marie-Hélène Dubois',
  'marie helene dubois',
  'Zoë',
  'Ωmega',
  '日本',
  '😀 emoji',
  '\u2028sep',
  '',
  ' ',
  '65a1b2c3d4e5f60718293a4b', // looks like an ObjectId
  'null',
  'true',
  '1700000000000',
  '[1]',
  '{"a":1}',
  '#hash',
  '"',
];

const WORDS = ['smith', 'smyth', 'smithson', 'jones', 'fraud', 'laundering', 'bps', '2026', '001', 'é', 'a<b', 'x_y'];
const ORGS = ['BPS', 'FIA', 'CUS', 'ADMIN'];

/**
 * A collection typed as the services type theirs: every field always of one type (or missing),
 * arrays only in array fields. Its queries are the ones pushed down exactly.
 */
export function cleanDocs(rng: Rng, n: number, from = 0): Doc[] {
  return Array.from({ length: n }, (_, i) => {
    const createdAt = goodDate(rng);
    const doc: Doc = {
      _id: objectId(rng),
      org: rng.pick(ORGS),
      deleted: rng.chance(0.15),
      createdAt,
      key: `${rng.pick(TRICKY_STRINGS)}#${from + i}`,
      tokens: rng.some(WORDS, 4),
      amount: rng.pick([0, 1, 250, 100_000, 12_345_678_901, 99_999_999_999]),
      version: 1 + rng.below(3),
      crimeType: rng.chance(0.3) ? null : rng.pick(['Fraud', 'Drugs', 'Piracy']),
      country: rng.pick(['Bermuda', 'Canada', 'Côte d’Ivoire']),
    };
    if (doc.deleted) doc.deletedAt = new Date(createdAt.getTime() + rng.below(100) * DAY);
    if (rng.chance(0.2)) delete doc.crimeType;
    // dates and nulls: a sort over them is not the text order
    if (rng.chance(0.8)) doc.reviewedAt = rng.chance(0.3) ? null : goodDate(rng);
    return doc;
  });
}

/** A value of any kind, as a mixed collection holds and as queries compare with. */
export function anyValue(rng: Rng): unknown {
  switch (rng.below(22)) {
    case 0:
      return rng.pick(TRICKY_STRINGS);
    case 1:
      return rng.pick(ORGS);
    case 2:
      return objectId(rng);
    case 3:
      return new ObjectId('65a1b2c3d4e5f60718293a4b');
    case 4:
      return goodDate(rng);
    case 5:
      return oddDate(rng);
    case 6:
      return rng.pick([0, 1, -1, 250, 1_700_000_000_000, 2 ** 31]);
    case 7:
      return new Double(rng.pick([-0, 0.5, 250, 1e21, 2 ** 53 + 2, 1e-7]));
    case 8:
      return Long.fromString(rng.pick(['250', '9007199254740993', '-9007199254740993', '1152921504606846976']));
    case 9:
      return new Int32(rng.pick([0, 250, -7]));
    case 10:
      return rng.chance(0.5);
    case 11:
      return null;
    case 12:
      return rng.some(WORDS, 3);
    case 13:
      return [rng.pick(WORDS), objectId(rng), 5, null, [rng.pick(WORDS)]];
    case 14:
      return { nested: rng.pick(WORDS) };
    case 15:
      return new Binary(Buffer.from(rng.pick(['abc', 'xyz'])));
    case 16:
      return new BSONRegExp(rng.pick(['^smi', 'fraud']), rng.pick(['', 'i']));
    case 17:
      return [];
    case 18:
      return rng.pick(WORDS);
    case 19:
      return new Double(rng.pick([0, 1, 250]));
    case 20:
      return [goodDate(rng), oddDate(rng)];
    default:
      return rng.pick(['1700000000000', '65a1b2c3d4e5f60718293a4b', 'true', 'null']);
  }
}

/**
 * The same fields as the clean collection, each with its own mixture of kinds: some fields keep
 * one kind beside nulls or missing values (pushed down exactly), some mix kinds that share JSON
 * texts (pushed down, not exactly), some hold arrays or kinds whose texts do not sort as their
 * values (not pushed down, or only through the elements table), and a share of every kind.
 */
export function mixedDocs(rng: Rng, n: number, from = 0): Doc[] {
  const fields: Record<string, () => unknown> = {
    org: () => (rng.chance(0.2) ? rng.some(ORGS, 2) : rng.pick(ORGS)),
    deleted: () => rng.pick([true, false, false, 0, 1, null]),
    createdAt: () => rng.pick([goodDate(rng), goodDate(rng), oddDate(rng), '2026-01-01', null]),
    deletedAt: () => rng.pick([goodDate(rng), null, 1_700_000_000_000, new Double(5)]),
    key: () =>
      rng.pick([
        rng.pick(TRICKY_STRINGS),
        objectId(rng),
        rng.pick(COLLIDING),
        [rng.pick(WORDS), 'x_y'],
        [rng.pick(COLLIDING)],
      ]),
    tokens: () =>
      rng.pick([
        rng.some(WORDS, 3),
        rng.pick(WORDS),
        [rng.pick(WORDS), rng.pick(NOT_REGEX), 5, null],
        [],
        [rng.pick(NOT_REGEX)],
      ]),
    amount: () =>
      rng.pick([0, 250, new Double(-0), new Double(0.5), Long.fromString('9007199254740993'), new Double(1e21)]),
    version: () => rng.pick([1, 2, new Double(2), new Double(2.5), goodDate(rng)]),
    crimeType: () => rng.pick(['Fraud', 'Drugs', null, 'a<b', '100%']),
    country: () => rng.pick(['Bermuda', 'Canada', new BSONRegExp('^Can', ''), 'Côte d’Ivoire']),
    // kinds whose JSON texts collide: an ObjectId and the string of its hex digits, binary data and
    // the string of its base64, a regular expression and the string of its pattern
    ref: () => rng.pick(COLLIDING),
    // a date and the number of its milliseconds
    when: () => rng.pick([new Date(1_700_000_000_000), 1_700_000_000_000, goodDate(rng), new Double(5)]),
  };
  return Array.from({ length: n }, (_, i) => {
    const doc: Doc = {
      _id: rng.pick([objectId(rng), objectId(rng), objectId(rng), `id-${from + i}`, from + i]),
    };
    for (const [f, value] of Object.entries(fields)) {
      if (rng.chance(0.1)) continue; // missing
      // a share of anything in two fields; the others keep their designed mixtures
      doc[f] = (f === 'org' || f === 'country') && rng.chance(0.1) ? anyValue(rng) : value();
    }
    return doc;
  });
}

/** Values of different kinds with the same stored JSON text (see mixedDocs). */
const COLLIDING = [
  new ObjectId('65a1b2c3d4e5f60718293a4b'),
  '65a1b2c3d4e5f60718293a4b',
  new Binary(Buffer.from('abc')),
  'YWJj',
  new BSONRegExp('^ab', ''),
  '^ab',
  'abc',
  'abd',
];

/** The colliding values but the regular expression (which keeps regular expressions from pushdown). */
const NOT_REGEX = COLLIDING.filter((v) => !(v instanceof BSONRegExp));

export type Filter = Record<string, unknown>;

/** A filter condition on one field, of every shape the pushdown handles (and some it does not). */
function fieldCondition(rng: Rng, field: string, sample: () => unknown): Filter {
  const v = sample();
  switch (rng.below(18)) {
    case 0:
    case 1:
    case 16:
      return { [field]: v };
    case 17:
      return { [field]: { $in: [v, sample()] } };
    case 2:
      return { [field]: { $eq: v } };
    case 3:
      return { [field]: { $in: [v, sample(), sample()] } };
    case 4:
      return { [field]: { $in: [] } };
    case 5:
      return { [field]: { $nin: [v, sample()] } };
    case 6:
      return { [field]: { $ne: v } };
    case 7:
      return { [field]: { $exists: rng.chance(0.5) } };
    case 8:
      return { [field]: { [rng.pick(['$gt', '$gte', '$lt', '$lte'])]: v } };
    case 9:
      return { [field]: { $gte: v, $lt: sample() } };
    case 10:
    case 11: {
      const text = String(rng.pick([...WORDS, ...TRICKY_STRINGS])).slice(0, 1 + rng.below(5));
      const escaped = text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
      const pattern = rng.pick([
        `^${escaped}`,
        `^${escaped}`,
        `^${escaped}.*z`,
        escaped,
        `^${escaped}$`,
        `^(${escaped})`,
      ]);
      const options = rng.pick(['', '', '', 'i', 'm', 's']);
      return rng.chance(0.5)
        ? { [field]: { $regex: pattern, ...(options ? { $options: options } : {}) } }
        : { [field]: new BSONRegExp(pattern, options) };
    }
    case 12:
      return { [field]: null };
    case 13:
      return { [field]: { $in: [null, v] } };
    case 14:
      return { [field]: { $gt: goodDate(rng), $lte: goodDate(rng) } };
    default:
      return { [field]: { $lt: objectId(rng) } };
  }
}

/** Filters that the handler refuses: both builds must refuse them alike. */
export const INVALID_FILTERS: Filter[] = [
  { org: { $foo: 1 } },
  { org: { $in: 5 } },
  { key: { $regex: '(' } },
  { key: { $regex: 'a', $options: 'x' } },
  { key: { $regex: 'a', $options: 'q' } },
  { $and: [] },
  { $or: [{ org: 'BPS' }, 5] },
  { 'a..b': 1 },
  { org: { $ne: /x/ } },
  { org: 'BPS', deleted: { $in: [{ $gt: 1 }] } },
  { $where: 'true' },
  { createdAt: { $gt: /x/ } },
];

// The services' fields come up more often.
const FIELDS = [
  ...[
    '_id',
    'org',
    'deleted',
    'createdAt',
    'deletedAt',
    'key',
    'tokens',
    'amount',
    'version',
    'crimeType',
    'country',
    'absent',
  ],
  ...['_id', 'createdAt', 'key', 'key', 'tokens', 'tokens', 'crimeType', 'deletedAt', 'ref', 'when', 'reviewedAt'],
];

/** Filters built from the fields, values drawn from the stored documents and from every kind. */
export function filters(rng: Rng, docs: Doc[], n: number): Filter[] {
  // Mostly a value the same field holds somewhere (an element, for arrays), else any value.
  const heldBy = (field: string) => () => {
    if (rng.chance(0.65)) {
      const v = rng.pick(docs)[field];
      if (Array.isArray(v) && v.length && rng.chance(0.8)) return rng.pick(v);
      if (v !== undefined) return v;
    }
    return anyValue(rng);
  };
  const one = (): Filter => {
    const field = rng.pick(FIELDS);
    return fieldCondition(rng, field, heldBy(field));
  };
  // The services' shapes, each value of the field's own type.
  const literal = (t: string) => t.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  const prefix = (v: unknown) => literal(String(v).slice(0, 1 + rng.below(6)));
  const typed = (): Filter => {
    const d = rng.pick(docs);
    const tokens = Array.isArray(d.tokens) && d.tokens.length ? d.tokens : ['smith'];
    switch (rng.below(20)) {
      case 14:
        return {
          [rng.pick(['crimeType', 'country', 'key', 'reviewedAt', 'deletedAt', 'when'])]: {
            [rng.pick(['$lt', '$lte', '$gt', '$gte'])]: goodDate(rng),
          },
        };
      case 15:
        return {
          [rng.pick(['_id', 'key', 'ref', 'tokens'])]: {
            [rng.pick(['$lt', '$lte', '$gt', '$gte'])]: rng.pick([d._id, ...COLLIDING.slice(0, 1), objectId(rng)]),
          },
        };
      case 16:
        return {
          [rng.pick(['key', 'tokens'])]: rng.pick([...COLLIDING, { $in: [rng.pick(COLLIDING), rng.pick(WORDS)] }]),
        };
      case 17:
        return { country: rng.pick([{ $regex: '^Can' }, new BSONRegExp('^Can', ''), { $regex: '^Ca' }]) };
      case 18:
        return { amount: rng.pick([0, new Double(-0), new Double(0), 250, new Double(0.5), d.amount ?? 1]) };
      case 19: {
        const text = String(rng.pick([d.key, rng.pick(tokens)]));
        const head = rng.chance(0.5) ? text.slice(0, 3).toLowerCase() : text.slice(0, 3).toUpperCase();
        return {
          [rng.pick(['key', 'tokens'])]: rng.pick([
            { $regex: `^${literal(head)}`, $options: 'i' },
            { $regex: `^${prefix(text)}$` },
            { $regex: `^${prefix(text)}.*z` },
            { $regex: `^${prefix(text)}\\d` },
            new BSONRegExp(`^${literal(head)}`, 'i'),
          ]),
        };
      }
      case 11:
        return { ref: rng.chance(0.7) ? rng.pick(COLLIDING) : { $in: [rng.pick(COLLIDING), rng.pick(COLLIDING)] } };
      case 12:
        return { ref: { $regex: rng.pick(['^65a1', '^ab', '^YW', '^abc']) } };
      case 13:
        return {
          when: rng.pick([new Date(1_700_000_000_000), 1_700_000_000_000, { $gte: new Date(1_700_000_000_000) }]),
        };
      case 0:
        return { key: d.key };
      case 1:
        return { key: { $regex: `^${prefix(d.key)}` } };
      case 2:
        return { tokens: { $regex: `^${prefix(rng.pick(tokens))}` } };
      case 3:
        return { tokens: { $in: [rng.pick(tokens), rng.pick(WORDS), rng.pick(WORDS)] } };
      case 4:
        return { createdAt: d.createdAt ?? null };
      case 5:
        return { createdAt: { $gte: goodDate(rng), $lt: goodDate(rng) } };
      case 6:
        return { _id: { [rng.pick(['$lt', '$gte'])]: d._id } };
      case 7:
        return { amount: d.amount ?? 0 };
      case 8:
        return { crimeType: d.crimeType ?? null };
      case 9:
        return {
          $and: [
            { tokens: { $regex: `^${prefix(rng.pick(tokens))}` } },
            { tokens: { $regex: `^${prefix(rng.pick(WORDS))}` } },
          ],
        };
      default:
        return { country: d.country ?? 'Bermuda', deletedAt: { $lt: goodDate(rng) } };
    }
  };
  const out: Filter[] = [{}, { $comment: 'all' }];
  for (let i = 0; i < n; i++) {
    if (rng.chance(0.35)) {
      out.push({
        ...(rng.chance(0.7) ? { org: rng.pick(ORGS), deleted: !rng.chance(0.85) } : {}),
        ...typed(),
      });
      continue;
    }
    switch (rng.below(8)) {
      case 0:
      case 1:
        out.push(one());
        break;
      case 2:
        out.push({ ...one(), ...one() });
        break;
      case 3:
        out.push({ $and: [one(), one()] });
        break;
      case 4:
        out.push({ $or: [one(), one(), ...(rng.chance(0.3) ? [{}] : [])] });
        break;
      case 5:
        out.push(rng.chance(0.3) ? { $nor: [one()] } : { org: rng.pick(ORGS), ...one() });
        break;
      case 6: {
        // the services' shape: scope, then a search condition
        out.push({ org: rng.pick(ORGS), deleted: false, ...one() });
        break;
      }
      default:
        out.push({ $and: [{ org: rng.pick(ORGS), deleted: !rng.chance(0.8) }, { $or: [one(), one()] }] });
    }
  }
  return out;
}

export const SORTS: Array<Record<string, 1 | -1> | undefined> = [
  undefined,
  { createdAt: -1, _id: -1 },
  { deletedAt: -1, _id: -1 },
  { _id: 1 },
  { createdAt: 1 },
  { amount: -1, _id: 1 },
  { key: 1, _id: 1 },
  { org: 1 },
  { reviewedAt: -1, _id: -1 },
  { reviewedAt: 1, _id: 1 },
  { createdAt: -1 },
];

/**
 * Probes: every field with every condition the pushdown treats specially (values whose stored texts
 * collide, numbers whose texts differ for equal values, dates that do not sort as text, regular
 * expressions with options, anchors and tails), for the counts and limits that trust the SQL.
 */
export function probes(rng: Rng, share: number): Filter[] {
  const fields = [...new Set(FIELDS)];
  const values: unknown[] = [
    ...COLLIDING,
    new Date(1_700_000_000_000),
    1_700_000_000_000,
    oddDate(rng),
    0,
    new Double(-0),
    new Double(0.5),
    250,
    Long.fromString('9007199254740993'),
    null,
    true,
    'BPS',
    'smith',
  ];
  const regexes = ['^bps', '^BPS', '^smi', '^Ca', '^a<', '^x_', '^100%', '^65a1', '^ab', '^YW', '^mari'];
  const out: Filter[] = [];
  // With a share of half or more, the fields whose kinds collide (see mixedDocs) are probed whole.
  const always = new Set(share >= 0.5 ? ['ref', 'when', 'deletedAt', 'key', 'tokens'] : []);
  for (const field of fields) {
    for (const v of values) out.push({ [field]: v });
    out.push({ [field]: { $in: [rng.pick(values), rng.pick(values)] } });
    for (const op of ['$lt', '$lte', '$gt', '$gte']) {
      out.push({ [field]: { [op]: goodDate(rng) } });
      out.push({ [field]: { [op]: rng.pick([new ObjectId('65a1b2c3d4e5f60718293a4b'), objectId(rng)]) } });
    }
    for (const r of regexes) {
      out.push({ [field]: { $regex: r } });
      const options = rng.pick(['', 'i', 'm', 's']);
      const tail = rng.pick(['', '$', '.*z', '\\d']);
      out.push({ [field]: { $regex: r + tail, ...(options ? { $options: options } : {}) } });
    }
  }
  return out.filter((f) => always.has(Object.keys(f)[0] ?? '') || rng.chance(share));
}
