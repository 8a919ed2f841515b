/**
 * What the serverless.yml and SAM importers share: Lambda's `file.export`
 * handler split into a file and an export, methods and paths in API Gateway
 * syntax, limits clamped to Switchyard's, and the project document they
 * build with the notes on what was not carried.
 */
import { stringify } from 'yaml';
import { validateRoutePath } from '../gateway/paths.js';
import type { EventFormat, RouteMethod } from '../types.js';
import type { ProjectDocument, ProjectRoute } from './types.js';
import { awsScheduleToCron } from './aws-schedule.js';

type FunctionSpec = NonNullable<ProjectDocument['functions']>[string];
type ScheduleSpec = NonNullable<FunctionSpec['schedules']>[number];

/** An AWS schedule's `input`: a JSON object (or its text) becomes the payload; anything else is reported. */
export function schedulePayload(input: unknown, where: string, notes: string[]): Record<string, unknown> | undefined {
  if (input === undefined || input === null) return undefined;
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch {
      notes.push(`${where}: the input is not JSON; not carried`);
      return undefined;
    }
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  notes.push(`${where}: the input ${JSON.stringify(value)} is not a JSON object (a schedule's payload is one); not carried`);
  return undefined;
}

/**
 * An AWS schedule expression as a function schedule, or undefined after a
 * note saying why it cannot be (see aws-schedule.ts for the translation).
 */
export function scheduleFrom(
  expression: unknown,
  where: string,
  notes: string[],
  extra: { timezone?: unknown; input?: unknown } = {},
): ScheduleSpec | undefined {
  if (typeof expression !== 'string') {
    notes.push(`${where}: schedule ${JSON.stringify(expression)} is not a rate(...) or cron(...) text; not carried`);
    return undefined;
  }
  const result = awsScheduleToCron(expression);
  if ('refused' in result) {
    notes.push(`${where}: ${result.refused}; not carried`);
    return undefined;
  }
  if (result.note) notes.push(`${where}: ${expression.trim()} is '${result.cron}' (${result.note})`);
  const spec: ScheduleSpec = { cron: result.cron };
  if (typeof extra.timezone === 'string' && extra.timezone !== 'UTC') spec.timezone = extra.timezone;
  const payload = schedulePayload(extra.input, where, notes);
  if (payload) spec.payload = payload;
  return spec;
}

/**
 * An EventBridge pattern's `detail-type` list as event names to subscribe
 * to; the rest of the pattern (`source`, `detail`...) is reported, since
 * Switchyard matches on the event name alone.
 */
export function eventsFromPattern(pattern: unknown, where: string, notes: string[]): string[] {
  const p = typeof pattern === 'object' && pattern !== null && !Array.isArray(pattern) ? (pattern as Record<string, unknown>) : {};
  const types = p['detail-type'];
  const names = Array.isArray(types) ? types.filter((t): t is string => typeof t === 'string' && t.length > 0 && t.length <= 200) : [];
  if (names.length === 0 || (Array.isArray(types) && names.length !== types.length)) {
    notes.push(`${where}: only a pattern with a detail-type list of names maps to function events; not carried`);
    return [];
  }
  const rest = Object.keys(p).filter((k) => k !== 'detail-type');
  if (rest.length > 0) notes.push(`${where}: ${rest.join(', ')} of the pattern not carried (functions subscribe by event name: the detail-type)`);
  return names;
}

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface ImportOptions {
  /** Whether a file exists, relative to the imported file: picks the handler file's extension. Default: `.js`. */
  exists?: (relativePath: string) => boolean;
}

export interface ImportResult {
  /** The project, as switchyard.yaml would hold it (paths relative to the imported file's folder). */
  document: ProjectDocument;
  /** The same, as YAML text. */
  yaml: string;
  /** What was not carried over, or was changed on the way. */
  notes: string[];
}

const EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts', '.mts'];
const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** `src/handler.hello` -> `{ file: 'src/handler.js', handler: 'hello' }` (the extension found on disk, else .js). */
export function splitHandler(handler: string, dir: string, options: ImportOptions): { file: string; handler: string } {
  const dot = handler.lastIndexOf('.');
  const base = dot > 0 ? handler.slice(0, dot) : handler;
  const exported = dot > 0 ? handler.slice(dot + 1) : 'handler';
  const prefix = dir ? `${dir.replace(/\/+$/, '').replace(/^\.\//, '')}/` : '';
  const stem = `${prefix}${base.replace(/^\.\//, '')}`;
  const file = EXTENSIONS.map((ext) => stem + ext).find((f) => options.exists?.(f)) ?? `${stem}.js`;
  return { file, handler: exported };
}

export function functionName(name: string, notes: string[]): string {
  if (NAME.test(name)) return name;
  const fixed = (/^[A-Za-z]/.test(name) ? name : `fn-${name}`).replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 64);
  notes.push(`function '${name}' is named '${fixed}' (names are letters, digits, _ and -)`);
  return fixed;
}

/** `get` -> GET, `any` and `*` -> ANY. */
export function routeMethod(method: string): RouteMethod | null {
  const m = method.trim().toUpperCase();
  if (m === '*' || m === 'ANY') return 'ANY';
  return (['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const).find((x) => x === m) ?? null;
}

/** `users/{id}` -> `/users/{id}`; a trailing slash dropped. */
export function routePath(path: string): string {
  const p = `/${path.trim().replace(/^\/+/, '')}`;
  return p.length > 1 ? p.replace(/\/+$/, '') : p;
}

/** Lambda's MaximumRetryAttempts (0 to 2) as `async.retries`; undefined when absent or not a number. */
export function retriesOf(value: unknown, where: string, notes: string[]): number | undefined {
  if (value === undefined || value === null) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    notes.push(`${where}: ${JSON.stringify(value)} is not a number of retries; not carried`);
    return undefined;
  }
  if (n > 5) {
    notes.push(`${where}: ${n} retries is above Switchyard's 5; set to 5`);
    return 5;
  }
  return n;
}

/** Lambda's seconds to timeout_ms, within Switchyard's 1 to 900000. */
export function timeoutMs(seconds: unknown): number | undefined {
  const n = Number(seconds);
  return Number.isFinite(n) && n > 0 ? Math.min(Math.round(n * 1000), 900_000) : undefined;
}

/** Lambda's MemorySize to memory_mb: Switchyard's isolates take 8 to 1024 MB. */
export function memoryMb(mb: unknown, where: string, notes: string[]): number | undefined {
  const n = Number(mb);
  if (!Number.isFinite(n) || n <= 0) return undefined;
  if (n > 1024) {
    notes.push(`${where}: memory ${n} MB is above Switchyard's 1024 MB; set to 1024`);
    return 1024;
  }
  return Math.max(8, Math.round(n));
}

/** Builds the document, one function per (name, event format): a function on both a REST and an HTTP API is split. */
export class ProjectBuilder {
  readonly document: ProjectDocument = { version: 1, functions: {}, apis: {} };
  readonly notes: string[] = [];

  addFunction(name: string, spec: NonNullable<ProjectDocument['functions']>[string]): void {
    this.document.functions![name] = spec;
  }

  /** A schedule of the function (at most 20, as the server takes). */
  addSchedule(name: string, schedule: ScheduleSpec, where: string): void {
    const fn = this.document.functions![name];
    fn.schedules ??= [];
    if (fn.schedules.length >= 20) {
      this.notes.push(`${where}: a function has at most 20 schedules; not carried`);
      return;
    }
    fn.schedules.push(schedule);
  }

  /**
   * Lambda's asynchronous invocation settings: `retries` (Lambda's 0 to 2
   * fit Switchyard's 0 to 5), and destinations that name another function of
   * the file (checked in result(): one the import did not carry is dropped).
   */
  setAsync(name: string, async: NonNullable<FunctionSpec['async']>): void {
    const fn = this.document.functions![name];
    const out: NonNullable<FunctionSpec['async']> = {};
    if (async.retries !== undefined) out.retries = async.retries;
    if (async.on_success) out.on_success = async.on_success;
    if (async.on_failure) out.on_failure = async.on_failure;
    if (Object.keys(out).length > 0) fn.async = out;
  }

  /** Event names the function subscribes to (once each, at most 50). */
  addEvents(name: string, names: string[], where: string): void {
    const fn = this.document.functions![name];
    fn.events ??= [];
    for (const event of names) {
      if (fn.events.includes(event)) continue;
      if (fn.events.length >= 50) {
        this.notes.push(`${where}: a function subscribes to at most 50 events; '${event}' not carried`);
        continue;
      }
      fn.events.push(event);
    }
  }

  /** The function to route for this event format: the function itself, or a copy named `<name>-v1`/`-v2` for the other format. */
  functionFor(name: string, format: EventFormat): string {
    const fns = this.document.functions!;
    const fn = fns[name];
    if (fn.event_format === undefined) {
      fn.event_format = format;
      return name;
    }
    if (fn.event_format === format) return name;
    const copy = `${name}-${format === 'aws-v1' ? 'v1' : 'v2'}`.slice(0, 64);
    if (!fns[copy]) {
      // The copy serves HTTP only: schedules and events stay with the function, or they would run twice.
      const { schedules: _schedules, events: _events, ...http } = fn;
      fns[copy] = { ...http, event_format: format };
      this.notes.push(`function '${name}' serves both a REST and an HTTP API: '${copy}' is a copy with the ${format} event format`);
    }
    return copy;
  }

  addRoute(api: string, route: ProjectRoute, where: string): void {
    const problem = validateRoutePath(route.path);
    if (problem) {
      this.notes.push(`${where}: ${route.method} ${route.path} is not carried (${problem})`);
      return;
    }
    const apis = this.document.apis!;
    apis[api] ??= { base_path: '/', routes: [] };
    const routes = apis[api].routes!;
    if (routes.some((r) => r.method === route.method && r.path === route.path)) {
      this.notes.push(`${where}: ${route.method} ${route.path} is already routed in API '${api}'; kept the first`);
      return;
    }
    routes.push(route);
  }

  result(): ImportResult {
    const fns = this.document.functions!;
    for (const [name, fn] of Object.entries(fns)) {
      for (const key of ['on_success', 'on_failure'] as const) {
        const d = fn.async?.[key];
        if (d && 'function' in d && !fns[d.function]) {
          this.notes.push(`functions.${name}: the ${key} destination '${d.function}' was not carried; left out`);
          delete fn.async![key];
        }
      }
      if (fn.async && Object.keys(fn.async).length === 0) delete fn.async;
      // A function no HTTP event calls still gets a Lambda event format: its code expects one.
      if (fn.event_format === undefined) fn.event_format = 'aws-v2';
      if (Object.keys(fn.env ?? {}).length === 0) delete fn.env;
    }
    if (Object.keys(this.document.apis!).length === 0) delete this.document.apis;
    const header = this.notes.length > 0 ? `# Imported; not carried or changed:\n${this.notes.map((n) => `#   - ${n}\n`).join('')}` : '';
    return { document: this.document, yaml: header + stringify(this.document, { lineWidth: 0 }), notes: this.notes };
  }
}
