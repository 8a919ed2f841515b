/**
 * Merges the Prometheus text of several server processes into one answer, so
 * that `GET /metrics` on a node with `--processes` above 1 reports the node,
 * not whichever process took the connection (a scraper cannot address them one
 * by one through the shared port).
 *
 * Why by hand, on the text: the registry (metrics.ts) is hand-written for the
 * hot path, so prom-client's AggregatorRegistry, which merges prom-client's own
 * registries, does not apply; its rules are followed: counters and histograms
 * are summed series by series, a gauge is summed unless every process reads
 * the same shared value (from the database), which is reported once (max).
 */

/** Gauges every process reads from the shared store: summing them would count one value N times. */
export const SHARED_GAUGES: ReadonlySet<string> = new Set([
  'switchyard_webhook_queue_depth',
  'switchyard_webhook_pending_deliveries',
  'switchyard_clock_offset_seconds',
]);

interface Family {
  name: string;
  help: string | null;
  type: string;
  /** Sample key (name and labels, as printed) -> value, in first-seen order. */
  samples: Map<string, number>;
}

/** `texts`: each process's exposition (format 0.0.4). Returns one exposition with every family once. */
export function mergeExpositions(texts: readonly string[]): string {
  const families = new Map<string, Family>();
  for (const text of texts) {
    let current: Family | null = null;
    let currentName = '';
    for (const line of text.split('\n')) {
      if (line === '') continue;
      if (line.startsWith('# HELP ')) {
        const rest = line.slice(7);
        const space = rest.indexOf(' ');
        currentName = space === -1 ? rest : rest.slice(0, space);
        current = familyOf(families, currentName);
        current.help ??= space === -1 ? '' : rest.slice(space + 1);
        continue;
      }
      if (line.startsWith('# TYPE ')) {
        const [name, type] = line.slice(7).split(' ');
        currentName = name;
        current = familyOf(families, name);
        current.type = type ?? 'untyped';
        continue;
      }
      if (line.startsWith('#')) continue;
      const cut = line.lastIndexOf(' ');
      const key = line.slice(0, cut);
      const value = Number(line.slice(cut + 1));
      // A sample belongs to the family declared above it (histograms add _bucket, _sum, _count).
      const family = current && key.startsWith(currentName) ? current : familyOf(families, key.replace(/[{].*$/, ''));
      const before = family.samples.get(key);
      if (before === undefined) family.samples.set(key, value);
      else family.samples.set(key, family.type === 'gauge' && SHARED_GAUGES.has(family.name) ? Math.max(before, value) : before + value);
    }
  }
  let out = '';
  for (const [name, f] of families) {
    if (f.help !== null) out += `# HELP ${name} ${f.help}\n`;
    out += `# TYPE ${name} ${f.type}\n`;
    for (const [key, value] of f.samples) out += `${key} ${value}\n`;
  }
  return out;
}

function familyOf(families: Map<string, Family>, name: string): Family {
  let f = families.get(name);
  if (!f) {
    f = { name, help: null, type: 'untyped', samples: new Map() };
    families.set(name, f);
  }
  return f;
}
