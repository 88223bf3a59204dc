// `npm run links:audit` (issue 34): lists the stored links that the disclosure rule would not make
// today (links-audit.ts). Reads only, so it runs beside a running system. The database is found as
// audit:verify finds it: MONGO_URL (and MONGO_DB, default nrad_linking) when set; otherwise the
// data of `npm start` (NRAD_DATA_DIR, default .data/). DISCLOSURE_THRESHOLD as the service reads it.
import { dataMongo } from '@nrad/infra';
import { connectMongo, loadConfig } from '@nrad/service-kit';
import { z } from 'zod';
import { disclosureThreshold, linkingDb, linkThreshold, reviewThreshold, reviewThresholdOf } from '../src/config.ts';
import { auditLinks, describeLinksAudit } from '../src/links-audit.ts';

const USAGE = `usage: links-audit
Scores every stored link that is not rejected again on the stored records, as the linking service
scores a manual link today, and lists each one under DISCLOSURE_THRESHOLD (default 50). Changes
nothing. Reads MONGO_URL and MONGO_DB (default nrad_linking), else npm start's data (NRAD_DATA_DIR).`;

const env = { ...process.env };
const stops: Array<() => Promise<unknown>> = [];
try {
  if (process.argv.length > 2) {
    console.log(USAGE);
    process.exit(process.argv.slice(2).every((a) => a === '--help' || a === '-h') ? 0 : 2);
  }
  const mongo = await dataMongo(env, 'audit the links');
  stops.push(mongo.stop);
  const settings = loadConfig(
    z.object({
      MONGO_DB: linkingDb,
      DISCLOSURE_THRESHOLD: disclosureThreshold,
      LINK_THRESHOLD: linkThreshold,
      REVIEW_THRESHOLD: reviewThreshold,
    }),
    env,
  );
  const db = await connectMongo({ url: mongo.url, dbName: settings.MONGO_DB });
  stops.push(() => db.close());
  const report = await auditLinks(db, settings.DISCLOSURE_THRESHOLD, {
    reviewThreshold: reviewThresholdOf(settings),
    linkThreshold: settings.LINK_THRESHOLD,
  });
  for (const line of describeLinksAudit(report, settings.DISCLOSURE_THRESHOLD)) console.log(line);
  process.exitCode = report.failing.length > 0 ? 1 : 0;
} catch (err) {
  console.error(`links-audit: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  for (const stop of stops.reverse()) await stop();
}
