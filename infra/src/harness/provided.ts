import type { InfraUrls } from '../stack.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    infra: InfraUrls & { source: 'environment' | 'testcontainers' | 'local processes' };
  }
}
