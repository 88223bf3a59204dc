/**
 * Loads a screen from its remote at run time: the gateway's manifest (/mf/remotes.json) says where
 * each remote's `mf-manifest.json` is; the federation runtime registers it and loads the exposed
 * module, with the shell's shared singletons.
 *
 * A failure says why (`RemoteLoadError.reason`), so the fallback can tell the user the truth
 * rather than always blaming the connection.
 */
import { loadRemote, registerRemotes } from '@module-federation/enhanced/runtime';
import { REMOTES_MANIFEST_PATH, RemotesManifestSchema } from '@nrad/contracts';
import { ApiError, throwIfNotOk } from '@nrad/shared';
import type { ComponentType } from 'react';

export const MANIFEST_URL = REMOTES_MANIFEST_PATH;

/**
 * Why a screen could not be loaded:
 * - `network`: nothing answered (offline, the connection failed, the server is unreachable);
 * - `not-deployed`: the gateway answered, and its manifest does not list the remote;
 * - `server`: a server answered with an error (the manifest, or the remote's files: 404/5xx, e.g.
 *   while a remote is being redeployed);
 * - `broken`: every file was delivered, yet the remote did not start or exposes no such screen.
 */
export type LoadFailureReason = 'network' | 'not-deployed' | 'server' | 'broken';

/** A screen that could not be loaded, and why. */
export class RemoteLoadError extends Error {
  override name = 'RemoteLoadError';
  constructor(
    readonly reason: LoadFailureReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Raised when the manifest does not list the remote (not deployed). */
export class RemoteUnavailableError extends RemoteLoadError {
  override name = 'RemoteUnavailableError';
  constructor(message: string) {
    super('not-deployed', message);
  }
}

/** Why loading failed, for any error a load can end with. */
export function failureReason(error: unknown): LoadFailureReason {
  if (error instanceof RemoteLoadError) return error.reason;
  if (offline() || error instanceof TypeError) return 'network'; // what fetch throws when nothing answers
  if (error instanceof ApiError) return 'server';
  return 'broken';
}

const offline = () => typeof navigator !== 'undefined' && navigator.onLine === false;

let manifest: Promise<Map<string, string>> | undefined;
const registered = new Map<string, string>();
const screens = new Map<string, ComponentType>();

async function fetchManifest(): Promise<Map<string, string>> {
  let response: Response;
  try {
    response = await fetch(MANIFEST_URL, { cache: 'no-cache', credentials: 'same-origin' });
  } catch (error) {
    throw new RemoteLoadError('network', `${MANIFEST_URL} could not be fetched`, { cause: error });
  }
  try {
    await throwIfNotOk(response);
    const { remotes } = RemotesManifestSchema.parse(await response.json());
    return new Map(remotes.map((r) => [r.name, r.entry]));
  } catch (error) {
    // An error status, or an answer that is no manifest of remotes: the server's fault either way.
    throw new RemoteLoadError('server', `${MANIFEST_URL} answered with an error`, { cause: error });
  }
}

function remoteEntries(fresh: boolean): Promise<Map<string, string>> {
  if (fresh) manifest = undefined;
  manifest ??= fetchManifest().catch((error: unknown) => {
    manifest = undefined; // the next attempt asks again
    throw error;
  });
  return manifest;
}

/** One request for a remote's file: its answer, or why there is none worth having. */
async function probe(url: string): Promise<Response | 'network' | 'server'> {
  try {
    const response = await fetch(url, { cache: 'no-cache', credentials: 'same-origin' });
    return response.ok ? response : 'server';
  } catch {
    return 'network';
  }
}

/** The URL of the remote entry script a federation manifest names (publicPath "auto": beside it). */
function remoteEntryUrl(federationManifest: unknown, manifestUrl: string): string | undefined {
  const metaData = (federationManifest as { metaData?: Record<string, unknown> } | null)?.metaData;
  const entry = metaData?.remoteEntry as { name?: unknown; path?: unknown } | undefined;
  if (typeof entry?.name !== 'string') return undefined;
  const file = [entry.path, entry.name].filter((part) => typeof part === 'string' && part).join('/');
  const publicPath = typeof metaData?.publicPath === 'string' ? metaData.publicPath : 'auto';
  try {
    const base = new URL(manifestUrl, window.location.href);
    return new URL(file, publicPath === 'auto' ? base : new URL(publicPath, base)).href;
  } catch {
    return undefined;
  }
}

/**
 * Why the runtime could not load a remote whose entry is `entry`. Its errors do not say (a script
 * that fails to load reports no status), so the remote's files are asked for again: no answer is
 * the network, an error status is the server, and files that all arrive mean the remote itself
 * failed to start.
 */
async function diagnose(entry: string): Promise<LoadFailureReason> {
  if (offline()) return 'network';
  const answer = await probe(entry);
  if (typeof answer === 'string') return answer;
  if (!new URL(entry, window.location.href).pathname.endsWith('.json')) return 'broken';
  const script = remoteEntryUrl(await answer.json().catch(() => undefined), entry);
  if (!script) return 'broken';
  const scriptAnswer = await probe(script);
  return typeof scriptAnswer === 'string' ? scriptAnswer : 'broken';
}

/** A screen already loaded (shown at once on a later visit). */
export function loadedScreen(remote: string, module: string): ComponentType | undefined {
  return screens.get(`${remote}/${module}`);
}

/**
 * The React component a remote exposes as `./<module>`. `retry` asks for the manifest again and
 * makes the runtime forget a failed remote entry, so a remote that is back is loaded afresh.
 * Fails with a RemoteLoadError saying why.
 */
export async function loadScreen(remote: string, module: string, retry = false): Promise<ComponentType> {
  const key = `${remote}/${module}`;
  const known = screens.get(key);
  if (known) return known;
  const entries = await remoteEntries(retry);
  const entry = entries.get(remote);
  if (!entry) throw new RemoteUnavailableError(`The ${remote} remote is not deployed`);
  let loaded: { default?: unknown } | null;
  try {
    if (retry || registered.get(remote) !== entry) {
      registerRemotes([{ name: remote, entry }], { force: registered.has(remote) });
      registered.set(remote, entry);
    }
    // The remotes' half of the antd kit, from the shell's build: loaded (and so shared) before the
    // first remote screen, never with the shell's first screen.
    await import('@nrad/shared/ui');
    loaded = await loadRemote<{ default?: unknown }>(key);
  } catch (error) {
    throw new RemoteLoadError(await diagnose(entry), `${key} could not be loaded from ${entry}`, { cause: error });
  }
  const component = loaded?.default;
  if (typeof component !== 'function' && typeof component !== 'object') {
    throw new RemoteLoadError('broken', `${key} is not a screen`);
  }
  screens.set(key, component as ComponentType);
  return component as ComponentType;
}
