/**
 * Writes `src/generated/extra-shapes.json`: the outlines of countries in NRAD's list that the
 * bundled 1:110m world-atlas file leaves out (too small at that scale: Andorra, Tuvalu, ...),
 * taken from world-atlas's 1:50m file or, failing that, its 1:10m one, so every listed country
 * has a shape without bundling the larger files (0.75 and 3.6 MB). Run with `npm run generate:shapes -w frontends/dashboard`; a test fails when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COUNTRIES } from '@nrad/contracts';
import type { Feature, Geometry } from 'geojson';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import { numericIdOf } from '../src/world-ids.ts';

const require = createRequire(import.meta.url);
type Countries = Topology<{ countries: GeometryCollection<{ name: string }> }>;

function featuresOf(file: string): Array<Feature<Geometry, { name: string }>> {
  const topology = JSON.parse(readFileSync(require.resolve(`world-atlas/${file}`), 'utf8')) as Countries;
  return feature(topology, topology.objects.countries).features;
}

// A string path: in a browser-like test environment `URL` is the browser's.
export const GENERATED_PATH = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../src/generated/extra-shapes.json',
);

export function renderExtraShapes(): string {
  const bundled = new Set(featuresOf('countries-110m.json').map((f) => String(f.id)));
  const wanted = new Set(COUNTRIES.map(numericIdOf).filter((id): id is string => id !== undefined && !bundled.has(id)));
  const extra: Array<Feature<Geometry, { name: string }>> = [];
  for (const file of ['countries-50m.json', 'countries-10m.json']) {
    for (const f of featuresOf(file)) {
      if (!wanted.delete(String(f.id))) continue;
      extra.push({ type: 'Feature', id: String(f.id), properties: { name: f.properties.name }, geometry: f.geometry });
    }
  }
  extra.sort((a, b) => String(a.id).localeCompare(String(b.id)));
  return `${JSON.stringify({ type: 'FeatureCollection', features: extra })}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(GENERATED_PATH, renderExtraShapes());
  console.log(`wrote ${GENERATED_PATH}`);
}
