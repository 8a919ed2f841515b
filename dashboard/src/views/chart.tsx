/**
 * One chart of the overview: a figure whose caption says the figures in words
 * (the text alternative of the canvas, which is hidden from screen readers),
 * and uPlot drawn into it once its chunk has loaded (chart-impl.ts); with
 * nothing to draw, "No data yet" in its place rather than empty axes.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ChartHandle, ChartSeries } from './chart-impl.js';

export type { ChartSeries };

let impl: Promise<typeof import('./chart-impl.js')> | undefined;
const loadImpl = () => (impl ??= import('./chart-impl.js'));

interface PlotProps {
  time: number[];
  series: ChartSeries[];
  unit: string;
  onReady(): void;
}

function Plot(props: PlotProps) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<ChartHandle | null>(null);
  const [ready, setReady] = useState(false);

  useEffect(() => {
    let gone = false;
    let observer: ResizeObserver | undefined;
    void loadImpl().then(({ mountChart }) => {
      if (gone || !host.current) return;
      chart.current = mountChart(host.current, props.time, props.series, props.unit);
      observer = new ResizeObserver(() => host.current && chart.current?.resize(host.current.clientWidth));
      observer.observe(host.current);
      setReady(true);
      props.onReady();
    });
    return () => {
      gone = true;
      observer?.disconnect();
      chart.current?.destroy();
      chart.current = null;
    };
  }, []);
  useEffect(() => {
    if (ready) chart.current?.update(props.time, props.series);
  }, [props.time, props.series, ready]);
  return <div ref={host} class="chart-host" aria-hidden="true" />;
}

export function Chart(props: {
  id: string;
  title: string;
  time: number[];
  series: ChartSeries[];
  unit?: string;
  /** Nothing counted in the window: the caption says so, the plot says "No data yet". */
  empty?: boolean;
  children: ComponentChildren;
}) {
  const [ready, setReady] = useState(false);
  return (
    <figure
      class="chart card"
      aria-labelledby={`${props.id}-title`}
      data-ready={props.empty ? 'empty' : ready ? 'true' : 'false'}
      data-minutes={props.time.length}
    >
      <h3 id={`${props.id}-title`}>{props.title}</h3>
      {props.empty ? (
        <p class="chart-empty" aria-hidden="true">
          No data yet
        </p>
      ) : (
        <Plot time={props.time} series={props.series} unit={props.unit ?? ''} onReady={() => setReady(true)} />
      )}
      <figcaption>{props.children}</figcaption>
    </figure>
  );
}
