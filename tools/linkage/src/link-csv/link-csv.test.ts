import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runLinkCsv } from './link-csv.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'link-csv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

function run(...argv: string[]) {
  let out = '';
  let err = '';
  const code = runLinkCsv(argv, { write: (t: string) => (out += t) }, { write: (t: string) => (err += t) });
  return { code, out, err };
}

function readPairs(p: string): string[][] {
  return readFileSync(p, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(','));
}

// BOM, CRLF, quoted fields with commas, spaces after commas, odd column names.
const left = file(
  'left.csv',
  '\uFEFFCase No, Suspect, Born, Amount\r\n' +
    'A1, "Okafor, Grace", 15/06/1984, 1500\r\n' +
    'A2, José Álvarez, 02/01/1970, 0\r\n' +
    'A3, UNKNOWN, 01/01/1900, 0\r\n' +
    'A4, Grace Okafor, 15/06/1984, 1500\r\n' +
    'A5, Tom Lee, 05/05/1955, 10\r\n',
);
const right = file(
  'right.csv',
  'Case No,Suspect,Born,Amount\n' +
    'B1,Grace Okafr,15/06/1984,1490\n' +
    'B2,"ALVAREZ, Jose",01/02/1970,\n' +
    'B3,unknown,01/01/1900,0\n' +
    'B4,Peter Pan,12/12/1912,99\n',
);

describe('link-csv', () => {
  it('--strict-names keeps look-alikes born the same day apart; by default they link', () => {
    const people = file(
      'twins.csv',
      'id,given,surname,dob\n' +
        'M,Manfred,Neumann,1961-04-09\n' +
        'G,Gabriele,Neumann,1961-04-09\n' +
        'H,Gabriele,Hartmann,1961-04-09\n',
    );
    const pairsOf = (...extra: string[]) => {
      const out = path.join(dir, `twins-${extra.length}.csv`);
      const r = run(
        '--left',
        people,
        '--id',
        'id',
        '--given',
        'given',
        '--surname',
        'surname',
        '--dob',
        'dob',
        ...extra,
        '--out',
        out,
      );
      expect(r.code, r.err).toBe(0);
      return {
        err: r.err,
        rows: new Map(
          readPairs(out)
            .slice(1)
            .map(([a, b, c]) => [`${a}-${b}`, Number(c)]),
        ),
      };
    };
    const plain = pairsOf();
    const strict = pairsOf('--strict-names');
    expect(strict.err).toContain('strict names');
    expect(plain.err).not.toContain('strict names');
    expect(plain.rows.get('M-G')).toBeGreaterThanOrEqual(80);
    expect(strict.rows.get('M-G') ?? 0).toBeLessThanOrEqual(20); // under --min 1: not written
    // Gabriele with another surname (a married name) is weighed as before.
    expect(strict.rows.get('G-H')).toBe(plain.rows.get('G-H'));
  });

  it('links two files and writes left_id,right_id,confidence, highest first', () => {
    const out = path.join(dir, 'pairs.csv');
    const r = run(
      '--left',
      left,
      '--right',
      right,
      '--id',
      'Case No',
      '--name',
      'Suspect',
      '--dob',
      'Born',
      '--amount',
      'Amount',
      '--out',
      out,
    );
    expect(r.code, r.err).toBe(0);
    const rows = readPairs(out);
    expect(rows[0]).toEqual(['left_id', 'right_id', 'confidence']);
    const found = rows.slice(1).map(([l, rr]) => `${l}-${rr}`);
    expect(found).toContain('A1-B1');
    expect(found).toContain('A4-B1');
    expect(found).toContain('A2-B2');
    expect(found.some((p) => p.includes('A3') || p.includes('B3'))).toBe(false);
    const confidences = rows.slice(1).map((x) => Number(x[2]));
    expect(confidences).toEqual([...confidences].sort((a, b) => b - a));
    expect(rows.slice(1).every((x) => /^\d+\.\d\d$/.test(x[2]!))).toBe(true);
    expect(r.err).toMatch(/5 × 4 records/);
  });

  it('deduplicates one file: each pair once, never a record with itself', () => {
    const out = path.join(dir, 'dedupe.csv');
    const r = run('--left', left, '--id', 'Case No', '--name', 'Suspect', '--dob', 'Born', '--out', out, '--min', '50');
    expect(r.code, r.err).toBe(0);
    expect(readPairs(out).slice(1)).toEqual([['A1', 'A4', '100.00']]);
  });

  it("--cluster writes each record's group instead of pairs (one file, and two files)", () => {
    const out = path.join(dir, 'clusters.csv');
    const base = ['--id', 'Case No', '--name', 'Suspect', '--dob', 'Born', '--out', out, '--cluster'];
    const one = run('--left', left, ...base);
    expect(one.code, one.err).toBe(0);
    // A1 and A4 are one person; the others are each on their own.
    expect(readPairs(out)).toEqual([
      ['id', 'cluster'],
      ['A1', '1'],
      ['A2', '2'],
      ['A3', '3'],
      ['A4', '1'],
      ['A5', '4'],
    ]);
    expect(one.err).toMatch(/4 groups of 5 records written/);

    const two = run('--left', left, '--right', right, ...base);
    expect(two.code, two.err).toBe(0);
    const rows = readPairs(out);
    expect(rows[0]).toEqual(['file', 'id', 'cluster']);
    const group = Object.fromEntries(rows.slice(1).map(([f, id, c]) => [`${f}:${id}`, c]));
    expect(Object.keys(group)).toHaveLength(9);
    // Grace Okafor in both left rows and the right one; José Álvarez on both sides.
    expect(new Set([group['left:A1'], group['left:A4'], group['right:B1']]).size).toBe(1);
    expect(group['left:A2']).toBe(group['right:B2']);
    expect(group['left:A2']).not.toBe(group['left:A1']);
    // Records of one file are not compared with each other in link mode: A1 and A4 join through B1.
    expect(new Set(Object.values(group)).size).toBe(9 - 3);
  });

  it('--threshold needs --cluster and a confidence above 0', () => {
    const out = path.join(dir, 'never.csv');
    const base = ['--left', left, '--id', 'Case No', '--name', 'Suspect', '--dob', 'Born', '--out', out];
    expect(run(...base, '--threshold', '50').err).toMatch(/--threshold goes with --cluster/);
    expect(run(...base, '--cluster', '--threshold', '0').err).toMatch(/--threshold must be a number above 0/);
    expect(run(...base, '--cluster', '--threshold', '0').code).toBe(2);
  });

  it('reads given name, surname and a date in three columns', () => {
    const l = file('parts.csv', 'id,first,last,y,m,d\n1,Anna,Berg,1980,1,2\n2,Berg,Anna,1980,01,02\n3,Anna,Berg,,,\n');
    const out = path.join(dir, 'parts-out.csv');
    const r = run(
      '--left',
      l,
      '--id',
      'id',
      '--given',
      'first',
      '--surname',
      'last',
      '--dob-year',
      'y',
      '--dob-month',
      'm',
      '--dob-day',
      'd',
      '--out',
      out,
    );
    expect(r.code, r.err).toBe(0);
    const rows = readPairs(out).slice(1);
    expect(rows[0]).toEqual(['1', '2', '100.00']);
    expect(rows.map((x) => `${x[0]}-${x[1]}`).sort()).toEqual(['1-2', '1-3', '2-3']);
  });

  it('reads month-first dates when the values show it, and whole numbers written as decimals', () => {
    const l = file('us.csv', 'id,name,dob\n1,Anna Berg,03/04/1980\n2,Anna Berg,1980-03-04\n3,Tom Lee,12/25/1990\n');
    const out = path.join(dir, 'us-out.csv');
    const r = run('--left', l, '--id', 'id', '--name', 'name', '--dob', 'dob', '--out', out);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('read as MM/DD/YYYY (auto)');
    expect(readPairs(out)[1]).toEqual(['1', '2', '100.00']);
    const parts = file('floats.csv', 'id,name,y,m,d\n1,Anna Berg,1980.0,3.0,4.0\n2,Anna Berg,1980,3,4\n');
    const partsOut = path.join(dir, 'floats-out.csv');
    const p = run(
      ...['--left', parts, '--id', 'id', '--name', 'name', '--out', partsOut],
      ...['--dob-year', 'y', '--dob-month', 'm', '--dob-day', 'd'],
    );
    expect(p.code, p.err).toBe(0);
    expect(readPairs(partsOut)[1]).toEqual(['1', '2', '100.00']);
  });

  it('reads files separated by semicolons or tabs', () => {
    const semi = file('semi.csv', 'id;name;dob\n1;"Berg; Anna";1980-03-04\n2;Anna Berg;04.03.1980\n');
    const tabs = file('tabs.tsv', 'id\tname\tdob\n7\tAnna Berg\t1980-03-04\n');
    const out = path.join(dir, 'semi-out.csv');
    expect(run('--left', semi, '--id', 'id', '--name', 'name', '--dob', 'dob', '--out', out).code).toBe(0);
    expect(readPairs(out)[1]).toEqual(['1', '2', '100.00']);
    const both = run('--left', semi, '--right', tabs, '--id', 'id', '--name', 'name', '--dob', 'dob', '--out', out);
    expect(both.code, both.err).toBe(0);
    expect(readPairs(out).slice(1)).toEqual([
      ['1', '7', '100.00'],
      ['2', '7', '100.00'],
    ]);
  });

  it('honours --dob-format mdy', () => {
    const l = file('mdy.csv', 'id,name,dob\n1,Anna Berg,03/04/1980\n2,Anna Berg,1980-03-04\n');
    const out = path.join(dir, 'mdy-out.csv');
    expect(
      run('--left', l, '--id', 'id', '--name', 'name', '--dob', 'dob', '--dob-format', 'mdy', '--out', out).code,
    ).toBe(0);
    expect(readPairs(out)[1]).toEqual(['1', '2', '100.00']);
  });

  it('fails with exit code 2 naming a missing column or file', () => {
    const out = path.join(dir, 'never.csv');
    const missingColumn = run('--left', left, '--id', 'Case No', '--name', 'Name', '--dob', 'Born', '--out', out);
    expect(missingColumn.code).toBe(2);
    expect(missingColumn.err).toContain('column "Name" (--name) not found');
    expect(missingColumn.err).toContain('"Suspect"');
    const missingRightColumn = run(
      '--left',
      left,
      '--right',
      file('r2.csv', 'Case No,Suspect\nB1,x\n'),
      '--id',
      'Case No',
      '--name',
      'Suspect',
      '--dob',
      'Born',
      '--out',
      out,
    );
    expect(missingRightColumn.code).toBe(2);
    expect(missingRightColumn.err).toContain('column "Born" (--dob) not found');
    const missingFile = run(
      '--left',
      path.join(dir, 'nope.csv'),
      '--id',
      'x',
      '--name',
      'y',
      '--dob',
      'z',
      '--out',
      out,
    );
    expect(missingFile.code).toBe(2);
    expect(missingFile.err).toContain('nope.csv');
    expect(run('--left', left, '--id', 'Case No', '--dob', 'Born', '--out', out).code).toBe(2);
    expect(run('--left', left, '--bogus').code).toBe(2);
  });

  it('runs as a command: bin/link-csv --help and a small link', () => {
    const bin = fileURLToPath(new URL('../../bin/link-csv', import.meta.url));
    const help = spawnSync(bin, ['--help'], { encoding: 'utf8' });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: link-csv');
    const out = path.join(dir, 'cli.csv');
    const r = spawnSync(
      bin,
      [
        '--left',
        left,
        '--right',
        right,
        '--id',
        'Case No',
        '--name',
        'Suspect',
        '--dob',
        'Born',
        '--out',
        out,
        '--min',
        '90',
      ],
      {
        encoding: 'utf8',
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(
      readPairs(out)
        .slice(1)
        .map((x) => `${x[0]}-${x[1]}`),
    ).toEqual(expect.arrayContaining(['A1-B1', 'A4-B1', 'A2-B2']));
  });
});
