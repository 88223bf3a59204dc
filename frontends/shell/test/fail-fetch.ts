/**
 * Makes the page's calls to the paths `cut` picks fail as a browser's do when nothing answers (a
 * TypeError, "Failed to fetch"); every other call still goes to the real gateway.
 */
export function failFetch(cut: (path: string) => boolean) {
  const original = globalThis.fetch;
  const failed: string[] = [];
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = new URL(String(input instanceof Request ? input.url : input), window.location.href).pathname;
    if (cut(path)) {
      failed.push(path);
      throw new TypeError('Failed to fetch');
    }
    return original(input, init);
  }) as typeof fetch;
  return {
    failed,
    restore: () => {
      globalThis.fetch = original;
    },
  };
}
