// `npm run stats:rebuild [-- --force]`: rebuilds the stats read model from the RECORDS stream. With
// MONGO_URL and NATS_URL set it uses those servers; otherwise it starts the embedded FerretDB and
// nats-server on the data of `npm start` (NRAD_DATA_DIR, default .data/), which must be stopped.

import path from 'node:path';
import {
  dataDir,
  ensureFerretdbBinary,
  loadOrCreateSecrets,
  natsUrlAs,
  processWith,
  startFerretdb,
  startNats,
} from '@nrad/infra';
import { rebuildCommand } from '../src/rebuild-command.ts';

/**
 * A process already serving the data directory (npm start's FerretDB or nats-server). Two servers
 * on one store would damage it.
 */
function serverOn(dir: string): string | undefined {
  const stores = [path.join(dir, 'nats'), path.join(dir, 'ferretdb')];
  const found = processWith((a) => stores.some((store) => a === store || a.endsWith(`=${store}`) || a === `${store}/`));
  return found && `${found.pid} ${found.command}`;
}

const env = { ...process.env };
const args = process.argv.slice(2);
const stops: Array<() => Promise<unknown>> = [];
try {
  // Any argument but --force only gets the usage: no servers needed for that.
  if ((!env.MONGO_URL || !env.NATS_URL) && args.every((a) => a === '--force')) {
    const dir = dataDir(env);
    const running = serverOn(dir);
    if (running) {
      console.error(`A server is running on ${dir} (process ${running}): stop npm start before rebuilding.`);
      process.exit(1);
    }
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
      // With npm start's users (issue 37): the rebuild connects as the operator.
      const passwords = loadOrCreateSecrets(dir).natsPasswords;
      const nats = await startNats({
        storeDir: path.join(dir, 'nats'),
        logFile: path.join(logs, 'nats-rebuild.log'),
        passwords,
      });
      stops.push(() => nats.process.stop());
      env.NATS_URL = natsUrlAs(nats.url, 'operator', passwords.operator);
    }
  }
  process.exitCode = await rebuildCommand(env, args, (line) => console.log(line));
} finally {
  for (const stop of stops.reverse()) await stop();
}
