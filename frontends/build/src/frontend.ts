/** What a frontend app declares in its `frontend.config.ts` (read by `nrad-frontend-build`). */
export interface FrontendDefinition {
  /** Federation name: `shell`, or the remote's name as listed in the gateway's manifest. */
  readonly name: string;
  /** The host (the shell) or a remote. */
  readonly kind: 'host' | 'remote';
  /** Remotes only: exposed module name → source file (e.g. `'./Settings': './src/Settings.tsx'`). */
  readonly exposes?: Readonly<Record<string, string>>;
  /** The host only: the page title. */
  readonly title?: string;
}

export function defineFrontend(definition: FrontendDefinition): FrontendDefinition {
  if (definition.kind === 'remote' && !definition.exposes)
    throw new Error(`${definition.name}: a remote exposes modules`);
  if (!/^[a-z][a-z0-9-]*$/.test(definition.name)) throw new Error(`${definition.name}: names are lower-case words`);
  return definition;
}
