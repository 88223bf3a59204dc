/**
 * The one list of module-federation shared dependencies, used by the shell and every remote, so
 * that each of these is one instance in the browser however many apps import it (two copies of
 * React, the router or the query client would break hooks and context).
 *
 * antd is shared through `@nrad/shared` (the components the shell's own screens need) and
 * `@nrad/shared/ui` (the rest, loaded with the first remote that uses one): apps import antd only
 * from there (a lint rule forbids importing 'antd' elsewhere). Sharing the `antd` package itself
 * would send all of it — 450 KB gzip — to every visitor, because a shared module cannot be
 * tree-shaken; these two re-export only what NRAD uses, and as singletons built together they
 * still give one antd, one theme and one toast queue (ADR 0008). The router is wouter (2 KB)
 * rather than React Router (60 KB gzip, whole, once shared).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Packages that must be one instance across the shell and the remotes. */
export const SINGLETONS = [
  'react',
  'react/jsx-runtime',
  'react-dom',
  'react-dom/client',
  'wouter',
  '@tanstack/react-query',
  '@nrad/shared',
  '@nrad/shared/ui',
  '@nrad/contracts',
] as const;

/** `@nrad/shared` and its UI half: remotes always take the shell's, never a copy of their own. */
export const FROM_SHELL_ONLY = ['@nrad/shared', '@nrad/shared/ui'] as const;

export interface SharedDependency {
  singleton: true;
  requiredVersion: string;
  /** Loaded with the app's first chunk instead of on demand (never: async bootstrap loads them). */
  eager: false;
  /** false: the app bundles no copy and uses the shell's (remotes, for FROM_SHELL_ONLY). */
  import?: false;
}

/** The installed version of a package: its package.json in the nearest node_modules above `fromDir`. */
function installedVersion(name: string, fromDir: string): string {
  const root = name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : name.split('/')[0]!;
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'node_modules', root, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    if (path.dirname(dir) === dir) throw new Error(`${root} is not installed (needed by ${fromDir})`);
  }
}

/**
 * The `shared` option of the federation plugin for an app in `appDir`: every singleton at the
 * version installed, accepting any later version with the same major (`^x.y.z`). A remote bundles
 * no `@nrad/shared` of its own: two copies of it would mean two antd instances (two themes, two
 * toast queues), so it always uses the shell's.
 */
export function sharedDependencies(appDir: string, kind: 'host' | 'remote'): Record<string, SharedDependency> {
  return Object.fromEntries(
    SINGLETONS.map((name) => {
      const dependency: SharedDependency = {
        singleton: true,
        requiredVersion: `^${installedVersion(name, appDir)}`,
        eager: false,
      };
      if (kind === 'remote' && (FROM_SHELL_ONLY as readonly string[]).includes(name)) dependency.import = false;
      return [name, dependency];
    }),
  );
}
