// The e2e project's setup file (vitest.config.ts), run before each journey file.
import { screenshotFailures } from './web-stack.ts';

screenshotFailures();
