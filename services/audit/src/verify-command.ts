import { connectMongo, loadConfig } from '@nrad/service-kit';
import type { Connection } from 'mongoose';
import type { z } from 'zod';
import { AuditConfigSchema } from './config.ts';
import { AuditStore } from './data/store.ts';
import type { ChainReport } from './domain/chain.ts';

/** What the verification reads from the environment: the service's database. */
const VerifyConfigSchema = AuditConfigSchema.pick({ MONGO_URL: true, MONGO_DB: true });
export type VerifyConfig = z.output<typeof VerifyConfigSchema>;

export const VERIFY_USAGE = `usage: audit-verify
Walks the audit trail's hash chain in seq order from its anchor and says whether it holds, or names
the first entry that does not and why. Reads only: it may run while the system runs.
Reads MONGO_URL and MONGO_DB (default nrad_audit) as the audit service does.`;

/** Walks the chain of the audit database on `db`, reading only (no collection or index is created). */
export function verifyChain(db: Connection): Promise<ChainReport> {
  return new AuditStore(db, { readOnly: true }).verify();
}

/** What the command prints for a report, and its exit code (0 the chain holds, 1 it does not). */
export function describeReport(report: ChainReport, dbName: string): { lines: string[]; code: number } {
  const checked = `${report.checked} ${report.checked === 1 ? 'entry' : 'entries'} checked in ${dbName}`;
  if (!report.broken) {
    const to = report.checked === 0 ? '' : ` (up to seq ${report.last.seq})`;
    return { lines: [`${checked}: the chain holds${to}.`], code: 0 };
  }
  return {
    lines: [
      `${checked}: the chain does not hold.`,
      `First broken entry: seq ${report.broken.seq}: ${report.broken.reason}.`,
    ],
    code: 1,
  };
}

/**
 * The verify command: parses the arguments and the environment, connects, verifies and reports
 * through `say`. Resolves with the exit code (0 the chain holds, 1 it does not or the check
 * failed, 2 bad usage).
 */
export async function verifyCommand(
  env: Record<string, string | undefined>,
  args: readonly string[],
  say: (line: string) => void,
): Promise<number> {
  if (args.length > 0) {
    say(VERIFY_USAGE);
    return args.every((a) => a === '--help' || a === '-h') ? 0 : 2;
  }
  let db: Connection | undefined;
  try {
    const config = loadConfig(VerifyConfigSchema, env);
    db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
    const { lines, code } = describeReport(await verifyChain(db), config.MONGO_DB);
    for (const line of lines) say(line);
    return code;
  } catch (err) {
    say(`audit-verify: ${(err as Error).message}`);
    return 1;
  } finally {
    await db?.close();
  }
}
