#!/usr/bin/env node
// nrad-frontend-build [--watch]: builds the frontend in the current folder (its frontend.config.ts)
// with rspack and module federation; see src/cli.ts.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
