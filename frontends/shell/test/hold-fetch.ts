/**
 * Watches the page's calls, and can hold them until released — the calls themselves still go to
 * the real gateway (to see a busy state, which a fast answer would hide).
 */
export function holdFetch({ hold }: { hold: boolean }) {
  const original = globalThis.fetch;
  const requests: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  if (!hold) release();
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = new URL(String(input instanceof Request ? input.url : input), window.location.href).pathname;
    requests.push(`${init?.method ?? 'GET'} ${path}`);
    await gate;
    return original(input, init);
  }) as typeof fetch;
  return {
    requests,
    release: () => release(),
    restore: () => {
      globalThis.fetch = original;
    },
  };
}
