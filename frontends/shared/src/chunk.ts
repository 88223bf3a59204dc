import { useEffect, useState } from 'react';

/**
 * A part of the code loaded on demand and shown without React.lazy and Suspense. React holds a
 * Suspense boundary's fallback at least 300 ms (its FALLBACK_THROTTLE_MS) before it shows what the
 * boundary waited for, so a chunk read from the browser's cache in milliseconds still cost 300 ms
 * each time a page was opened (issue 38: Record Details' full load went from about 600 to 300 ms
 * without it). `load()` starts the import once (again after a failure); `loaded()` is the module
 * once it is in.
 */
export interface Chunk<T> {
  load(): Promise<T>;
  loaded(): T | undefined;
}

export function chunk<T>(importer: () => Promise<T>): Chunk<T> {
  let value: T | undefined;
  let pending: Promise<T> | undefined;
  return {
    load() {
      pending ??= importer().then(
        (v) => {
          value = v;
          return v;
        },
        (error: unknown) => {
          pending = undefined; // the next attempt asks again
          throw error;
        },
      );
      return pending;
    },
    loaded: () => value,
  };
}

/** Where a chunk a component needs is: loading, loaded (its module), or failed (why), with a retry. */
export type ChunkState<T> =
  | { status: 'loading'; retry: () => void }
  | { status: 'loaded'; value: T; retry: () => void }
  | { status: 'failed'; error: unknown; retry: () => void };

/** The chunk's module for a component: loaded on the first render that needs it (if not already). */
export function useChunk<T>(c: Chunk<T>): ChunkState<T> {
  type Settled = { status: 'loading' } | { status: 'loaded'; value: T } | { status: 'failed'; error: unknown };
  const [state, setState] = useState<Settled>(() => {
    const value = c.loaded();
    return value === undefined ? { status: 'loading' } : { status: 'loaded', value };
  });
  useEffect(() => {
    if (state.status !== 'loading') return;
    let live = true;
    c.load().then(
      (value) => live && setState({ status: 'loaded', value }),
      (error: unknown) => {
        console.error('A part of the screen could not be loaded', error);
        if (live) setState({ status: 'failed', error });
      },
    );
    return () => {
      live = false;
    };
  }, [c, state.status]);
  return { ...state, retry: () => setState({ status: 'loading' }) };
}
