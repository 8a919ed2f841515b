/**
 * A strict reader of the Prometheus text exposition format (0.0.4) with the
 * checks `promtool check metrics` makes, for tests where promtool is not
 * installed (it is not in CI's image): every sample belongs to a family
 * declared once by HELP and TYPE before its samples; names and label names
 * are valid, label values escaped; no series twice; counters end in _total;
 * histogram buckets ascend, are cumulative, end in +Inf equal to _count.
 * Returns the problems found (none: clean) and the samples by series.
 */
export interface Exposition {
  problems: string[];
  /** `name{labels}` as printed -> value. */
  samples: Map<string, number>;
  /** Family name -> type. */
  types: Map<string, string>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/;
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\[\\"n])*)"(,|$)/y;

function familyOf(sample: string, types: Map<string, string>): string {
  if (types.has(sample)) return sample;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (sample.endsWith(suffix) && types.get(sample.slice(0, -suffix.length)) === 'histogram') return sample.slice(0, -suffix.length);
  }
  return sample;
}

export function readExposition(text: string): Exposition {
  const problems: string[] = [];
  const samples = new Map<string, number>();
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const closed = new Set<string>();
  let current = '';
  const buckets = new Map<string, Array<{ le: number; value: number }>>();
  const counts = new Map<string, number>();
  if (!text.endsWith('\n')) problems.push('the exposition does not end with a newline');
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ') || line.startsWith('# TYPE ')) {
      const [, kind, name, ...rest] = line.split(' ');
      if (!NAME.test(name)) problems.push(`bad metric name ${name}`);
      if (name !== current) {
        if (closed.has(name)) problems.push(`${name}: family declared again after other families`);
        if (current) closed.add(current);
        current = name;
      }
      if (kind === 'HELP') {
        if (helps.has(name)) problems.push(`${name}: HELP twice`);
        helps.add(name);
      } else {
        if (types.has(name)) problems.push(`${name}: TYPE twice`);
        const type = rest.join(' ');
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type)) problems.push(`${name}: unknown type ${type}`);
        types.set(name, type);
        if (type === 'counter' && !name.endsWith('_total')) problems.push(`${name}: counter names should end in _total`);
      }
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) {
      problems.push(`unreadable line: ${line}`);
      continue;
    }
    const [, name, , labelText = '', valueText] = m;
    const family = familyOf(name, types);
    if (!types.has(family)) problems.push(`${name}: sample without a TYPE`);
    else if (family !== current) problems.push(`${name}: sample outside its family's block`);
    const labels: Record<string, string> = {};
    LABEL_PAIR.lastIndex = 0;
    while (LABEL_PAIR.lastIndex < labelText.length) {
      const start = LABEL_PAIR.lastIndex;
      const p = LABEL_PAIR.exec(labelText);
      if (!p) {
        problems.push(`${name}: unreadable labels ${labelText.slice(start)}`);
        break;
      }
      if (!LABEL.test(p[1]) || p[1].startsWith('__')) problems.push(`${name}: bad label name ${p[1]}`);
      if (p[1] in labels) problems.push(`${name}: label ${p[1]} twice`);
      labels[p[1]] = p[2];
    }
    // Prometheus reads values with Go's ParseFloat: NaN and Inf in any case (prom-client writes `Nan`).
    const value = /^nan$/i.test(valueText) ? NaN : /^[+-]?inf(inity)?$/i.test(valueText) ? (valueText.startsWith('-') ? -Infinity : Infinity) : Number(valueText);
    if (Number.isNaN(value) && !/^nan$/i.test(valueText)) problems.push(`${name}: bad value ${valueText}`);
    const key = `${name}${labelText ? `{${labelText}}` : ''}`;
    if (samples.has(key)) problems.push(`${key}: series twice`);
    samples.set(key, value);
    if (types.get(family) === 'histogram') {
      const { le, ...rest } = labels;
      const series = `${family}${JSON.stringify(Object.entries(rest).sort())}`;
      if (name.endsWith('_bucket')) {
        if (le === undefined) problems.push(`${key}: bucket without le`);
        const list = buckets.get(series) ?? [];
        list.push({ le: le === '+Inf' ? Infinity : Number(le), value });
        buckets.set(series, list);
      } else if (name.endsWith('_count')) counts.set(series, value);
    }
    if (types.get(family) === 'counter' && value < 0) problems.push(`${key}: negative counter`);
  }
  for (const [series, list] of buckets) {
    for (let i = 1; i < list.length; i++) {
      if (!(list[i].le > list[i - 1].le)) problems.push(`${series}: buckets not ascending`);
      if (list[i].value < list[i - 1].value) problems.push(`${series}: buckets not cumulative`);
    }
    const last = list[list.length - 1];
    if (last.le !== Infinity) problems.push(`${series}: no +Inf bucket`);
    else if (counts.get(series) !== last.value) problems.push(`${series}: +Inf bucket is not _count`);
  }
  return { problems, samples, types };
}

/** Every series of `text` whose line starts with `prefix` (a metric name, maybe with the start of its labels). */
export function seriesStarting(text: string, prefix: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(prefix));
}
