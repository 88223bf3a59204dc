import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { z } from 'zod';
import { REPO_ROOT } from '../src/paths.ts';
import { SERVICES } from '../src/system.ts';

/** Every deployable: each folder under services/ with a src/main.ts, and the gateway. */
const deployables = [
  ...readdirSync(path.join(REPO_ROOT, 'services'))
    .filter((name) => existsSync(path.join(REPO_ROOT, 'services', name, 'src', 'main.ts')))
    .map((name) => ({ name, dir: `services/${name}` })),
  { name: 'gateway', dir: 'gateway' },
];

interface ComposeService {
  build?: { context: string; dockerfile: string };
  image?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
}
const compose = parse(readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};

const prometheus = parse(readFileSync(path.join(REPO_ROOT, 'infra/prometheus/prometheus.yml'), 'utf8')) as {
  scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }>;
};

/** The project's Node (the `node` devDependency that `npm ci` installs; scripts/bootstrap.mjs runs on it). */
const projectNodeVersion = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
).devDependencies.node;

/** Variables a config schema requires (no default, not optional). */
async function requiredVariables(dir: string): Promise<string[]> {
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, dir, 'package.json'), 'utf8')) as {
    exports?: Record<string, string>;
  };
  const configPath = pkg.exports?.['./config'];
  if (!configPath) throw new Error(`${dir}/package.json must export ./config (its config schema)`);
  const mod = (await import(pathToFileURL(path.join(REPO_ROOT, dir, configPath)).href)) as Record<string, unknown>;
  const schema = Object.values(mod).find((v): v is z.ZodObject => typeof v === 'object' && v !== null && 'shape' in v);
  if (!schema) throw new Error(`${dir}: no config schema exported`);
  return Object.entries(schema.shape)
    .filter(([, s]) => !(s as z.ZodType).safeParse(undefined).success)
    .map(([k]) => k);
}

describe('deployables', () => {
  it('are found', () => {
    expect(deployables.map((d) => d.name)).toEqual(expect.arrayContaining(['auth', 'gateway']));
  });

  for (const { name, dir } of deployables) {
    describe(name, () => {
      it('has a Dockerfile that builds and runs its bundle with a health check', () => {
        const file = path.join(REPO_ROOT, dir, 'Dockerfile');
        expect(existsSync(file), `${dir}/Dockerfile`).toBe(true);
        const text = readFileSync(file, 'utf8');
        expect(text).toContain(`npm run build --workspace ${dir}`);
        expect(text).toContain(`"${dir}/dist/main.js"`);
        expect(text).toMatch(/HEALTHCHECK[\s\S]*\/readyz/);
        expect(text).toMatch(/^USER node$/m);
      });

      it("builds and runs on the project's Node, pinned by its full version (ADR 0024)", () => {
        const text = readFileSync(path.join(REPO_ROOT, dir, 'Dockerfile'), 'utf8');
        const images = [...text.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
        expect(images.length).toBeGreaterThan(0);
        for (const image of images) expect(image).toBe(`node:${projectNodeVersion}-bookworm-slim`);
      });

      it('has a docker-compose entry built from that Dockerfile, health-checked, after its dependencies', async () => {
        const service = compose.services[name];
        expect(service, `docker-compose service "${name}"`).toBeDefined();
        expect(service?.build).toEqual({ context: '.', dockerfile: `${dir}/Dockerfile` });
        expect(service?.healthcheck?.test.join(' ')).toContain('/readyz');
        for (const [dep, how] of Object.entries(service?.depends_on ?? {})) {
          expect(compose.services[dep], `dependency ${dep}`).toBeDefined();
          expect(how.condition).toBe('service_healthy');
          expect(compose.services[dep]?.healthcheck).toBeDefined();
        }
        const env = service?.environment ?? {};
        for (const variable of await requiredVariables(dir)) {
          expect(env, `${name} needs ${variable} in docker-compose.yml`).toHaveProperty(variable);
        }
      });

      it('is scraped by Prometheus on its internal metrics port', () => {
        const targets = prometheus.scrape_configs.flatMap((c) => c.static_configs.flatMap((x) => x.targets));
        const env = compose.services[name]?.environment ?? {};
        const port = name === 'gateway' ? env.METRICS_PORT : env.PORT;
        expect(targets).toContain(`${name}:${port}`);
        expect(compose.services.prometheus?.volumes).toContain(
          './infra/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro',
        );
      });

      if (name !== 'gateway') {
        it('is started by npm start, and the gateway is told where it is', () => {
          expect(SERVICES.map((s) => s.name)).toContain(name);
          expect(compose.services.gateway?.environment).toHaveProperty(`${name.toUpperCase()}_URL`);
        });
      }
    });
  }
});
