import { readFileSync } from 'node:fs';
import { COUNTRIES } from '@nrad/contracts';
import { geoArea, geoPath } from 'd3-geo';
import * as echarts from 'echarts/core';
import { describe, expect, it } from 'vitest';
import { GENERATED_PATH, renderExtraShapes } from '../scripts/extra-shapes.ts';
import {
  incidents,
  LEGEND_TEXTS,
  MAP_MARGIN,
  mapOption,
  NO_DATA_COLOR,
  registerWorld,
  SCALE_COLORS,
} from './WorldMap.tsx';
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

/** The box around every outline echarts draws for the map in a `width` × `height` chart (SVG, rendered here). */
function drawnBox(width: number, height: number) {
  registerWorld();
  const chart = echarts.init(null, undefined, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption(mapOption([{ country: 'Brazil', count: 3 }]) as echarts.EChartsCoreOption);
    const svg = chart.renderToSVGString();
    const box = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
    for (const [, d] of svg.matchAll(/<path d="([^"]*)"/g)) {
      for (const [, x, y] of (d ?? '').matchAll(/[ML](-?[\d.e-]+)[ ,](-?[\d.e-]+)/g)) {
        box.left = Math.min(box.left, Number(x));
        box.right = Math.max(box.right, Number(x));
        box.top = Math.min(box.top, Number(y));
        box.bottom = Math.max(box.bottom, Number(y));
      }
    }
    return box;
  } finally {
    chart.dispose();
  }
}

describe('the map’s option', () => {
  it('shades from #f0f0f0 to red at the maximum, leaves countries without data #f8f9fa, zooms 1–8', () => {
    const option = mapOption([
      { country: 'Brazil', count: 3 },
      { country: 'China', count: 1 },
    ]);
    expect(option.visualMap).toMatchObject({
      min: 0,
      max: 3,
      inRange: { color: [...SCALE_COLORS] },
    });
    // The legend is the page's own, under the map (echarts' would lie on top of the countries).
    expect(option.visualMap.show).toBe(false);
    expect(LEGEND_TEXTS).toEqual({ none: 'No incidents', max: 'Incidents (max)' });
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

  it('draws the whole world, Antarctica included, centred in the box with room at its edges, unstretched', () => {
    const [[x0, y0], [x1, y1]] = geoPath({ stream: mapProjection().stream }).bounds(countryShapes());
    const worldAspect = (x1 - x0) / (y1 - y0);
    // SPEC's size, and the map on a 390-pixel-wide phone (the card leaves it about 294 pixels).
    for (const [width, height] of [
      [MAP_WIDTH, MAP_HEIGHT],
      [294, Math.round((294 * MAP_HEIGHT) / MAP_WIDTH)],
    ] as const) {
      const box = drawnBox(width, height);
      const where = `${width} × ${height}: ${JSON.stringify(box)}`;
      expect(box.left, where).toBeGreaterThanOrEqual(1);
      expect(box.top, where).toBeGreaterThanOrEqual(1);
      expect(box.right, where).toBeLessThanOrEqual(width - 1);
      expect(box.bottom, where).toBeLessThanOrEqual(height - 1);
      expect(Math.abs(box.left - (width - box.right)), where).toBeLessThan(1);
      expect(Math.abs(box.top - (height - box.bottom)), where).toBeLessThan(2);
      // As large as the margins allow, one way or the other, and not stretched to the box.
      const fill = Math.max(
        (box.right - box.left) / (width - 2 * MAP_MARGIN),
        (box.bottom - box.top) / (height - 2 * MAP_MARGIN),
      );
      expect(fill, where).toBeGreaterThan(0.98);
      const aspect = (box.right - box.left) / (box.bottom - box.top);
      expect(Math.abs(aspect / worldAspect - 1), where).toBeLessThan(0.01);
    }
  });

  it('keeps a scale when nothing is counted yet', () => {
    expect(mapOption([]).visualMap.max).toBe(1);
  });
});
