/**
 * Value generators for the management API fuzz test: a seeded PRNG (so a
 * failure reproduces from the printed seed), random JSON with hostile keys,
 * field values that are plausible or just off (taken by field name, as the
 * OpenAPI schemas cannot express cron or path rules), and body mutations.
 */

export type Rng = () => number;

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)];
export const chance = (rng: Rng, p: number) => rng() < p;
const int = (rng: Rng, max: number) => Math.floor(rng() * max);

const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', ''];
const ODD_STRINGS = [
  '',
  ' ',
  '..',
  '%2e%2e',
  '../../etc/passwd',
  '\u0000',
  '\r\nx-injected: 1',
  '{{event}}',
  '{{',
  '<script>',
  "' OR 1=1 --",
  'é',
  '\u202e',
  '\ud800',
  '😀',
  '%',
  '%zz',
  '__proto__',
  'null',
  '1e309',
];

/** Percent-encodes every byte outside RFC 3986's unreserved set (a lone surrogate becomes U+FFFD's bytes). */
export function percentEncode(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export function randomString(rng: Rng, max = 40): string {
  if (chance(rng, 0.4)) return pick(rng, ODD_STRINGS);
  const n = int(rng, max);
  let s = '';
  for (let i = 0; i < n; i++) {
    const r = rng();
    s += r < 0.7 ? String.fromCharCode(0x20 + int(rng, 95)) : r < 0.9 ? String.fromCharCode(0xa0 + int(rng, 0x2000)) : String.fromCharCode(int(rng, 0x20));
  }
  return s;
}

/** An own property even for `__proto__` (an object literal would set the prototype instead). */
function setOwn(obj: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

export function randomJson(rng: Rng, depth = 0): unknown {
  const r = rng();
  if (depth > 3 || r < 0.35) {
    return pick(rng, [null, true, false, 0, -1, 1.5, 2 ** 53 + 2, -0, 1e308, randomString(rng), randomString(rng), int(rng, 1000)]);
  }
  if (r < 0.6) return Array.from({ length: int(rng, 4) }, () => randomJson(rng, depth + 1));
  const obj: Record<string, unknown> = {};
  const n = int(rng, 4);
  for (let i = 0; i < n; i++) setOwn(obj, chance(rng, 0.3) ? pick(rng, HOSTILE_KEYS) : randomString(rng, 12), randomJson(rng, depth + 1));
  return obj;
}

export interface Known {
  receiverUrl: string;
  apiId: string;
  functionName: string;
}

const GOOD_CODE = 'exports.handler = async (event) => ({ statusCode: 200, body: { fuzzed: true } });';

/**
 * Plausible and slightly wrong values for the fields the management API
 * knows, by name; the first of each list is a valid one.
 */
export function fieldValues(rng: Rng, known: Known): Record<string, () => unknown[]> {
  return {
    name: () => [`fz-${int(rng, 1e6)}`, 'fz-b', 'A', 'x'.repeat(64), 'x'.repeat(65), '1bad', known.functionName, '', 'ü', '__proto__', 'bad name'],
    code: () => [GOOD_CODE, 'syntax error {', 'throw new Error("top level")', 'exports.notHandler = 1;', 'x', 'exports.handler = 1;'],
    runtime: () => ['javascript', 'typescript', 'python', null, ''],
    env: () => [{}, { A: 'b' }, { 'bad-key': 'x' }, { A: 1 }, { [`K${'x'.repeat(200)}`]: 'v' }, null],
    timeout_ms: () => [1, 900000, 0, 900001, -1, 1.5, '100', null, 1000, 60000, 60001, 999],
    memory_mb: () => [8, 1024, 7, 1025, 16, null, '16'],
    basePath: () => ['/fz', '/', '/fz/x', 'nope', '/a//b', '/%2e%2e', '/.%2E', '/:id', '/a/', '/é', '/%FF', '/*'],
    routes: () => [[], [{ method: 'GET', path: '/x', function: known.functionName }], [
      { method: 'GET', path: '/:a', function: known.functionName },
      { method: 'GET', path: '/:b', function: known.functionName },
    ], [{ method: 'GET', path: '/x', function: 'missing-function' }], [{ method: 'GET', path: '/%2e', function: known.functionName }]],
    method: () => ['GET', 'POST', 'ANY', 'get', 'TRACE', 'PATCH', 'DELETE', 'PUT', ''],
    path: () => ['/', '/x', '/:id', '/*', '/x/*/y', '/:id/:id', '/%2e', 'x', '/fz/{proxy+}', '/a b'],
    function: () => [known.functionName, 'missing-function', ''],
    target_url: () => [`${known.receiverUrl}/fz`, 'ftp://example.com/x', 'not a url', 'http://', 'http://127.0.0.1:1/closed', 'javascript:alert(1)'],
    headers: () => [{ 'x-a': 'b' }, { 'bad header': 'x' }, { x: 'a\nb' }, { 'webhook-id': 'x' }, {}, { authorization: 'Bearer t' }, null],
    payload_template: () => [{}, { a: '{{event}}' }, { a: '{{' }, [], { data: '{{data}}', deep: { x: ['{{mock.body}}'] } }, null],
    cron: () => ['* * * * *', '0 0 31 2 *', 'bad', '*/0 * * * *', null, '', '60 * * * *'],
    timezone: () => ['UTC', 'Europe/Paris', 'Mars/Olympus', null, ''],
    mock_endpoint: () => [{ api_id: known.apiId, path: '/fz' }, { api_id: 'api_missing', path: '/' }, { api_id: known.apiId }, null],
    events: () => [['order.created'], ['switchyard.function.created'], ['a', 'a'], [''], null, []],
    enabled: () => [true, false, null, 'yes'],
    secret: () => ['generate', `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`, 'whsec_bad', 'plain', null],
    retry: () => [{ max_attempts: 1 }, { max_attempts: 0 }, { schedule_s: [1, 2] }, { schedule_s: [] }, null, { extra: 1 }],
    event: () => ['order.created', 'switchyard.api.created', '', 'a'.repeat(201), 'bad event', 'a.b'],
    data: () => [null, {}, { a: 1 }, 'text'],
    api_id: () => [known.apiId, 'api_missing', ''],
    max_attempts: () => [1, 30, 0, 31],
    schedule_s: () => [[1], [0], [86401], []],
  };
}

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
}

/** A value shaped by the schema, preferring the per-field dictionary. */
export function fromSchema(rng: Rng, schema: Schema | undefined, fields: Record<string, () => unknown[]>, field = '', depth = 0): unknown {
  if (field && fields[field] && chance(rng, 0.8)) {
    const values = fields[field]();
    return chance(rng, 0.5) ? values[0] : pick(rng, values);
  }
  if (!schema || depth > 4) return randomJson(rng);
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return fromSchema(rng, pick(rng, options), fields, field, depth + 1);
  if (schema.enum) return pick(rng, schema.enum);
  const type = Array.isArray(schema.type) ? pick(rng, schema.type) : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(schema.properties ?? {})) {
        if (schema.required?.includes(key) || chance(rng, 0.4)) out[key] = fromSchema(rng, sub, fields, key, depth + 1);
      }
      return out;
    }
    case 'array':
      return Array.from({ length: int(rng, 3) }, () => fromSchema(rng, schema.items, fields, '', depth + 1));
    case 'string':
      return randomString(rng);
    case 'integer':
      return pick(rng, [0, 1, -1, 100, 2 ** 31, int(rng, 100000)]);
    case 'number':
      return rng() * 1000;
    case 'boolean':
      return chance(rng, 0.5);
    case 'null':
      return null;
    default:
      return randomJson(rng);
  }
}

/** `depth` nested arrays or objects around a value. */
export function nestedText(rng: Rng, depth: number): string {
  return chance(rng, 0.5) ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}
