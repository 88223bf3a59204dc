/**
 * Pairs explained by other matches. Two records that disagree somewhere (a name word against
 * another, dates of birth more than one slip apart) but agree on the rest are either one person
 * written wrongly or two people alike. When each of them has its own confirmed match — another
 * record with the same name words and the same date of birth — and those two matches are two
 * different records not confirmed with each other, the data holds two people: Zane Dixon born
 * 1959 written twice, and Zane Dixon born 1987 written twice. The pair across them is then
 * explained, and link-csv caps its weight as it caps a pair whose names do not agree
 * (scorer.ts: cappedWeight), well below the threshold.
 *
 * A group of one person written many times is not split by this: its records' confirmed matches
 * are confirmed with each other, or are the same record. Only link-csv applies it: it sees every
 * record of the input at once (the service scores one record against its index).
 *
 * At the threshold (80) it removes 14 of FEBRL 4's 26 false links and no true one; FEBRL 2's false
 * links go from 24 to 17 and FEBRL 3's from 31 to 19 (4 true links lost there); ADR 0007 has the
 * held-out sets.
 */

/** What partners.ts needs of each candidate pair (scorer.ts: pairWeightParts). */
export interface PairEvidence {
  /** The names agree with no word against another, and the dates of birth are the same. */
  readonly confirmed: boolean;
  /** A name word disagrees, or the dates of birth are more than one slip apart. */
  readonly disagrees: boolean;
}

/** The most confirmed matches of one record looked at (a name and date shared by very many). */
const MAX_PARTNERS = 50;

/**
 * For each candidate pair (records numbered 0…n−1; with two files, the right file's after the
 * left's: `offset` = the left file's length, else 0), whether it is explained by other matches.
 */
export function explainedPairs(
  pairs: ReadonlyArray<readonly [number, number]>,
  evidence: ReadonlyArray<PairEvidence>,
  offset = 0,
): boolean[] {
  const partners = new Map<number, number[]>();
  const confirmedKeys = new Set<string>();
  const key = (x: number, y: number) => (x < y ? `${x}:${y}` : `${y}:${x}`);
  pairs.forEach(([i, j], k) => {
    if (!evidence[k]!.confirmed) return;
    const x = i;
    const y = j + offset;
    for (const [from, to] of [
      [x, y],
      [y, x],
    ] as const) {
      const list = partners.get(from);
      if (!list) partners.set(from, [to]);
      else if (list.length < MAX_PARTNERS) list.push(to);
    }
    confirmedKeys.add(key(x, y));
  });
  return pairs.map(([i, j], k) => {
    if (!evidence[k]!.disagrees) return false;
    const x = i;
    const y = j + offset;
    const ofX = partners.get(x);
    const ofY = ofX && partners.get(y);
    if (!ofY) return false;
    return ofX.some((p) => p !== y && ofY.some((q) => q !== x && p !== q && !confirmedKeys.has(key(p, q))));
  });
}
