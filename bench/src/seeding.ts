import { performance } from 'node:perf_hooks';
import { AGENCY_CODES, type Agency, type RecordInput } from '@nrad/contracts';
import { newRecordDoc, type RecordDoc } from '@nrad/records-service/storage';
import { Types } from 'mongoose';
import { type Random, recordBody, recordInput } from './seed.ts';

const SEED_BATCH = 1000;
const DAY_MS = 86_400_000;
/** Seeded records are created over this span before the run (so "newest first" sorts real history). */
const SEED_SPAN_MS = 3 * 365 * DAY_MS;
/** Records kept in memory per run to draw query values from. */
const SAMPLES = 3000;

/** One agency's share of the seeded records. */
export interface SeededAgency {
  agency: Agency;
  /** The user the agency's records are created by. */
  createdById: string;
  /** Its records that are not deleted. */
  ids: string[];
  /** Some of its records that are not deleted (with ids), to take query values from. */
  samples: Array<RecordInput & { id: string }>;
  /** Its records seeded as deleted (see `SeedOptions.deletedShare`); filled in when there are any. */
  deleted?: string[];
}

/** One owner per agency for records seeded before anyone signs in (a creator who never does). */
export function unsignedOwners(): SeededAgency[] {
  return AGENCY_CODES.map((agency) => ({
    agency,
    createdById: new Types.ObjectId().toHexString(),
    ids: [],
    samples: [],
  }));
}

export interface Seeding {
  seconds: number;
  perSecond: number;
}

export interface SeedOptions {
  /**
   * The share of records seeded as deleted (0 to 1, default 0), drawn at random per record: as the
   * service leaves a record it deleted (`deleted`, `deletedAt` some time after its creation,
   * `deletedById` its agency's user, the version after the change). With 0 no draw is made, so the
   * records of a seed stay those of earlier runs.
   */
  deletedShare?: number;
  /** Draws each record's suspect (name and date of birth) instead of recordBody's (the island's people). */
  person?: (rng: Random) => { suspectName: string; suspectDob: string };
}

/**
 * Builds `n` records, spread evenly over `owners` and created over the last three years, each by
 * the records service's own `newRecordDoc` from an input its schema accepts, and hands them to
 * `write` in batches of a thousand; the next batch is built while the previous one is written.
 */
export async function seedRecords(
  owners: SeededAgency[],
  n: number,
  rng: Random,
  log: (line: string) => void,
  write: (docs: RecordDoc[]) => Promise<unknown>,
  options: SeedOptions = {},
): Promise<Seeding> {
  const now = Date.now();
  const start = now - SEED_SPAN_MS;
  const deletedShare = options.deletedShare ?? 0;
  const sampleEvery = Math.max(1, Math.floor(n / SAMPLES));
  const started = performance.now();
  let pending: Promise<unknown> = Promise.resolve();
  let batch: RecordDoc[] = [];
  let written = 0;
  const flush = async () => {
    await pending;
    const docs = batch;
    batch = [];
    pending = write(docs).then(() => {
      const before = written;
      written += docs.length;
      const step = Math.max(SEED_BATCH, Math.ceil(n / 10 / SEED_BATCH) * SEED_BATCH);
      if (Math.floor(written / step) > Math.floor(before / step) || written === n) {
        const seconds = (performance.now() - started) / 1000;
        log(`  ${written.toLocaleString('en-US')} / ${n.toLocaleString('en-US')} (${Math.round(written / seconds)}/s)`);
      }
    });
    pending.catch(() => {}); // a failed write is thrown by the next await of `pending`
    // Let the driver send the batch before the loop builds the next one.
    await new Promise((resolve) => setImmediate(resolve));
  };
  for (let i = 0; i < n; i++) {
    const owner = owners[i % owners.length] as SeededAgency;
    const createdAt = new Date(start + ((i + rng.next()) * SEED_SPAN_MS) / n);
    const seq = String(Math.floor(i / owners.length) + 1).padStart(6, '0');
    const body = recordBody(rng, owner.agency, seq, createdAt);
    if (options.person) Object.assign(body, options.person(rng));
    const input = recordInput(body);
    const doc = newRecordDoc(input, { organization: owner.agency, createdById: owner.createdById }, createdAt);
    const id = doc._id.toHexString();
    if (deletedShare > 0 && rng.chance(deletedShare)) {
      // Only the deleted records get the deletion fields (the others are exactly newRecordDoc's).
      const deletedAt = new Date(createdAt.getTime() + rng.next() * (now - createdAt.getTime()));
      const deletedById = new Types.ObjectId(owner.createdById);
      batch.push({ ...doc, deleted: true, deletedAt, deletedById, version: doc.version + 1, updatedAt: deletedAt });
      owner.deleted ??= [];
      owner.deleted.push(id);
    } else {
      owner.ids.push(id);
      if (Math.floor(i / owners.length) % sampleEvery === 0) owner.samples.push({ ...input, id });
      batch.push(doc);
    }
    if (batch.length === SEED_BATCH) await flush();
  }
  if (batch.length) await flush();
  await pending;
  const seconds = (performance.now() - started) / 1000;
  return { seconds, perSecond: n / seconds };
}
