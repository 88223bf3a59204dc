import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildIfChanged } from './build.ts';

/** A repository of one workspace whose build counts its runs (outside what the build reads). */
function repository(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'nrad-build-'));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  write('package.json', JSON.stringify({ name: 'r', private: true, workspaces: ['app', 'notes'] }));
  write('package-lock.json', '{}');
  write('app/package.json', JSON.stringify({ name: 'app', version: '1.0.0', scripts: { build: 'node build.mjs' } }));
  write(
    'app/build.mjs',
    `import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
mkdirSync('dist', { recursive: true });
writeFileSync('dist/main.js', readFileSync('src/main.ts'));
appendFileSync('../runs', 'x');`,
  );
  write('app/src/main.ts', 'export const a = 1;\n');
  write('app/src/main.test.ts', 'test\n');
  write('notes/package.json', JSON.stringify({ name: 'notes', scripts: { build: "echo 'nothing to build'" } }));
  return root;
}

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe('buildIfChanged', () => {
  it('builds once, then only when something the build reads changed, its output is gone, or when forced', () => {
    const root = repository();
    roots.push(root);
    const said: string[] = [];
    const say = (line: string) => said.push(line);
    const runs = () => readFileSync(path.join(root, 'runs'), 'utf8').length;

    expect(buildIfChanged(say, { root })).toBe(true);
    expect(runs()).toBe(1);
    expect(buildIfChanged(say, { root })).toBe(false);
    expect(said.at(-1)).toBe('Build is up to date (nothing it reads changed since the last build)');

    // A test file is not read by the build; a source file is.
    writeFileSync(path.join(root, 'app/src/main.test.ts'), 'another test\n');
    expect(buildIfChanged(say, { root })).toBe(false);
    writeFileSync(path.join(root, 'app/src/main.ts'), 'export const a = 2;\n');
    expect(buildIfChanged(say, { root })).toBe(true);
    expect(readFileSync(path.join(root, 'app/dist/main.js'), 'utf8')).toContain('a = 2');
    expect(runs()).toBe(2);

    rmSync(path.join(root, 'app/dist'), { recursive: true });
    expect(buildIfChanged(say, { root })).toBe(true);
    expect(buildIfChanged(say, { root, force: true })).toBe(true);
    expect(buildIfChanged(say, { root })).toBe(false);
    expect(runs()).toBe(4);
  });

  it('throws when the build fails, and builds again next time', () => {
    const root = repository();
    roots.push(root);
    writeFileSync(path.join(root, 'app/build.mjs'), 'process.exit(3);\n');
    expect(() => buildIfChanged(() => {}, { root })).toThrow('The build failed; see the output above.');
    expect(() => buildIfChanged(() => {}, { root })).toThrow('The build failed');
  });
});
