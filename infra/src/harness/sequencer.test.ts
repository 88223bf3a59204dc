import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { REPO_ROOT } from '../paths.ts';
import { LongestFirstSequencer } from './sequencer.ts';

/** A sequencer whose last-run record gives these seconds (by path from the repository root). */
function sequencer(seconds: Record<string, number>) {
  const ctx = {
    config: { root: REPO_ROOT },
    cache: {
      getTestSpecificationResult: (specification: TestSpecification) => {
        const file = path.relative(REPO_ROOT, specification.moduleId);
        return file in seconds ? { failed: false, duration: (seconds[file] as number) * 1000 } : undefined;
      },
    },
  } as unknown as Vitest;
  return new LongestFirstSequencer(ctx);
}

const spec = (project: string, file: string, isolate = true) =>
  ({
    moduleId: path.join(REPO_ROOT, file),
    project: { name: project, config: { isolate } },
  }) as unknown as TestSpecification;

const names = (specs: TestSpecification[]) => specs.map((s) => path.relative(REPO_ROOT, s.moduleId));

describe('LongestFirstSequencer', () => {
  it('orders files longest first across projects, files without a record last, by name', async () => {
    const order = await sequencer({ 'a/slow.test.ts': 90, 'b/mid.test.ts': 40, 'c/fast.test.ts': 5 }).sort([
      spec('c', 'c/fast.test.ts'),
      spec('x', 'x/unknown2.test.ts'),
      spec('a', 'a/slow.test.ts'),
      spec('x', 'x/unknown1.test.ts'),
      spec('b', 'b/mid.test.ts'),
    ]);
    expect(names(order)).toEqual([
      'a/slow.test.ts',
      'b/mid.test.ts',
      'c/fast.test.ts',
      'x/unknown1.test.ts',
      'x/unknown2.test.ts',
    ]);
  });

  it('keeps the files of a project that is not isolated together, placed by their total', async () => {
    const order = await sequencer({
      'e2e/one.test.ts': 30,
      'e2e/two.test.ts': 50,
      'bench/big.test.ts': 70,
      'svc/small.test.ts': 20,
      'svc/tiny.test.ts': 10,
    }).sort([
      spec('svc', 'svc/tiny.test.ts'),
      spec('e2e', 'e2e/one.test.ts', false),
      spec('bench', 'bench/big.test.ts'),
      spec('svc', 'svc/small.test.ts'),
      spec('e2e', 'e2e/two.test.ts', false),
    ]);
    // e2e: 80 s in all, before the 70 s file; inside it, longest first; nothing comes between.
    expect(names(order)).toEqual([
      'e2e/two.test.ts',
      'e2e/one.test.ts',
      'bench/big.test.ts',
      'svc/small.test.ts',
      'svc/tiny.test.ts',
    ]);
  });
});
