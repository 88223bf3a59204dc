/**
 * SPEC §2 Global Incident Distribution: countries shaded from #f0f0f0 to red at the maximum count,
 * #f8f9fa without data, a legend "No incidents" / "Incidents (max)", name and count on hover, zoom
 * 1–8. echarts with only the parts used (map series, visual map, tooltip) drawn as SVG.
 */
import type { CountryStat } from '@nrad/contracts';
import { MapChart } from 'echarts/charts';
import { TooltipComponent, VisualMapComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import { useEffect, useRef } from 'react';
import { countryShapes, MAP_HEIGHT, MAP_WIDTH, mapProjection } from './world.ts';

echarts.use([MapChart, VisualMapComponent, TooltipComponent, SVGRenderer]);

export const NO_DATA_COLOR = '#f8f9fa';
export const SCALE_COLORS = ['#f0f0f0', '#ff0000'] as const;
const MAP_NAME = 'nrad-world';

let registered = false;
function registerWorld() {
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
      formatter: (p: { name: string; value?: number }) =>
        `${p.name}: ${incidents(Number.isFinite(p.value) ? (p.value as number) : 0)}`,
    },
    visualMap: {
      type: 'continuous',
      min: 0,
      max,
      text: ['Incidents (max)', 'No incidents'],
      inRange: { color: [...SCALE_COLORS] },
      calculable: false,
      left: 8,
      bottom: 8,
      itemHeight: 90,
    },
    series: [
      {
        type: 'map',
        map: MAP_NAME,
        projection: mapProjection(),
        roam: true,
        scaleLimit: { min: 1, max: 8 },
        // The projected world fills the card's width (800 × 403 at SPEC's size).
        left: 0,
        right: 0,
        top: 0,
        bottom: 0,
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
    <div
      ref={element}
      role="img"
      aria-label="World map of incidents by country"
      data-testid="world-map"
      style={{ width: '100%', maxWidth: MAP_WIDTH, aspectRatio: `${MAP_WIDTH} / ${MAP_HEIGHT}`, margin: '0 auto' }}
    />
  );
}
