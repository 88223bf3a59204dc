// Estimates the scorer's weights on FEBRL 1–3 and checks the default threshold (linkage-tune.ts).
import { runTypeScript } from '../../../scripts/bootstrap.mjs';

await runTypeScript('tools/linkage/bin/linkage-tune.ts');
