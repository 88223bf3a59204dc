import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ferretdbSourcesDigest, PATCHED_MODULE_DIR, requirementsOf, writePatchedModule } from '../src/ferretdb.ts';
import { FERRETDB_SOURCE_DIR } from '../src/paths.ts';
import { findCommand } from '../src/system-packages.ts';
import { passRecord } from './pass-record.ts';

/** A copy of its own: the build's copy stays as the binary was built from. */
const COPY = path.join(path.dirname(path.dirname(PATCHED_MODULE_DIR)), 'patched-go-tests', 'FerretDB');
/** The packages whose tests are run. */
const PACKAGES = ['./internal/backends/sqlite/...', './internal/handler/...', './internal/util/fsql/...'];
/**
 * The sources FerretDB's tests last passed on (pass-record.ts, committed): while infra/ferretdb is
 * unchanged, the run is not repeated (it takes minutes on 2 cores); any change to it — a patch, our
 * main package, go.mod — runs them again, in CI too (ADR 0021). `NRAD_FERRETDB_GO_TESTS=always`
 * runs them whatever the record says.
 */
const record = passRecord<{ packages: string[]; go: string }>(
  path.join(FERRETDB_SOURCE_DIR, 'go-tests.json'),
  ferretdbSourcesDigest(),
  process.env.NRAD_FERRETDB_GO_TESTS === 'always',
);

/**
 * FerretDB's own Go tests of the SQLite backend, of the handler and of the SQL wrapper (fsql, where
 * the writers' line is), with ours among them, run on our patched copy of the
 * module (infra/ferretdb/patches.json). The contract tests of `internal/backends` are left out:
 * they need a PostgreSQL server at 127.0.0.1:5432 with a fixed role.
 */
describe("FerretDB's own tests on our build", () => {
  // One test or the other, never a skipped one: the record is checked, or the tests are run.
  if (!record.again) {
    it('passed on exactly these sources (infra/ferretdb/go-tests.json)', () => {
      expect(record.expectPassed().packages).toEqual(PACKAGES);
    });
    return;
  }

  it('pass for the SQLite backend, the handler and the SQL wrapper', () => {
    const go = findCommand('go');
    if (!go) throw new Error('Go is needed (it builds the embedded FerretDB)');
    writePatchedModule(go, COPY);
    // The module's tests read their version from a file its release tooling generates.
    writeFileSync(path.join(COPY, 'build', 'version', 'version.txt'), 'v1.24.2\n');
    // The copy requires the modules our build takes in newer versions than the module's go.mod
    // named (its SQLite; writePatchedModule): the tests run on what the binary is built with.
    const requirements = requirementsOf(go);
    expect(requirements.length).toBeGreaterThan(0);
    // `go vet`'s checks that `go test` runs, but printf: with the module's `go` line at 1.26 (our
    // SQLite's module needs it) it refuses upstream's `%q` of an int64 in msg_createindexes.go, an
    // error message the server sends as it is (changing it would change an answer).
    const vet = '-vet=atomic,bool,buildtags,directive,errorsas,ifaceassert,nilfunc,stringintconv,tests';
    const result = spawnSync(go, ['test', '-count=1', vet, ...PACKAGES], {
      cwd: COPY,
      encoding: 'utf8',
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
      timeout: 600_000,
    });
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.status, output.slice(-4000)).toBe(0);
    expect(output).toMatch(/^ok\s+github\.com\/FerretDB\/FerretDB\/internal\/backends\/sqlite\s/m);
    expect(output).toMatch(/^ok\s+github\.com\/FerretDB\/FerretDB\/internal\/handler\s/m);
    expect(output).toMatch(/^ok\s+github\.com\/FerretDB\/FerretDB\/internal\/util\/fsql\s/m);
    expect(output).not.toMatch(/^FAIL/m);
    for (const requirement of requirements) {
      const [module] = requirement.split('@');
      const listed = spawnSync(go, ['list', '-m', module as string], { cwd: COPY, encoding: 'utf8' });
      expect(listed.stdout.trim().replace(' ', '@'), 'the version the tests ran with').toBe(requirement);
    }
    const version = spawnSync(go, ['env', 'GOVERSION'], { encoding: 'utf8' }).stdout.trim();
    record.write({ packages: PACKAGES, go: version });
  }, 600_000);
});
