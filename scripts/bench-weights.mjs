// `npm run bench:weights`: the linking service's estimate of r and the weights, on its index alone (see README.md "Benchmarks").
import { runTypeScript } from './bootstrap.mjs';

await runTypeScript('bench/weights.ts');
