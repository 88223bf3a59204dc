// `npm start`: installs what is missing, builds, and runs the whole system on embedded defaults until
// Ctrl-C. Honors GATEWAY_PORT, GATEWAY_HOST, ADMIN_EMAIL, ADMIN_PASSWORD, NRAD_DATA_DIR and, to use
// servers of your own, MONGO_URL, NATS_URL, REDIS_URL; for reports written by a model, OPENAI_MODEL,
// OPENAI_API_KEY and OPENAI_BASE_URL; the budget of incident numbers held by other agencies,
// INCIDENT_PROBE_LIMIT and INCIDENT_PROBE_WINDOW_MINUTES.
import path from 'node:path';
import { dataDir, REPO_ROOT } from '../paths.ts';
import { prepareLocalSystem } from '../prepare.ts';
import { startSystem } from '../system.ts';

const env = process.env;
const say = (line: string) => console.log(line);

try {
  prepareLocalSystem(env, say);

  const dir = dataDir(env);
  const system = await startSystem({
    dataDir: dir,
    gatewayPort: Number(env.GATEWAY_PORT || 8080),
    gatewayHost: env.GATEWAY_HOST || '127.0.0.1',
    adminEmail: env.ADMIN_EMAIL || 'admin@nrad.local',
    ...(env.ADMIN_PASSWORD ? { adminPassword: env.ADMIN_PASSWORD } : {}),
    ...(env.LOG_LEVEL ? { logLevel: env.LOG_LEVEL } : {}),
    env,
    log: say,
  });

  say('');
  say(`NRAD is up at ${system.url}`);
  say(
    `Sign in as admin: ${system.admin.email} / ${system.admin.password}` +
      (system.admin.generated
        ? `  (generated once; kept in ${path.relative(REPO_ROOT, path.join(dir, 'secrets.json'))})`
        : ''),
  );
  say(
    env.OPENAI_MODEL
      ? `Reports: written by the model ${env.OPENAI_MODEL}${env.OPENAI_BASE_URL ? ` at ${env.OPENAI_BASE_URL}` : ''}`
      : 'Reports: written from a template (no AI model configured; set OPENAI_MODEL, OPENAI_API_KEY or OPENAI_BASE_URL)',
  );
  say(`Data: ${dir}   Logs: ${system.logsDir}   Stop: Ctrl-C`);

  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('\nStopping NRAD...');
    await system.stop();
    say('Stopped.');
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  const crashed = await system.crashed;
  console.error(`\n${crashed.name} stopped unexpectedly. Its last output:\n${crashed.tail()}`);
  await shutdown(1);
} catch (err) {
  console.error(`\nnpm start failed: ${(err as Error).message}`);
  process.exit(1);
}
