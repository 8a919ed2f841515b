/**
 * uPlot behind a small handle: its own chunk (with uPlot's stylesheet, which
 * Vite emits as a CSS file and links, as the page's `style-src 'self'` wants),
 * loaded only by the overview's charts (chart.tsx).
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  /** One value per minute of `time`; null where there is nothing to draw. */
  values: (number | null)[];
  color: string;
  dashed?: boolean;
}

export interface ChartHandle {
  update(time: number[], series: ChartSeries[]): void;
  resize(width: number): void;
  destroy(): void;
}

const HEIGHT = 180;
const fmt = (unit: string) => (_u: uPlot, v: number | null) => (v == null ? '—' : `${Number.isInteger(v) ? v : v.toFixed(1)}${unit}`);

export function mountChart(host: HTMLElement, time: number[], series: ChartSeries[], unit: string): ChartHandle {
  let plot: uPlot | null = null;
  let labels = '';

  function create(t: number[], s: ChartSeries[]) {
    plot?.destroy();
    labels = s.map((x) => x.label).join('\n');
    plot = new uPlot(
      {
        width: Math.max(host.clientWidth, 200),
        height: HEIGHT,
        cursor: { drag: { x: false, y: false } },
        scales: { y: { range: (_u, min, max) => [0, Math.max(max ?? 0, min ?? 0, 1) * 1.1] } },
        axes: [{}, { values: (_u, splits) => splits.map((v) => `${v}${unit}`), size: 56 }],
        series: [
          {},
          ...s.map((x) => ({
            label: x.label,
            stroke: x.color,
            width: 2,
            dash: x.dashed ? [6, 4] : undefined,
            value: fmt(unit),
            spanGaps: false,
            // Percentiles and rates have gaps (null where a minute saw nothing): a lone minute is a point, not a line.
            points: { show: (u: uPlot, si: number) => (u.data[si] as (number | null)[]).includes(null), size: 5, fill: x.color },
          })),
        ],
      },
      [t, ...s.map((x) => x.values)] as uPlot.AlignedData,
      host,
    );
  }

  create(time, series);
  return {
    update(t, s) {
      if (s.map((x) => x.label).join('\n') !== labels) create(t, s);
      else plot!.setData([t, ...s.map((x) => x.values)] as uPlot.AlignedData);
    },
    resize(width) {
      plot?.setSize({ width: Math.max(width, 200), height: HEIGHT });
    },
    destroy() {
      plot?.destroy();
      plot = null;
    },
  };
}
