/**
 * Loads a screen from its remote at run time: the gateway's manifest (/mf/remotes.json) says where
 * each remote's `mf-manifest.json` is; the federation runtime registers it and loads the exposed
 * module, with the shell's shared singletons.
 */
import { loadRemote, registerRemotes } from '@module-federation/enhanced/runtime';
import { REMOTES_MANIFEST_PATH, RemotesManifestSchema } from '@nrad/contracts';
import { throwIfNotOk } from '@nrad/shared';
import type { ComponentType } from 'react';

export const MANIFEST_URL = REMOTES_MANIFEST_PATH;

/** Raised when the manifest does not list the remote (not deployed), or its module is no screen. */
export class RemoteUnavailableError extends Error {
  override name = 'RemoteUnavailableError';
}

let manifest: Promise<Map<string, string>> | undefined;
const registered = new Map<string, string>();
const screens = new Map<string, ComponentType>();

async function fetchManifest(): Promise<Map<string, string>> {
  const response = await fetch(MANIFEST_URL, { cache: 'no-cache', credentials: 'same-origin' });
  await throwIfNotOk(response);
  const { remotes } = RemotesManifestSchema.parse(await response.json());
  return new Map(remotes.map((r) => [r.name, r.entry]));
}

function remoteEntries(fresh: boolean): Promise<Map<string, string>> {
  if (fresh) manifest = undefined;
  manifest ??= fetchManifest().catch((error: unknown) => {
    manifest = undefined; // the next attempt asks again
    throw error;
  });
  return manifest;
}

/** A screen already loaded (shown at once on a later visit). */
export function loadedScreen(remote: string, module: string): ComponentType | undefined {
  return screens.get(`${remote}/${module}`);
}

/**
 * The React component a remote exposes as `./<module>`. `retry` asks for the manifest again and
 * makes the runtime forget a failed remote entry, so a remote that is back is loaded afresh.
 */
export async function loadScreen(remote: string, module: string, retry = false): Promise<ComponentType> {
  const key = `${remote}/${module}`;
  const known = screens.get(key);
  if (known) return known;
  const entries = await remoteEntries(retry);
  const entry = entries.get(remote);
  if (!entry) throw new RemoteUnavailableError(`The ${remote} remote is not deployed`);
  if (retry || registered.get(remote) !== entry) {
    registerRemotes([{ name: remote, entry }], { force: registered.has(remote) });
    registered.set(remote, entry);
  }
  // The remotes' half of the antd kit, from the shell's build: loaded (and so shared) before the
  // first remote screen, never with the shell's first screen.
  await import('@nrad/shared/ui');
  const loaded = await loadRemote<{ default?: unknown }>(key);
  const component = loaded?.default;
  if (typeof component !== 'function' && typeof component !== 'object') {
    throw new RemoteUnavailableError(`${key} is not a screen`);
  }
  screens.set(key, component as ComponentType);
  return component as ComponentType;
}
