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
      fns[copy] = { ...fn, event_format: format };
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
    for (const fn of Object.values(fns)) {
      // A function no HTTP event calls still gets a Lambda event format: its code expects one.
      if (fn.event_format === undefined) fn.event_format = 'aws-v2';
      if (Object.keys(fn.env ?? {}).length === 0) delete fn.env;
    }
    if (Object.keys(this.document.apis!).length === 0) delete this.document.apis;
    const header = this.notes.length > 0 ? `# Imported; not carried or changed:\n${this.notes.map((n) => `#   - ${n}\n`).join('')}` : '';
    return { document: this.document, yaml: header + stringify(this.document, { lineWidth: 0 }), notes: this.notes };
  }
}
