/**
 * The world of the incident map, offline: country shapes from the `world-atlas` package (Natural
 * Earth 1:110m, bundled with the app — NRAD runs on closed networks, so no CDN — plus the listed
 * countries too small for that scale, from the finer files: generated/extra-shapes.json), matched to NRAD's
 * country names through the contracts' ISO lookup (name → alpha-3 → the numeric id world-atlas
 * uses), and SPEC §9's projection.
 */
import { COUNTRIES } from '@nrad/contracts';
import { geoEqualEarth } from 'd3-geo';
import type { FeatureCollection, Geometry } from 'geojson';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import atlas from 'world-atlas/countries-110m.json';
import extra from './generated/extra-shapes.json';
import { numericIdOf } from './world-ids.ts';

/** SPEC §9: the map is 800 × 403, rotated −10°, at scale 120. */
export const MAP_WIDTH = 800;
export const MAP_HEIGHT = 403;
export const MAP_ROTATION = -10;
export const MAP_SCALE = 120;

export { numericIdOf };

export type CountryShapes = FeatureCollection<Geometry, { name: string }>;

/**
 * Every country shape, each named as NRAD names the country when it is in NRAD's list (so the
 * counts, which carry NRAD's names, land on their shapes), else as world-atlas names it.
 */
export function countryShapes(): CountryShapes {
  const byId = new Map<string, string>();
  for (const name of COUNTRIES) {
    const id = numericIdOf(name);
    if (id) byId.set(id, name);
  }
  const topology = atlas as unknown as Topology<{ countries: GeometryCollection<{ name: string }> }>;
  const shapes = feature(topology, topology.objects.countries) as CountryShapes;
  return {
    ...shapes,
    features: [...shapes.features, ...(extra as CountryShapes).features].map((f) => ({
      ...f,
      properties: { name: byId.get(String(f.id)) ?? f.properties.name },
    })),
  };
}

/** SPEC §9's projection (Equal Earth, rotated −10°, scale 120, centred in 800 × 403). */
export function mapProjection() {
  const projection = geoEqualEarth()
    .rotate([MAP_ROTATION, 0])
    .scale(MAP_SCALE)
    .translate([MAP_WIDTH / 2, MAP_HEIGHT / 2]);
  return {
    project: (point: number[]) => projection(point as [number, number]) ?? [0, 0],
    unproject: (point: number[]) => projection.invert?.(point as [number, number]) ?? [0, 0],
    stream: projection.stream,
  };
}
