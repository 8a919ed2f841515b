/**
 * `switchyard --demo`: deploys examples/demo.json through the running server's
 * own management API (plain HTTP, so the demo exercises exactly what users
 * call). Idempotent across restarts: existing functions are updated only when
 * their code, runtime or env keys differ, and APIs are matched by name.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface DemoFunction {
  name: string;
  /** Relative to `<examplesDir>/functions`. */
  file: string;
  runtime?: 'javascript' | 'typescript';
  env?: Record<string, string>;
}

export interface DemoApi {
  name: string;
  basePath: string;
  routes: Array<{ method: string; path: string; function: string }>;
}

/** A demo webhook; its target and mock endpoint name a demo API instead of an id. */
export interface DemoWebhook {
  name: string;
  target: { api: string; path: string };
  mock_endpoint?: { api: string; path: string };
  [field: string]: unknown;
}

export interface DemoDefinition {
  functions: DemoFunction[];
  apis: DemoApi[];
  webhooks?: DemoWebhook[];
}

export interface LoadDemoOptions {
  /** The running server, e.g. `http://127.0.0.1:3000` (no trailing slash needed). */
  baseUrl: string;
  adminKey: string | null;
  /** Folder holding demo.json and functions/; see defaultExamplesDir(). */
  examplesDir: string;
  log: { info(obj: object | string, msg?: string): void };
}

export interface DemoResult {
  apis: Array<{ name: string; id: string; invokeUrl: string }>;
  webhooks: Array<{ name: string; id: string; cron: string | null }>;
}

/** A demo step the server refused; carries the management API's answer. */
export class DemoLoadError extends Error {
  readonly code = 'demo_load_failed';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'DemoLoadError';
  }
}

/**
 * The repository's examples/ folder. Compiled, this module is dist/demo.js, so
 * `../examples/` is the repository's (or the installed package's) examples/;
 * under vitest it is src/demo.ts, which resolves to the same folder.
 */
export function defaultExamplesDir(): string {
  return fileURLToPath(new URL('../examples/', import.meta.url));
}

interface RemoteFunction {
  name: string;
  runtime: string;
  env_keys: string[];
  code_sha256: string;
}

interface RemoteApi {
  id: string;
  name: string;
  basePath: string;
  routes: Array<{ id: string; method: string; path: string; function: string }>;
  invokeUrl?: string;
}

export async function loadDemo(opts: LoadDemoOptions): Promise<DemoResult> {
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  const call = managementClient(baseUrl, opts.adminKey);
  const definition = await readDefinition(opts.examplesDir);

  for (const fn of definition.functions) {
    const code = await readFile(path.join(opts.examplesDir, 'functions', fn.file), 'utf8');
    await upsertFunction(call, fn, code, opts.log);
  }

  const existing = (await call('GET', '/api/apis?limit=1000')).body as RemoteApi[];
  const apis: DemoResult['apis'] = [];
  for (const wanted of definition.apis) {
    let api = existing.find((a) => a.name === wanted.name);
    if (api) {
      await addMissingRoutes(call, api, wanted, opts.log);
      opts.log.info({ api: api.id, name: api.name }, 'demo API already present, reused');
    } else {
      api = (await call('POST', '/api/apis', wanted)).body as RemoteApi;
      opts.log.info({ api: api.id, name: api.name }, 'demo API created');
    }
    apis.push({ name: api.name, id: api.id, invokeUrl: absoluteInvokeUrl(baseUrl, api) });
  }
  const webhooks = await upsertWebhooks(call, definition.webhooks ?? [], apis, opts.log);
  return { apis, webhooks };
}

/** Creates the demo webhooks that do not exist yet (matched by name), resolving API names to ids and URLs. */
async function upsertWebhooks(
  call: Call,
  wanted: DemoWebhook[],
  apis: DemoResult['apis'],
  log: LoadDemoOptions['log'],
): Promise<DemoResult['webhooks']> {
  if (wanted.length === 0) return [];
  const existing = (await call('GET', '/api/webhooks?limit=1000')).body as Array<{ id: string; name: string; cron: string | null }>;
  const apiNamed = (name: string) => {
    const api = apis.find((a) => a.name === name);
    if (!api) throw new DemoLoadError(`demo: webhook refers to API '${name}', which the demo does not define`);
    return api;
  };
  const out: DemoResult['webhooks'] = [];
  for (const { target, mock_endpoint, ...fields } of wanted) {
    let webhook = existing.find((w) => w.name === fields.name);
    if (!webhook) {
      const body: Record<string, unknown> = { ...fields, target_url: apiNamed(target.api).invokeUrl + target.path };
      if (mock_endpoint) body.mock_endpoint = { api_id: apiNamed(mock_endpoint.api).id, path: mock_endpoint.path };
      webhook = (await call('POST', '/api/webhooks', body)).body as { id: string; name: string; cron: string | null };
      log.info({ webhook: webhook.id, name: webhook.name }, 'demo webhook created');
    }
    out.push({ name: webhook.name, id: webhook.id, cron: webhook.cron });
  }
  return out;
}

type Call = (method: string, url: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

function managementClient(baseUrl: string, adminKey: string | null): Call {
  return async function callManagementApi(method, url, body) {
    const headers: Record<string, string> = {};
    if (adminKey) headers.authorization = `Bearer ${adminKey}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(baseUrl + url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // keep the raw text for the error message
    }
    // 404 and 409 are answers the callers branch on; everything else non-2xx is fatal.
    if (!res.ok && res.status !== 404 && res.status !== 409) {
      const detail = typeof parsed === 'object' && parsed && 'error' in parsed ? (parsed as { error: string }).error : text;
      throw new DemoLoadError(`demo: ${method} ${url} answered ${res.status}: ${detail}`, res.status);
    }
    return { status: res.status, body: parsed };
  };
}

async function readDefinition(examplesDir: string): Promise<DemoDefinition> {
  const file = path.join(examplesDir, 'demo.json');
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch (err) {
    throw new DemoLoadError(`demo: cannot read ${file}: ${(err as Error).message}`);
  }
  const def = JSON.parse(raw) as Partial<DemoDefinition>;
  if (!Array.isArray(def.functions) || !Array.isArray(def.apis)) {
    throw new DemoLoadError(`demo: ${file} must have "functions" and "apis" arrays`);
  }
  return def as DemoDefinition;
}

async function upsertFunction(call: Call, fn: DemoFunction, code: string, log: LoadDemoOptions['log']): Promise<void> {
  const runtime = fn.runtime ?? 'javascript';
  const env = fn.env ?? {};
  const created = await call('POST', '/api/functions', { name: fn.name, code, runtime, env });
  if (created.status !== 409) {
    log.info({ function: fn.name }, 'demo function created');
    return;
  }
  const current = await call('GET', `/api/functions/${encodeURIComponent(fn.name)}`);
  if (current.status === 200 && isSameDeployment(current.body as RemoteFunction, code, runtime, env)) return;
  // Env values are write-only, so only a change of keys is visible; the demo's values never change anyway.
  const updated = await call('PUT', `/api/functions/${encodeURIComponent(fn.name)}`, { code, runtime, env });
  if (updated.status === 404) {
    // Deleted between our two calls: create it again.
    await call('POST', '/api/functions', { name: fn.name, code, runtime, env });
  }
  log.info({ function: fn.name }, 'demo function updated');
}

function isSameDeployment(remote: RemoteFunction, code: string, runtime: string, env: Record<string, string>): boolean {
  const sha = createHash('sha256').update(code).digest('hex');
  const keys = Object.keys(env).sort().join(',');
  return (
    remote.code_sha256 === sha &&
    remote.runtime === runtime &&
    Array.isArray(remote.env_keys) &&
    [...remote.env_keys].sort().join(',') === keys
  );
}

/** Routes the user deleted from a reused demo API come back; other changes are left alone. */
async function addMissingRoutes(call: Call, api: RemoteApi, wanted: DemoApi, log: LoadDemoOptions['log']) {
  for (const route of wanted.routes) {
    const present = api.routes.some((r) => r.method === route.method && r.path === route.path);
    if (present) continue;
    const res = await call('POST', `/api/apis/${encodeURIComponent(api.id)}/routes`, route);
    if (res.status === 201 || res.status === 200) {
      api.routes.push(res.body as RemoteApi['routes'][number]);
      log.info({ api: api.id, route: `${route.method} ${route.path}` }, 'demo route restored');
    } else {
      // 409: the user bound another function to that shape; theirs wins.
      log.info({ api: api.id, route: `${route.method} ${route.path}`, status: res.status }, 'demo route left as is');
    }
  }
}

function absoluteInvokeUrl(baseUrl: string, api: RemoteApi): string {
  if (api.invokeUrl && /^https?:\/\//.test(api.invokeUrl)) return api.invokeUrl;
  if (api.invokeUrl) return baseUrl + api.invokeUrl;
  return `${baseUrl}/api/invoke/fn/${api.id}${api.basePath === '/' ? '' : api.basePath}`;
}
