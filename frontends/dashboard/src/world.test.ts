import { readFileSync } from 'node:fs';
import { COUNTRIES } from '@nrad/contracts';
import { geoArea } from 'd3-geo';
import { describe, expect, it } from 'vitest';
import { GENERATED_PATH, renderExtraShapes } from '../scripts/extra-shapes.ts';
import { incidents, mapOption, NO_DATA_COLOR, SCALE_COLORS } from './WorldMap.tsx';
import { countryShapes, MAP_HEIGHT, MAP_WIDTH, mapProjection, numericIdOf } from './world.ts';

describe('the world of the incident map', () => {
  const shapes = countryShapes();
  const byName = new Map(shapes.features.map((f) => [f.properties.name, f]));

  it('finds a shape for every country NRAD lists, under NRAD’s name', () => {
    const missing = COUNTRIES.filter((name) => {
      const shape = byName.get(name);
      return !shape || geoArea(shape) <= 0;
    });
    expect(missing).toEqual([]);
    expect(COUNTRIES.length).toBeGreaterThan(190);
    // Each country is its own shape (no two names on one outline).
    const ids = COUNTRIES.map((name) => numericIdOf(name));
    expect(new Set(ids).size).toBe(COUNTRIES.length);
  });

  it('takes the countries 1:110m leaves out from the finer files, and that file is current', () => {
    expect(readFileSync(GENERATED_PATH, 'utf8')).toBe(renderExtraShapes());
    expect(byName.get('Tuvalu')?.id).toBe('798');
  });

  it('keeps world-atlas names for places outside the list', () => {
    expect(byName.has('Antarctica')).toBe(true);
    expect(shapes.features.length).toBeGreaterThan(COUNTRIES.length);
  });

  it('projects as SPEC §9 says: 800 × 403, rotated −10°', () => {
    const { project, unproject } = mapProjection();
    // Longitude 10° E is the centre line once rotated by −10°.
    const [x, y] = project([10, 0]) as [number, number];
    expect(x).toBeCloseTo(MAP_WIDTH / 2, 6);
    expect(y).toBeCloseTo(MAP_HEIGHT / 2, 6);
    const [lng, lat] = unproject(project([-64.75, 32.3])) as [number, number]; // Bermuda
    expect(lng).toBeCloseTo(-64.75, 6);
    expect(lat).toBeCloseTo(32.3, 6);
    // The whole world fits the 800-pixel width.
    for (const edge of [-169.9, 189.9]) {
      const px = project([edge, 0])[0] as number;
      expect(px).toBeGreaterThan(0);
      expect(px).toBeLessThan(MAP_WIDTH);
    }
  });
});

describe('the map’s option', () => {
  it('shades from #f0f0f0 to red at the maximum, leaves countries without data #f8f9fa, zooms 1–8', () => {
    const option = mapOption([
      { country: 'Brazil', count: 3 },
      { country: 'China', count: 1 },
    ]);
    expect(option.visualMap).toMatchObject({
      min: 0,
      max: 3,
      text: ['Incidents (max)', 'No incidents'],
      inRange: { color: [...SCALE_COLORS] },
    });
    expect(SCALE_COLORS).toEqual(['#f0f0f0', '#ff0000']);
    const series = option.series[0];
    expect(series?.itemStyle.areaColor).toBe(NO_DATA_COLOR);
    expect(NO_DATA_COLOR).toBe('#f8f9fa');
    expect(series?.scaleLimit).toEqual({ min: 1, max: 8 });
    expect(series?.data).toEqual([
      { name: 'Brazil', value: 3 },
      { name: 'China', value: 1 },
    ]);
  });

  it('writes the tooltip with the name and the count, 0 without data', () => {
    const { formatter } = mapOption([]).tooltip;
    expect(formatter({ name: 'Brazil', value: 3 })).toBe('Brazil: 3 incidents');
    expect(formatter({ name: 'Chad', value: 1 })).toBe('Chad: 1 incident');
    expect(formatter({ name: 'Peru', value: Number.NaN })).toBe('Peru: 0 incidents');
    expect(incidents(0)).toBe('0 incidents');
  });

  it('keeps a scale when nothing is counted yet', () => {
    expect(mapOption([]).visualMap.max).toBe(1);
  });
});
