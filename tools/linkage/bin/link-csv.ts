/** Entry point of bin/link-csv (see src/link-csv/link-csv.ts). */
import { runLinkCsv } from '../src/link-csv/link-csv.ts';

process.exitCode = runLinkCsv(process.argv.slice(2), process.stdout, process.stderr);
