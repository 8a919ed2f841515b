/**
 * Overview: the last hour of `GET /api/stats` (every node's per-minute
 * figures), read again every 10 s while the view is open. Charts of requests,
 * error rate and latency (all routes with the busiest few, or one route),
 * invocations by outcome, delivery outcomes and scheduler lateness, each with
 * its figures in words; a table per route; the newest failures with links.
 */
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import type { Schemas } from '../../../src/client/index.js';
import { api, call, type ApiError } from '../api.js';
import { ErrorBox, toApiError, useLoad, when } from '../components.js';
import { href } from '../router.js';
import { Chart, type ChartSeries } from './chart.js';
import { firstBusyMinute, trimToData } from './stats-window.js';

type Stats = Schemas['Stats'];
type RouteStats = Stats['routes'][number];

const MINUTES = 60;
const REFRESH_MS = 10_000;
const TOP_ROUTES = 3;
/** Line colours, each at least 3:1 against the white card (see .swatch in styles.css). */
const COLORS = ['#1f5fbf', '#b3261e', '#1e6b34', '#8a4b00', '#6a3d9a', '#00707a'];

const num = (n: number) => n.toLocaleString();
const plural = (n: number, one: string, many = `${one}s`) => `${num(n)} ${n === 1 ? one : many}`;
const ms = (v: number | null | undefined) => (v == null ? '—' : `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`);
const pct = (part: number, whole: number) => (whole === 0 ? '0%' : `${((100 * part) / whole).toFixed(1)}%`);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const clock = (unixSeconds: number) => new Date(unixSeconds * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
const routeKey = (r: RouteStats) => `${r.api_id} ${r.method} ${r.path}`;
const rate = (errors: number[], count: number[]) => count.map((c, i) => (c === 0 ? null : (100 * errors[i]) / c));
const maxOf = (xs: (number | null)[]) => xs.reduce<number | null>((m, v) => (v != null && (m == null || v > m) ? v : m), null);
const series = (label: string, values: (number | null)[], i: number, dashed = false): ChartSeries => ({
  label,
  values,
  color: COLORS[i % COLORS.length],
  dashed,
});

/** The busiest minute of a series, in words. */
function busiest(time: number[], values: number[]): string {
  let at = -1;
  values.forEach((v, i) => v > 0 && (at < 0 || v > values[at]) && (at = i));
  return at < 0 ? '' : ` (busiest minute: ${num(values[at])} at ${clock(time[at])})`;
}

/** Reads the window now and then every REFRESH_MS until the view closes; keeps the last answer on an error. */
function useStats() {
  const [stats, setStats] = useState<Stats | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [updated, setUpdated] = useState<Date | null>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      try {
        const answer = await call(api.GET('/api/stats', { params: { query: { minutes: MINUTES } } }));
        if (live) (setStats(answer), setError(null), setUpdated(new Date()));
      } catch (err) {
        if (live) setError(toApiError(err));
      }
      // The next read is timed from the end of this one, so slow answers never pile up.
      if (live) timer = setTimeout(load, REFRESH_MS);
    };
    void load();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, []);
  return { stats, error, updated };
}

export function OverviewView() {
  const { stats: answered, error, updated } = useStats();
  // The charts' minutes: from the first with data (stats-window.ts); the totals stay the hour's.
  const stats = useMemo(() => answered && trimToData(answered), [answered]);
  const apis = useLoad(() => call(api.GET('/api/apis', {})), []);
  const [selected, setSelected] = useState('all');
  const apiName = useCallback((id: string) => apis.data?.find((a) => a.id === id)?.name ?? id, [apis.data]);
  const label = useCallback((r: RouteStats) => `${apiName(r.api_id)} ${r.method} ${r.path}`, [apiName]);

  return (
    <section aria-labelledby="overview-title" class="overview">
      <div class="title-row">
        <h1 id="overview-title">Overview</h1>
        <p class="meta updated">
          Last {MINUTES} minutes, every node
          {stats && stats.time.length < MINUTES && firstBusyMinute(stats) !== null && (
            <span class="charts-from">; the charts show from {clock(stats.time[0])} (the minutes before saw nothing)</span>
          )}
          . Updated{' '}
          {updated ? <time dateTime={updated.toISOString()}>{updated.toLocaleTimeString()}</time> : 'not yet'}; again every{' '}
          {REFRESH_MS / 1000} s.
        </p>
      </div>
      <ErrorBox error={error} />
      {!stats && !error && <p>Loading…</p>}
      {stats && (
        <>
          <RouteCharts stats={stats} selected={selected} onSelect={setSelected} label={label} />
          <OtherCharts stats={stats} />
          <RouteTable stats={stats} apiName={apiName} />
          <Failures stats={stats} />
        </>
      )}
      <p class="hint">
        Prometheus metrics of this node (every server process added up): <a href="/metrics">/metrics</a>.
      </p>
    </section>
  );
}

function RouteCharts(props: { stats: Stats; selected: string; onSelect(key: string): void; label(r: RouteStats): string }) {
  const { stats, label } = props;
  const { time, routes } = stats;
  const one = routes.find((r) => routeKey(r) === props.selected) ?? null;
  const charts = useMemo(() => {
    const count = time.map((_, i) => sum(routes.map((r) => r.count[i])));
    const errors = time.map((_, i) => sum(routes.map((r) => r.errors[i])));
    // One route: its own lines. All: the total, then the busiest few routes (routes come busiest first).
    const shown = one ? [one] : routes.length > 1 ? routes.slice(0, TOP_ROUTES) : [];
    const offset = one ? 0 : 1;
    const requests = [...(one ? [] : [series('All routes', count, 0)]), ...shown.map((r, i) => series(label(r), r.count, i + offset))];
    const errorRate = [
      ...(one ? [] : [series('All routes', rate(errors, count), 0)]),
      ...shown.map((r, i) => series(label(r), rate(r.errors, r.count), i + offset)),
    ];
    const latencyRoutes = one ? [one] : routes.slice(0, TOP_ROUTES);
    const latency = latencyRoutes.flatMap((r, i) => [series(`${label(r)} p50`, r.p50_ms, i), series(`${label(r)} p99`, r.p99_ms, i, true)]);
    return { count, errors, requests, errorRate, latency, latencyRoutes };
  }, [stats, one, label]);

  const total = one ? one.total.count : sum(charts.count);
  const totalErrors = one ? one.total.errors : sum(charts.errors);
  const perRoute = (f: (r: RouteStats) => string) => (one ? [one] : routes).map((r) => `${label(r)}: ${f(r)}`).join('; ');
  return (
    <>
      <div class="field route-select">
        <label for="overview-route">Routes in the charts</label>
        <select id="overview-route" value={one ? props.selected : 'all'} onChange={(e) => props.onSelect(e.currentTarget.value)}>
          <option value="all">All routes (and the {TOP_ROUTES} busiest)</option>
          {routes.map((r) => (
            <option key={routeKey(r)} value={routeKey(r)}>
              {label(r)}
            </option>
          ))}
        </select>
      </div>
      <div class="charts">
        <Chart id="chart-requests" title="Requests per minute" time={time} series={charts.requests} empty={total === 0}>
          {total === 0
            ? `No requests in the last ${MINUTES} minutes.`
            : `${plural(total, 'request')} in the last ${MINUTES} minutes${busiest(time, one ? one.count : charts.count)}. ${perRoute((r) => num(r.total.count))}.`}
        </Chart>
        <Chart id="chart-errors" title="Error rate (answers of 500 and above)" time={time} series={charts.errorRate} unit="%" empty={total === 0}>
          {total === 0
            ? 'No requests, so no errors.'
            : `${plural(totalErrors, 'error')} of ${plural(total, 'request')} (${pct(totalErrors, total)}). ${perRoute((r) => `${num(r.total.errors)} (${pct(r.total.errors, r.total.count)})`)}.`}
        </Chart>
        <Chart id="chart-latency" title="Latency, p50 and p99 (dashed)" time={time} series={charts.latency} unit=" ms" empty={charts.latencyRoutes.length === 0}>
          {charts.latencyRoutes.length === 0
            ? 'No requests, so no latency.'
            : `Over the ${MINUTES} minutes: ${charts.latencyRoutes.map((r) => `${label(r)} p50 ${ms(r.total.p50_ms)}, p99 ${ms(r.total.p99_ms)}`).join('; ')}.`}
        </Chart>
      </div>
    </>
  );
}

/** Green for `ok` and `succeeded`, red for `failed`, the other colours for the rest. */
function outcomeColor(outcome: string, i: number): number {
  if (outcome === 'ok' || outcome === 'succeeded') return 2;
  if (outcome === 'failed') return 1;
  return [1, 3, 4, 5, 0][i % 5];
}

function OtherCharts({ stats }: { stats: Stats }) {
  const { time, invocations, deliveries, lateness } = stats;
  const charts = useMemo(
    () => ({
      invocations: invocations.map((o, i) => series(o.outcome, o.count, outcomeColor(o.outcome, i))),
      deliveries: deliveries.map((d, i) => series(`${d.target} ${d.outcome}`, d.count, outcomeColor(d.outcome, i), d.target === 'function')),
      lateness: [series('p50', lateness.p50_ms, 0), series('p99', lateness.p99_ms, 1, true), series('max', lateness.max_ms, 3)],
    }),
    [stats],
  );
  const invocationTotal = sum(invocations.map((o) => o.total));
  const deliveryTotal = sum(deliveries.map((d) => d.total));
  const late = sum(lateness.count);
  return (
    <div class="charts">
      <Chart id="chart-invocations" title="Invocations by outcome, per minute" time={time} series={charts.invocations} empty={invocationTotal === 0}>
        {invocationTotal === 0
          ? 'No invocations through APIs.'
          : `${plural(invocationTotal, 'invocation')}: ${invocations.map((o) => `${o.outcome} ${num(o.total)}`).join(', ')}.`}
      </Chart>
      <Chart id="chart-deliveries" title="Delivery attempts by outcome, per minute" time={time} series={charts.deliveries} empty={deliveryTotal === 0}>
        {deliveryTotal === 0
          ? 'No delivery attempts (webhooks, function runs).'
          : `${plural(deliveryTotal, 'attempt')}: ${deliveries.map((d) => `${d.target} ${d.outcome} ${num(d.total)}`).join(', ')}.`}
      </Chart>
      <Chart id="chart-lateness" title="Scheduler lateness (start after the slot)" time={time} series={charts.lateness} unit=" ms" empty={late === 0}>
        {late === 0
          ? 'No scheduled deliveries started.'
          : `${plural(late, 'scheduled delivery', 'scheduled deliveries')} started; the highest minute's p50 ${ms(maxOf(lateness.p50_ms))}, p99 ${ms(maxOf(lateness.p99_ms))}, the latest start ${ms(maxOf(lateness.max_ms))} after its slot.`}
      </Chart>
    </div>
  );
}

function RouteTable({ stats, apiName }: { stats: Stats; apiName(id: string): string }) {
  return (
    <section class="card" aria-labelledby="routes-title">
      <h2 id="routes-title">Routes</h2>
      {stats.routes.length === 0 ? (
        <p>No requests through an API in the last {MINUTES} minutes.</p>
      ) : (
        <div class="table-wrap">
          <table class="route-stats">
            <caption class="visually-hidden">Requests per route, last {MINUTES} minutes, busiest first</caption>
            <thead>
              <tr>
                <th scope="col">API</th>
                <th scope="col">Route</th>
                <th scope="col" class="num">Requests</th>
                <th scope="col" class="num">Errors</th>
                <th scope="col" class="num">p50</th>
                <th scope="col" class="num">p99</th>
              </tr>
            </thead>
            <tbody>
              {stats.routes.map((r) => (
                <tr key={routeKey(r)}>
                  <td>
                    <a href={href('apis', r.api_id)}>{apiName(r.api_id)}</a>
                  </td>
                  <td>
                    <code>
                      {r.method} {r.path}
                    </code>
                  </td>
                  <td class="num count">{num(r.total.count)}</td>
                  <td class="num errors">
                    {num(r.total.errors)} ({pct(r.total.errors, r.total.count)})
                  </td>
                  <td class="num">{ms(r.total.p50_ms)}</td>
                  <td class="num">{ms(r.total.p99_ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function failureLink(f: Stats['failures'][number]) {
  if (f.source === 'webhook') return <a href={href('deliveries', f.id)}>delivery {f.id}</a>;
  if (!f.function) return <code>{f.id}</code>;
  if (f.source === 'function') return <a href={href('functions', f.function, 'runs', f.id)}>run of {f.function}</a>;
  return <a href={href('functions', f.function)}>function {f.function}</a>;
}

function Failures({ stats }: { stats: Stats }) {
  return (
    <section class="card" aria-labelledby="failures-title">
      <h2 id="failures-title">Recent failures</h2>
      {stats.failures.length === 0 ? (
        <p>No failures recorded.</p>
      ) : (
        <ul class="failures">
          {stats.failures.map((f) => (
            <li key={`${f.source} ${f.id}`}>
              <span class="badge failed">{f.source === 'invocation' ? 'invocation' : `${f.source} delivery`}</span> {when(f.time)} · {failureLink(f)} ·{' '}
              <code>{f.code}</code>
              <div class="failure-message">{f.message}</div>
              {f.source === 'invocation' && <div class="meta">request id <code>{f.id}</code></div>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
