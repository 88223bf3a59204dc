import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { type Chunk, chunk, useChunk } from './chunk.ts';

/** What a component shows for a chunk whose module is a word. */
function Shows({ of }: { of: Chunk<string> }) {
  const state = useChunk(of);
  if (state.status === 'loading') return <p>loading</p>;
  if (state.status === 'failed') {
    return (
      <button type="button" onClick={state.retry}>
        retry after {String(state.error)}
      </button>
    );
  }
  return <p>module {state.value}</p>;
}

/** An importer the test answers by hand. */
function importer() {
  const calls: { resolve: (v: string) => void; reject: (e: unknown) => void }[] = [];
  const load = vi.fn(
    () =>
      new Promise<string>((resolve, reject) => {
        calls.push({ resolve, reject });
      }),
  );
  return { load, calls };
}

describe('chunk', () => {
  it('imports once however many ask, and shows the module as soon as it is in', async () => {
    const imp = importer();
    const c = chunk(imp.load);
    expect(c.loaded()).toBeUndefined();
    const first = c.load();
    expect(c.load()).toBe(first);
    render(<Shows of={c} />);
    expect(screen.getByText('loading')).toBeInTheDocument();
    await act(async () => imp.calls[0]?.resolve('frame'));
    expect(await screen.findByText('module frame')).toBeInTheDocument();
    expect(imp.load).toHaveBeenCalledTimes(1);
    expect(c.loaded()).toBe('frame');
  });

  it('shows a loaded chunk on the first render, with no loading state in between', () => {
    const c = chunk(() => Promise.resolve('map'));
    return c.load().then(() => {
      render(<Shows of={c} />);
      expect(screen.getByText('module map')).toBeInTheDocument();
      expect(screen.queryByText('loading')).toBeNull();
    });
  });

  it('says why it failed, and a retry imports again', async () => {
    const imp = importer();
    const c = chunk(imp.load);
    vi.spyOn(console, 'error').mockImplementation(() => {});
    render(<Shows of={c} />);
    await act(async () => imp.calls[0]?.reject('offline'));
    const retry = await screen.findByRole('button', { name: 'retry after offline' });
    await userEvent.setup().click(retry);
    expect(screen.getByText('loading')).toBeInTheDocument();
    expect(imp.load).toHaveBeenCalledTimes(2);
    await act(async () => imp.calls[1]?.resolve('frame'));
    expect(await screen.findByText('module frame')).toBeInTheDocument();
    vi.restoreAllMocks();
  });
});
