/**
 * The screen tests' hand on the page's calls: watch them (method and path), hold them until
 * released (to see a busy state a fast answer would hide), or make some fail as a browser's do
 * when nothing answers. Every call not failed still goes to the real gateway.
 */

function pathOf(input: RequestInfo | URL): string {
  return new URL(String(input instanceof Request ? input.url : input), window.location.href).pathname;
}

function methodOf(input: RequestInfo | URL, init?: RequestInit): string {
  return init?.method ?? (input instanceof Request ? input.method : 'GET');
}

/** Puts `wrap` in front of fetch until `restore`. */
function replaceFetch(
  wrap: (call: { method: string; path: string }, forward: () => Promise<Response>) => Promise<Response>,
) {
  const original = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
    wrap({ method: methodOf(input, init), path: pathOf(input) }, () => original(input, init))) as typeof fetch;
  return () => {
    globalThis.fetch = original;
  };
}

/** Records every call as "METHOD /path" and, with `hold`, keeps them waiting until `release()`. */
export function holdFetch({ hold }: { hold: boolean }) {
  const requests: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  if (!hold) release();
  const restore = replaceFetch(async (call, forward) => {
    requests.push(`${call.method} ${call.path}`);
    await gate;
    return forward();
  });
  return { requests, release: () => release(), restore };
}

/** Makes the calls to the paths `cut` picks fail with a TypeError ("Failed to fetch"). */
export function failFetch(cut: (path: string) => boolean) {
  const failed: string[] = [];
  const restore = replaceFetch(async (call, forward) => {
    if (!cut(call.path)) return forward();
    failed.push(call.path);
    throw new TypeError('Failed to fetch');
  });
  return { failed, restore };
}
