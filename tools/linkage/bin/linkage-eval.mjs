// `npm run linkage:eval`: installs the npm packages first when needed (scripts/bootstrap.mjs), then
// runs the FEBRL 4 evaluation of the linking scorer (linkage-eval.ts).
import { runTypeScript } from '../../../scripts/bootstrap.mjs';

await runTypeScript('tools/linkage/bin/linkage-eval.ts');
