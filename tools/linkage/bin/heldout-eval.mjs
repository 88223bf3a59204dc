// `npm run linkage:heldout`: installs the npm packages first when needed (scripts/bootstrap.mjs),
// then runs the evaluation of the linking scorer on the held-out synthetic sets (heldout-eval.ts).
import { runTypeScript } from '../../../scripts/bootstrap.mjs';

await runTypeScript('tools/linkage/bin/heldout-eval.ts');
