// `npm run stats:rebuild [-- --force]`: rebuilds the stats read model from the RECORDS stream. With
// MONGO_URL and NATS_URL set it uses those servers; otherwise it starts the embedded FerretDB and
// nats-server on the data of `npm start` (NRAD_DATA_DIR, default .data/), which must be stopped.

import path from 'node:path';
import { dataDir, ensureFerretdbBinary, startFerretdb, startNats } from '@nrad/infra';
import { rebuildCommand } from '../src/rebuild-command.ts';

const env = { ...process.env };
const stops: Array<() => Promise<unknown>> = [];
try {
  if (!env.MONGO_URL || !env.NATS_URL) {
    const dir = dataDir(env);
    console.error(`Starting the embedded servers on ${dir} (npm start must be stopped)...`);
    const logs = path.join(dir, 'logs');
    if (!env.MONGO_URL) {
      ensureFerretdbBinary();
      const mongo = await startFerretdb({
        sqliteDir: path.join(dir, 'ferretdb'),
        logFile: path.join(logs, 'ferretdb-rebuild.log'),
      });
      stops.push(() => mongo.process.stop());
      env.MONGO_URL = mongo.url;
    }
    if (!env.NATS_URL) {
      const nats = await startNats({ storeDir: path.join(dir, 'nats'), logFile: path.join(logs, 'nats-rebuild.log') });
      stops.push(() => nats.process.stop());
      env.NATS_URL = nats.url;
    }
  }
  process.exitCode = await rebuildCommand(env, process.argv.slice(2), (line) => console.log(line));
} finally {
  for (const stop of stops.reverse()) await stop();
}
