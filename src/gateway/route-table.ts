/**
 * Per-API route matcher: a segment trie built once per API change and queried
 * per request.
 *
 * Why not find-my-way: our matching filters by method first and only then
 * ranks paths (static > `:param` > `*`, segment by segment, with
 * backtracking), lets ANY coexist with specific methods, falls HEAD back to
 * GET, lets `*` match an empty rest, and computes 405 across all methods.
 * find-my-way keeps one tree per method, so each of those needs a workaround;
 * one method-aware trie expresses them directly in a page of code.
 *
 * Node-level method choice: exact method, then ANY, then (for HEAD) GET. HEAD
 * is therefore accepted wherever GET is, so HEAD resolves to the same route a
 * GET to that URL would (as with fastify's exposed HEAD routes).
 */
import type { Api, Route } from '../types.js';
import type { ErrorPolicy } from './error-answers.js';
import { compileCors, type CorsPolicy } from './policy/cors.js';
import { compileBinaryMediaTypes, type BinaryMediaTypes } from './policy/media-types.js';
import { awsTemplate, invokePathOf, joinPath, safeDecode, templateSegment } from './paths.js';

export interface RouteMatch {
  kind: 'match';
  route: Route;
  /** As the `switchyard` event has them: a greedy value under `*` (and under its name for `{name+}`). */
  pathParameters: Record<string, string> | null;
  /** basePath + the route's template, as written. */
  resource: string;
  /** The same in API Gateway's syntax (`{id}`, `{proxy+}`), for the AWS event formats. */
  awsResource: string;
  /** The AWS name of the greedy parameter (`proxy` for `*`), null when the template has none. */
  awsGreedy: string | null;
}

export type MatchResult = RouteMatch | { kind: 'not_found' } | { kind: 'method_not_allowed'; allow: string[] };

interface Entry {
  route: Route;
  resource: string;
  awsResource: string;
  /** Parameter names in path order, `*` last for a greedy one; null when the template has none. */
  names: string[] | null;
  /** The name of a `{name+}` segment, which also carries the greedy value in the `switchyard` event. */
  greedyAlias: string | null;
  awsGreedy: string | null;
}

interface Terminal {
  byMethod: Map<string, Entry>;
  any: Entry | null;
}

interface TrieNode {
  statics: Map<string, TrieNode> | null;
  param: TrieNode | null;
  /** A route ending in `*` below this node. */
  wildcard: Terminal | null;
  /** A route ending exactly at this node. */
  terminal: Terminal | null;
}

const NOT_FOUND: MatchResult = Object.freeze({ kind: 'not_found' });

function newNode(): TrieNode {
  return { statics: null, param: null, wildcard: null, terminal: null };
}

function newTerminal(): Terminal {
  return { byMethod: new Map(), any: null };
}

function accept(t: Terminal, method: string): Entry | null {
  return t.byMethod.get(method) ?? t.any ?? (method === 'HEAD' ? (t.byMethod.get('GET') ?? null) : null);
}

/** Sets a key even when it is `__proto__`, which a plain assignment would swallow. */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/** '' -> '/', one trailing slash dropped; null when the path cannot match anything. */
function normalize(path: string): string | null {
  if (path === '' || path === '/') return '/';
  if (path.charCodeAt(0) !== 47 /* / */) return null;
  return path.charCodeAt(path.length - 1) === 47 ? path.slice(0, -1) : path;
}

export class RouteTable {
  private readonly root: TrieNode = newNode();
  /** Fully static templates: when one accepts the method it is the most specific match by definition. */
  private readonly exact = new Map<string, Terminal>();

  /** The API's invoke path: the cookies its functions set are kept under it (cookies.ts). */
  readonly cookieScope: string;
  /** The API's `minimumCompressionSize`: null when its answers are never compressed. */
  readonly minimumCompressionSize: number | null;
  /** The API's `binaryMediaTypes`, compiled; null when unset (aws-v1 answers as before the field). */
  readonly binaryMediaTypes: BinaryMediaTypes | null;

  /** The API's CORS policy, compiled once; null when it has none (no CORS work per request). */
  readonly cors: CorsPolicy | null;
  /** How the gateway words its own answers for this API (./error-answers.ts). */
  readonly errors: ErrorPolicy;

  /** `METHOD resource` of every route: the `route` label of its series (the gateway drops the series of routes gone). */
  readonly routeLabels = new Set<string>();

  constructor(api: Api) {
    this.cookieScope = invokePathOf(api.id, api.basePath);
    this.minimumCompressionSize = api.minimumCompressionSize ?? null;
    this.binaryMediaTypes = compileBinaryMediaTypes(api.binaryMediaTypes ?? null);
    this.cors = compileCors(api.cors);
    this.errors = { errorFormat: api.errorFormat, exposeErrors: api.exposeErrors };
    for (const route of api.routes) {
      const resource = joinPath(api.basePath, route.path);
      this.add(route, resource);
      this.routeLabels.add(`${route.method} ${resource}`);
    }
  }

  private add(route: Route, resource: string): void {
    const segs = resource === '/' ? [] : resource.slice(1).split('/');
    let node = this.root;
    let names: string[] | null = null;
    let greedyAlias: string | null = null;
    let awsGreedy: string | null = null;
    let terminal: Terminal | null = null;
    let isStatic = true;
    for (let i = 0; i < segs.length; i++) {
      const seg = templateSegment(segs[i]);
      if (seg.kind === 'greedy' && i === segs.length - 1) {
        (names ??= []).push('*');
        greedyAlias = seg.name;
        awsGreedy = seg.name ?? 'proxy';
        terminal = node.wildcard ??= newTerminal();
        isStatic = false;
        break;
      }
      if (seg.kind === 'param') {
        (names ??= []).push(seg.name);
        node = node.param ??= newNode();
        isStatic = false;
      } else {
        const key = safeDecode(segs[i]);
        const statics = (node.statics ??= new Map());
        let next = statics.get(key);
        if (next === undefined) statics.set(key, (next = newNode()));
        node = next;
      }
    }
    terminal ??= node.terminal ??= newTerminal();
    const entry: Entry = { route, resource, awsResource: awsTemplate(resource), names, greedyAlias, awsGreedy };
    // Same method + same shape twice is refused upstream (409); if it slips through, the first one stays.
    if (route.method === 'ANY') terminal.any ??= entry;
    else if (!terminal.byMethod.has(route.method)) terminal.byMethod.set(route.method, entry);
    if (isStatic && !resource.includes('%')) this.exact.set(resource, terminal);
  }

  /**
   * `path` is what follows `/api/invoke/fn/<apiId>`: '' or '/...', still
   * percent-encoded, without the query string.
   */
  match(method: string, path: string): MatchResult {
    const p = normalize(path);
    if (p === null) return NOT_FOUND;
    if (p.indexOf('%') === -1) {
      const t = this.exact.get(p);
      const hit = t === undefined ? null : accept(t, method);
      if (hit !== null) return matched(hit, null);
    }
    const values: string[] = [];
    const start = p === '/' ? 1 : 0;
    const hit = find(this.root, p, start, method, values);
    if (hit !== null) {
      let params: Record<string, string> | null = null;
      if (hit.names !== null) {
        params = {};
        for (let i = 0; i < hit.names.length; i++) setOwn(params, hit.names[i], safeDecode(values[i]));
        if (hit.greedyAlias !== null) setOwn(params, hit.greedyAlias, params['*']);
      }
      return matched(hit, params);
    }
    const allow = new Set<string>();
    collect(this.root, p, start, allow);
    if (allow.size === 0) return NOT_FOUND;
    if (allow.has('GET')) allow.add('HEAD');
    return { kind: 'method_not_allowed', allow: [...allow].sort() };
  }
}

function matched(e: Entry, pathParameters: Record<string, string> | null): RouteMatch {
  return {
    kind: 'match',
    route: e.route,
    pathParameters,
    resource: e.resource,
    awsResource: e.awsResource,
    awsGreedy: e.awsGreedy,
  };
}

/**
 * Depth-first in precedence order (static, then param, then wildcard), so the
 * first accepted terminal is the most specific template segment by segment.
 * `pos` is the index of the `/` before the next segment, or p.length at the end.
 * On success `values` holds the raw parameter values in path order.
 */
function find(node: TrieNode, p: string, pos: number, method: string, values: string[]): Entry | null {
  if (pos >= p.length) {
    if (node.terminal !== null) {
      const e = accept(node.terminal, method);
      if (e !== null) return e;
    }
    if (node.wildcard !== null) {
      const e = accept(node.wildcard, method);
      if (e !== null) {
        values.push('');
        return e;
      }
    }
    return null;
  }
  const segStart = pos + 1;
  let segEnd = p.indexOf('/', segStart);
  if (segEnd === -1) segEnd = p.length;
  if (node.statics !== null || node.param !== null) {
    const seg = p.slice(segStart, segEnd);
    if (node.statics !== null) {
      const next = node.statics.get(safeDecode(seg));
      if (next !== undefined) {
        const e = find(next, p, segEnd, method, values);
        if (e !== null) return e;
      }
    }
    if (node.param !== null && seg !== '') {
      const depth = values.length;
      values.push(seg);
      const e = find(node.param, p, segEnd, method, values);
      if (e !== null) return e;
      values.length = depth;
    }
  }
  if (node.wildcard !== null) {
    const e = accept(node.wildcard, method);
    if (e !== null) {
      values.push(p.slice(segStart));
      return e;
    }
  }
  return null;
}

/** Every method of every template matching the path, for the 405 Allow header. */
function collect(node: TrieNode, p: string, pos: number, out: Set<string>): void {
  if (pos >= p.length) {
    if (node.terminal !== null) addMethods(node.terminal, out);
    if (node.wildcard !== null) addMethods(node.wildcard, out);
    return;
  }
  const segStart = pos + 1;
  let segEnd = p.indexOf('/', segStart);
  if (segEnd === -1) segEnd = p.length;
  const seg = p.slice(segStart, segEnd);
  const next = node.statics?.get(safeDecode(seg));
  if (next !== undefined) collect(next, p, segEnd, out);
  if (node.param !== null && seg !== '') collect(node.param, p, segEnd, out);
  if (node.wildcard !== null) addMethods(node.wildcard, out);
}

function addMethods(t: Terminal, out: Set<string>): void {
  for (const m of t.byMethod.keys()) out.add(m);
}
