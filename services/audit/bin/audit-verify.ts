// `npm run audit:verify`: walks the audit trail's hash chain and says whether it holds (exit 0) or
// names the first broken entry (exit 1). It only reads, so it runs beside a running system. The
// database is found as stats:rebuild finds it: MONGO_URL (and MONGO_DB) when set; otherwise the
// data of `npm start` (NRAD_DATA_DIR, default .data/): the FerretDB npm start runs on it when it
// runs, else an embedded FerretDB started on it for the check and stopped after.

import { dataMongo } from '@nrad/infra';
import { VERIFY_USAGE, verifyCommand } from '../src/verify-command.ts';

const env = { ...process.env };
const args = process.argv.slice(2);
const stops: Array<() => Promise<unknown>> = [];
try {
  if (args.length > 0) {
    console.log(VERIFY_USAGE);
    process.exit(args.every((a) => a === '--help' || a === '-h') ? 0 : 2);
  }
  if (!env.MONGO_URL) {
    const mongo = await dataMongo(env, 'verify');
    stops.push(mongo.stop);
    env.MONGO_URL = mongo.url;
  }
  process.exitCode = await verifyCommand(env, [], (line) => console.log(line));
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 1;
} finally {
  for (const stop of stops.reverse()) await stop();
}
