export { defineFrontend, type FrontendDefinition } from './frontend.ts';
export { rspackConfig } from './rspack-config.ts';
export { FROM_SHELL_ONLY, type SharedDependency, SINGLETONS, sharedDependencies } from './shared-deps.ts';
