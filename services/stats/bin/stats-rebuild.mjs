// `npm run stats:rebuild`: installs the npm packages first when needed (scripts/bootstrap.mjs), then
// rebuilds the stats read model from the RECORDS stream (stats-rebuild.ts).
import { runTypeScript } from '../../../scripts/bootstrap.mjs';

await runTypeScript('services/stats/bin/stats-rebuild.ts');
