import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';

/**
 * What a slow, deterministic suite passed on, committed beside what it checks (ADR 0021): FerretDB's
 * Go tests (infra/ferretdb/go-tests.json) and the differential comparison
 * (infra/ferretdb/differential.json). While its inputs — a digest of everything the result depends
 * on — are unchanged, the suite is not run again: each of its tests checks the record instead (one
 * test or the other, never a skipped one). Any change to the inputs runs it, in CI too, and a whole
 * pass rewrites the record, to be committed with the change.
 */
export interface PassRecord<Details> {
  inputs: string;
  /** What the suite says of its pass (packages tested, operations compared, …). */
  details: Details;
  passedAt: string;
}

export interface PassRecordFile<Details> {
  /** Whether the suite runs: no record, a record of other inputs, or asked to. */
  readonly again: boolean;
  /** The record's details, after checking (as an assertion) that it is of these inputs. */
  expectPassed(): Details;
  /** Writes the record of a whole pass on these inputs. */
  write(details: Details): void;
}

/** The record in `file` of a pass on `inputs`; `runAnyway` (an environment switch) runs the suite regardless. */
export function passRecord<Details>(file: string, inputs: string, runAnyway: boolean): PassRecordFile<Details> {
  const record = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as PassRecord<Details>) : undefined;
  return {
    again: runAnyway || record?.inputs !== inputs,
    expectPassed() {
      expect(record?.inputs, `${file} is of other inputs: run the suite again`).toBe(inputs);
      return (record as PassRecord<Details>).details;
    },
    write(details) {
      const passed: PassRecord<Details> = { inputs, details, passedAt: new Date().toISOString() };
      writeFileSync(file, `${JSON.stringify(passed, null, 2)}\n`);
    },
  };
}
