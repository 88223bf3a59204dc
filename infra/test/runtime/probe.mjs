// What the bootstrap test runs with a Node that is not the project's (infra/test/bootstrap.test.ts):
// the first step of every script (scripts/bootstrap.mjs), then probe.ts on the Node it chose.
import { runTypeScript } from '../../../scripts/bootstrap.mjs';

await runTypeScript('infra/test/runtime/probe.ts', { announce: process.argv.includes('--announce') });
