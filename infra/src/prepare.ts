import { spawnSync } from 'node:child_process';
import { ensureFerretdbBinary } from './ferretdb.ts';
import { REPO_ROOT } from './paths.ts';
import { givenUrls } from './stack.ts';
import { ensureDebianPackages, SERVER_PACKAGES } from './system-packages.ts';

/**
 * What `npm start` and the benchmarks do before starting the system: install the Debian servers
 * and build the FerretDB binary unless the environment names servers of its own, then build every
 * deployable. Throws when the build fails.
 */
export function prepareLocalSystem(env: NodeJS.ProcessEnv, say: (line: string) => void): void {
  const given = givenUrls(env);
  if (!given.natsUrl || !given.redisUrl) {
    ensureDebianPackages(
      SERVER_PACKAGES.filter((p) => (p.command === 'nats-server' ? !given.natsUrl : !given.redisUrl)),
    );
  }
  if (!given.mongoUrl) ensureFerretdbBinary();
  say('Building...');
  const build = spawnSync('npm', ['run', 'build', '--workspaces', '--if-present', '--silent'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (build.status !== 0) throw new Error('The build failed; see the output above.');
}
