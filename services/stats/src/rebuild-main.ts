// The rebuild command as bundled into the service's image (dist/rebuild.js); see rebuild-command.ts.
import { rebuildCommand } from './rebuild-command.ts';

process.exitCode = await rebuildCommand(process.env, process.argv.slice(2), (line) =>
  process.stdout.write(`${line}\n`),
);
