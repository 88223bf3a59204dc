// `npm run bench:link-csv`: installs the npm packages first when needed (scripts/bootstrap.mjs),
// then times link-csv on a large generated set (link-csv-bench.ts).
import { runTypeScript } from '../../../scripts/bootstrap.mjs';

await runTypeScript('tools/linkage/bin/link-csv-bench.ts');
