/**
 * Writes a synthetic person CSV for timing link-csv: names drawn from the FEBRL files' name words
 * (so their frequencies are realistic), random dates of birth, and a share of corrupted duplicates
 * (typos, swapped or missing name parts, a date slip or a missing date).
 *
 *   node tools/linkage/bin/make-test-csv.mjs OUT.csv [RECORDS=50000] [DUPLICATE_SHARE=0.3] [LARGEST=2]
 *
 * LARGEST above 2 writes people in clusters of 1 to LARGEST records (the original and its
 * duplicates; a cluster of k records holds k·(k−1)/2 true pairs): each person's cluster size drawn
 * with a frequency falling as 1/size^1.5, DUPLICATE_SHARE ignored.
 *
 * Columns: "Person ID","Full Name","Birth Date" (DD/MM/YYYY), with a BOM and CRLF line ends. The
 * duplicates of record P-<n> have ids P-<n>-d, P-<n>-d2, P-<n>-d3…
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { linkageDataDir, loadFebrl } from '../src/eval/febrl.ts';

const [out, recordsArg = '50000', shareArg = '0.3', largestArg = '2'] = process.argv.slice(2);
if (!out) {
  console.error('usage: make-test-csv OUT.csv [RECORDS] [DUPLICATE_SHARE] [LARGEST]');
  process.exit(2);
}
const total = Number(recordsArg);
const share = Number(shareArg);
const largest = Number(largestArg);

let seed = 12345;
const random = () => {
  seed = (seed * 16807) % 2147483647;
  return seed / 2147483647;
};
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;

const given: string[] = [];
const surnames: string[] = [];
for (const file of ['dataset1.csv', 'dataset2.csv', 'dataset3.csv', 'dataset4a.csv']) {
  for (const r of loadFebrl(path.join(linkageDataDir(), file))) {
    if (r.id.includes('-dup-')) continue;
    if (r.givenName) given.push(r.givenName);
    if (r.surname) surnames.push(r.surname);
  }
}
const letters = 'abcdefghijklmnopqrstuvwxyz';
function typo(word: string): string {
  if (word.length < 3) return word;
  const i = 1 + Math.floor(random() * (word.length - 1));
  switch (Math.floor(random() * 4)) {
    case 0:
      return word.slice(0, i) + pick([...letters]) + word.slice(i + 1);
    case 1:
      return word.slice(0, i) + word.slice(i + 1);
    case 2:
      return word.slice(0, i) + pick([...letters]) + word.slice(i);
    default:
      return i + 1 < word.length ? word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2) : word;
  }
}
const pad = (n: number) => String(n).padStart(2, '0');
const cap = (w: string) => (w ? w[0]!.toUpperCase() + w.slice(1) : w);

interface Person {
  given: string;
  surname: string;
  y: number;
  m: number;
  d: number;
}
const rows: string[] = ['\uFEFF"Person ID","Full Name","Birth Date"'];
/** Cluster sizes (records per person) when LARGEST > 2: 1/size^1.5, until they hold `total` records. */
const sizes: number[] = [];
if (largest > 2) {
  const odds = Array.from({ length: largest }, (_, k) => (k + 1) ** -1.5);
  const sum = odds.reduce((a, b) => a + b, 0);
  for (let held = 0; held < total; ) {
    let r = random() * sum;
    let size = 1;
    while (size < largest && r >= odds[size - 1]!) r -= odds[size++ - 1]!;
    size = Math.min(size, total - held);
    sizes.push(size);
    held += size;
  }
}
const originals = largest > 2 ? sizes.length : Math.round(total / (1 + share));
/** Whose duplicate each further row is: every person in turn, or each cluster's own. */
const duplicateOf = largest > 2 ? sizes.flatMap((size, n) => Array<number>(size - 1).fill(n)) : undefined;
const people: Person[] = [];
for (let n = 0; n < originals; n++) {
  const p = { given: pick(given), surname: pick(surnames), y: 1930 + Math.floor(random() * 80), m: 1, d: 1 };
  p.m = 1 + Math.floor(random() * 12);
  p.d = 1 + Math.floor(random() * 28);
  people.push(p);
  rows.push(`P-${n},"${cap(p.surname)}, ${cap(p.given)}",${pad(p.d)}/${pad(p.m)}/${p.y}`);
}
const copies = new Map<number, number>();
for (let k = 0; rows.length - 1 < total; k++) {
  const n = duplicateOf ? duplicateOf[k]! : k % people.length;
  const p = people[n]!;
  const copy = (copies.get(n) ?? 0) + 1;
  copies.set(n, copy);
  let g = p.given;
  let s = p.surname;
  let dob = `${pad(p.d)}/${pad(p.m)}/${p.y}`;
  const r = random();
  if (r < 0.3) g = typo(g);
  else if (r < 0.5) s = typo(s);
  else if (r < 0.6) g = '';
  const r2 = random();
  if (r2 < 0.1) dob = '';
  else if (r2 < 0.2)
    dob = `${pad(p.m <= 12 && p.d <= 12 ? p.m : p.d)}/${pad(p.m <= 12 && p.d <= 12 ? p.d : p.m)}/${p.y}`;
  else if (r2 < 0.3) dob = `${pad(p.d)}/${pad(p.m)}/${p.y + 1}`;
  const name = random() < 0.5 ? `${g} ${s}` : `${s.toUpperCase()}, ${g}`;
  rows.push(`P-${n}-d${copy > 1 ? copy : ''},"${name.trim()}",${dob}`);
}
writeFileSync(out, `${rows.join('\r\n')}\r\n`);
console.error(`wrote ${rows.length - 1} records (${originals} people) to ${out}`);
