/**
 * The answer of `GET /api/stats`, shaped for charts: one array of minute
 * start times, and per series arrays parallel to it (0 or null where a
 * minute saw nothing). Percentiles come from the summed buckets of every
 * process (percentiles.ts), for each minute and for the whole window.
 */
import { addBuckets, percentile } from './percentiles.js';
import { BUCKETS, type RecentFailure, type StatsRows } from './types.js';

export interface RouteSeries {
  api_id: string;
  method: string;
  path: string;
  count: number[];
  errors: number[];
  p50_ms: Array<number | null>;
  p99_ms: Array<number | null>;
  total: { count: number; errors: number; p50_ms: number | null; p99_ms: number | null };
}

export interface StatsAnswer {
  from: string;
  to: string;
  minutes: number;
  time: number[];
  routes: RouteSeries[];
  invocations: Array<{ outcome: string; count: number[]; total: number }>;
  deliveries: Array<{ target: 'webhook' | 'function'; outcome: string; count: number[]; total: number }>;
  lateness: { count: number[]; p50_ms: Array<number | null>; p99_ms: Array<number | null>; max_ms: Array<number | null> };
  failures: Array<{
    source: RecentFailure['source'];
    id: string;
    function: string | null;
    webhook_id: string | null;
    code: string;
    message: string;
    time: string;
  }>;
}

const MINUTE_MS = 60_000;

/** The window's answer: minutes `first` to `first + minutes - 1`. */
export function statsAnswer(rows: StatsRows, first: number, minutes: number): StatsAnswer {
  const zeros = () => new Array<number>(minutes).fill(0);
  const nulls = () => new Array<number | null>(minutes).fill(null);
  const at = (minute: number) => minute - first;

  const routes = new Map<string, RouteSeries & { buckets: number[]; maxMs: number }>();
  for (const r of rows.requests) {
    const key = `${r.apiId}\u0000${r.method}\u0000${r.path}`;
    let s = routes.get(key);
    if (!s) {
      s = {
        api_id: r.apiId,
        method: r.method,
        path: r.path,
        count: zeros(),
        errors: zeros(),
        p50_ms: nulls(),
        p99_ms: nulls(),
        total: { count: 0, errors: 0, p50_ms: null, p99_ms: null },
        buckets: new Array<number>(BUCKETS).fill(0),
        maxMs: 0,
      };
      routes.set(key, s);
    }
    const i = at(r.minute);
    s.count[i] = r.count;
    s.errors[i] = r.errors;
    s.p50_ms[i] = percentile(r.buckets, 0.5, r.maxMs);
    s.p99_ms[i] = percentile(r.buckets, 0.99, r.maxMs);
    s.total.count += r.count;
    s.total.errors += r.errors;
    addBuckets(s.buckets, r.buckets);
    s.maxMs = Math.max(s.maxMs, r.maxMs);
  }
  const routeList = [...routes.values()]
    .map(({ buckets, maxMs, ...s }) => {
      s.total.p50_ms = percentile(buckets, 0.5, maxMs);
      s.total.p99_ms = percentile(buckets, 0.99, maxMs);
      return s;
    })
    .sort((a, b) => b.total.count - a.total.count);

  const invocations = new Map<string, { outcome: string; count: number[]; total: number }>();
  const deliveries = new Map<string, { target: 'webhook' | 'function'; outcome: string; count: number[]; total: number }>();
  for (const o of rows.outcomes) {
    const i = at(o.minute);
    if (o.source === 'invocation') {
      let s = invocations.get(o.outcome);
      if (!s) invocations.set(o.outcome, (s = { outcome: o.outcome, count: zeros(), total: 0 }));
      s.count[i] += o.count;
      s.total += o.count;
    } else {
      const key = `${o.source}\u0000${o.outcome}`;
      let s = deliveries.get(key);
      if (!s) deliveries.set(key, (s = { target: o.source, outcome: o.outcome, count: zeros(), total: 0 }));
      s.count[i] += o.count;
      s.total += o.count;
    }
  }

  const lateness = { count: zeros(), p50_ms: nulls(), p99_ms: nulls(), max_ms: nulls() };
  for (const l of rows.lateness) {
    const i = at(l.minute);
    lateness.count[i] = l.count;
    lateness.p50_ms[i] = percentile(l.buckets, 0.5, l.maxMs);
    lateness.p99_ms[i] = percentile(l.buckets, 0.99, l.maxMs);
    lateness.max_ms[i] = l.maxMs;
  }

  return {
    from: new Date(first * MINUTE_MS).toISOString(),
    to: new Date((first + minutes) * MINUTE_MS).toISOString(),
    minutes,
    time: Array.from({ length: minutes }, (_, i) => (first + i) * 60),
    routes: routeList,
    invocations: [...invocations.values()].sort((a, b) => b.total - a.total),
    deliveries: [...deliveries.values()].sort((a, b) => a.target.localeCompare(b.target) || a.outcome.localeCompare(b.outcome)),
    lateness,
    failures: rows.failures.map((f) => ({
      source: f.source,
      id: f.id,
      function: f.source === 'webhook' ? null : f.subject,
      webhook_id: f.source === 'webhook' ? f.subject : null,
      code: f.code,
      message: f.message,
      time: f.at,
    })),
  };
}
