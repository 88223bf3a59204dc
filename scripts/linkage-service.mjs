// `npm run linkage:service`: a labelled person set through the running service (see README.md "Match quality").
import { runTypeScript } from './bootstrap.mjs';

await runTypeScript('bench/linkage.ts');
