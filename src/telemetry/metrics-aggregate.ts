/**
 * One answer for GET /metrics on a node with `--processes` above 1: every
 * server process's series (prom-client's `getMetricsAsJSON()`, gathered by the
 * cluster primary, src/cluster.ts) merged with prom-client's
 * AggregatorRegistry, each metric by its own `aggregator` (metrics.ts):
 * counters and histograms summed series by series, gauges summed unless every
 * process reads the same shared value (from the database: `max`), prom-client's
 * default metrics as prom-client declares them (event-loop lag averaged, the
 * version taken once). A scraper cannot address the processes one by one
 * through the shared port, so the node answers for all of them.
 */
import { AggregatorRegistry } from 'prom-client';
import { collectionsMetric, type MetricFamily } from './metrics.js';

/** One process's metrics, as prom-client's getMetricsAsJSON() gives them (plain data: they cross the cluster's channel). */
export type MetricsPart = MetricFamily[];

/**
 * `parts`: each process's metrics; `collections`: the primary's count of the
 * node's collections (null when it did not answer: each part keeps its own,
 * and the largest is reported). Resolves with the text exposition.
 */
export function aggregateParts(parts: readonly MetricsPart[], collections: number | null): Promise<string> {
  const own = collections === null ? parts : parts.map((p) => p.filter((m) => m.name !== 'switchyard_metrics_collections_total'));
  const node: MetricsPart = [
    {
      name: 'switchyard_server_processes',
      help: 'Server processes whose series this answer adds up',
      type: 'gauge',
      aggregator: 'sum',
      values: [{ value: parts.length, labels: {} }],
    },
  ];
  if (collections !== null) node.push(collectionsMetric(collections));
  // prom-client's typings call `type` an enum and want `collect`; its JSON has neither (the type is a string).
  return AggregatorRegistry.aggregate([...own, node] as unknown as Parameters<typeof AggregatorRegistry.aggregate>[0]).metrics();
}
