// `npm run links:audit`: installs the npm packages first when needed (scripts/bootstrap.mjs), then
// lists the stored links the disclosure rule would not make today (links-audit.ts).
import { runTypeScript } from '../../../scripts/bootstrap.mjs';

await runTypeScript('services/linking/bin/links-audit.ts');
