/**
 * SPEC §2 Global Incident Distribution: countries shaded from #f0f0f0 to red at the maximum count,
 * #f8f9fa without data, a legend "No incidents" / "Incidents (max)", name and count on hover, zoom
 * 1–8. echarts with only the parts used (map series, visual map, tooltip) drawn as SVG; the legend
 * is the page's own, under the map, so it never covers a country (on a phone the map is ~300 px wide).
 */
import type { CountryStat } from '@nrad/contracts';
import { Flex, theme } from '@nrad/shared';
import { MapChart } from 'echarts/charts';
import { TooltipComponent, VisualMapComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import { useEffect, useRef } from 'react';
import { countryShapes, MAP_HEIGHT, MAP_WIDTH, mapProjection } from './world.ts';

echarts.use([MapChart, VisualMapComponent, TooltipComponent, SVGRenderer]);

export const NO_DATA_COLOR = '#f8f9fa';
export const SCALE_COLORS = ['#f0f0f0', '#ff0000'] as const;
/** The legend's ends (SPEC §2). */
export const LEGEND_TEXTS = { none: 'No incidents', max: 'Incidents (max)' } as const;
/**
 * Room around the world inside the map's box, in pixels. echarts fits the countries' corner points;
 * the drawn outlines reach a little further (Antarctica's coast along the pole, ~1 px): without room
 * that was cut off at the bottom edge.
 */
export const MAP_MARGIN = 6;
const MAP_NAME = 'nrad-world';

let registered = false;
/** Registers the world's shapes with echarts under the map's name, once (exported for tests). */
export function registerWorld() {
  if (registered) return;
  echarts.registerMap(MAP_NAME, countryShapes() as unknown as Parameters<typeof echarts.registerMap>[1]);
  registered = true;
}

/** "1 incident", "3 incidents". */
export const incidents = (n: number) => `${n} incident${n === 1 ? '' : 's'}`;

/** The map's echarts option for these counts (exported for tests). */
export function mapOption(countries: readonly CountryStat[]) {
  const max = Math.max(1, ...countries.map((c) => c.count));
  return {
    animation: false,
    tooltip: {
      trigger: 'item',
      // Kept inside the map (which hides what overflows it).
      confine: true,
      formatter: (p: { name: string; value?: number }) =>
        `${p.name}: ${incidents(Number.isFinite(p.value) ? (p.value as number) : 0)}`,
    },
    // The colour scale only; its legend is MapLegend, under the map.
    visualMap: {
      type: 'continuous',
      show: false,
      min: 0,
      max,
      inRange: { color: [...SCALE_COLORS] },
    },
    series: [
      {
        type: 'map',
        map: MAP_NAME,
        projection: mapProjection(),
        roam: true,
        scaleLimit: { min: 1, max: 8 },
        // The projected world as large as the box allows, centred, its shape kept (800 × 403 at
        // SPEC's size; without preserveAspect echarts stretches it to the box).
        preserveAspect: 'contain',
        left: MAP_MARGIN,
        right: MAP_MARGIN,
        top: MAP_MARGIN,
        bottom: MAP_MARGIN,
        itemStyle: { areaColor: NO_DATA_COLOR, borderColor: '#bfbfbf', borderWidth: 0.5 },
        emphasis: { label: { show: false }, itemStyle: { areaColor: '#ffd666' } },
        select: { disabled: true },
        data: countries.map((c) => ({ name: c.country, value: c.count })),
      },
    ],
  };
}

export function WorldMap({ countries }: { countries: readonly CountryStat[] }) {
  const element = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);

  useEffect(() => {
    const el = element.current;
    if (!el) return;
    registerWorld();
    // A container without a size yet (hidden, not laid out) gets SPEC's; echarts cannot draw in 0 × 0.
    const size = el.clientWidth > 0 && el.clientHeight > 0 ? {} : { width: MAP_WIDTH, height: MAP_HEIGHT };
    const instance = echarts.init(el, undefined, { renderer: 'svg', ...size });
    chart.current = instance;
    const resize = () => instance.resize();
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      instance.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    chart.current?.setOption(mapOption(countries) as echarts.EChartsCoreOption, true);
  }, [countries]);

  return (
    <div style={{ maxWidth: MAP_WIDTH, margin: '0 auto' }}>
      <div
        ref={element}
        role="img"
        aria-label="World map of incidents by country"
        data-testid="world-map"
        // Hidden overflow: a tooltip echarts left where a wider window had it must not widen the page.
        style={{ width: '100%', aspectRatio: `${MAP_WIDTH} / ${MAP_HEIGHT}`, overflow: 'hidden' }}
      />
      <MapLegend />
    </div>
  );
}

/** The colour scale under the map: "No incidents", the gradient (narrower on a phone), "Incidents (max)". */
function MapLegend() {
  const { token } = theme.useToken();
  return (
    <Flex
      justify="center"
      align="center"
      gap={8}
      data-testid="map-legend"
      style={{ marginTop: 8, color: token.colorTextSecondary, fontSize: token.fontSizeSM, whiteSpace: 'nowrap' }}
    >
      <span>{LEGEND_TEXTS.none}</span>
      <span
        aria-hidden
        style={{
          flex: '0 1 120px',
          minWidth: 32,
          height: 10,
          borderRadius: 2,
          border: `1px solid ${token.colorBorder}`,
          background: `linear-gradient(to right, ${SCALE_COLORS.join(', ')})`,
        }}
      />
      <span>{LEGEND_TEXTS.max}</span>
    </Flex>
  );
}
