/**
 * One chart of the overview: a figure whose caption says the figures in words
 * (the text alternative of the canvas, which is hidden from screen readers),
 * and uPlot drawn into it once its chunk has loaded (chart-impl.ts).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ChartHandle, ChartSeries } from './chart-impl.js';

export type { ChartSeries };

let impl: Promise<typeof import('./chart-impl.js')> | undefined;
const loadImpl = () => (impl ??= import('./chart-impl.js'));

export function Chart(props: { id: string; title: string; time: number[]; series: ChartSeries[]; unit?: string; children: ComponentChildren }) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<ChartHandle | null>(null);
  const [ready, setReady] = useState(false);
  const unit = props.unit ?? '';

  useEffect(() => {
    let gone = false;
    let observer: ResizeObserver | undefined;
    void loadImpl().then(({ mountChart }) => {
      if (gone || !host.current) return;
      chart.current = mountChart(host.current, props.time, props.series, unit);
      observer = new ResizeObserver(() => host.current && chart.current?.resize(host.current.clientWidth));
      observer.observe(host.current);
      setReady(true);
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

  return (
    <figure class="chart card" aria-labelledby={`${props.id}-title`} data-ready={ready ? 'true' : 'false'}>
      <h3 id={`${props.id}-title`}>{props.title}</h3>
      <div ref={host} class="chart-host" aria-hidden="true" />
      <figcaption>{props.children}</figcaption>
    </figure>
  );
}
