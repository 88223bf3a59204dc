import { buildIfChanged } from './build.ts';
import { ensureFerretdbBinary } from './ferretdb.ts';
import { givenUrls } from './stack.ts';
import { ensureDebianPackages, SERVER_PACKAGES } from './system-packages.ts';

/**
 * What `npm start` and the benchmarks do before starting the system: install the Debian servers
 * and build the FerretDB binary unless the environment names servers of its own, then build every
 * deployable unless nothing the build reads changed (build.ts). Throws when the build fails.
 */
export function prepareLocalSystem(env: NodeJS.ProcessEnv, say: (line: string) => void): void {
  const given = givenUrls(env);
  if (!given.natsUrl || !given.redisUrl) {
    ensureDebianPackages(
      SERVER_PACKAGES.filter((p) => (p.command === 'nats-server' ? !given.natsUrl : !given.redisUrl)),
    );
  }
  if (!given.mongoUrl) ensureFerretdbBinary();
  buildIfChanged(say);
}
