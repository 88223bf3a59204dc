// Writes a synthetic person CSV for timing link-csv (make-test-csv.ts).
import { runTypeScript } from '../../../scripts/bootstrap.mjs';

await runTypeScript('tools/linkage/bin/make-test-csv.ts');
