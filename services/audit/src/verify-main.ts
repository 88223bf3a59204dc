// The verify command as bundled into the service's image (dist/verify.js); see verify-command.ts.
import { verifyCommand } from './verify-command.ts';

process.exitCode = await verifyCommand(process.env, process.argv.slice(2), (line) => process.stdout.write(`${line}\n`));
