/**
 * `switchyard --demo`: deploys examples/demo.json through the running server's
 * own management API (plain HTTP, so the demo exercises exactly what users
 * call). It creates what is missing and leaves the rest: functions, APIs and
 * webhooks are matched by name, and one that exists is never changed, so a
 * restart with --demo keeps whatever the user edited. A demo file that cannot
 * be deployed is a ConfigError naming the file, the function and the line.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from './errors.js';

export interface DemoFunction {
  name: string;
  /** Relative to `<examplesDir>/functions`. */
  file: string;
  runtime?: 'javascript' | 'typescript';
  env?: Record<string, string>;
  /** The export to call (`app.lambdaHandler`); absent: the server's default rule. */
  handler?: string;
  /** `switchyard` (absent), `aws-v1` or `aws-v2`. */
  event_format?: 'switchyard' | 'aws-v1' | 'aws-v2';
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
    await createFunctionIfMissing(call, fn, path.join(opts.examplesDir, 'functions', fn.file), opts.log);
  }

  const existing = (await call('GET', '/api/apis?limit=1000')).body as RemoteApi[];
  const apis: DemoResult['apis'] = [];
  for (const wanted of definition.apis) {
    let api = existing.find((a) => a.name === wanted.name);
    if (api) {
      opts.log.info({ api: api.id, name: api.name }, 'demo API already present, left as it is');
    } else {
      api = (await call('POST', '/api/apis', wanted)).body as RemoteApi;
      opts.log.info({ api: api.id, name: api.name }, 'demo API created');
    }
    apis.push({ name: api.name, id: api.id, invokeUrl: absoluteInvokeUrl(baseUrl, api) });
  }
  const webhooks = await createMissingWebhooks(call, definition.webhooks ?? [], apis, opts.log);
  return { apis, webhooks };
}

/** Creates the demo webhooks that do not exist yet (matched by name), resolving API names to ids and URLs. */
async function createMissingWebhooks(
  call: Call,
  wanted: DemoWebhook[],
  apis: DemoResult['apis'],
  log: LoadDemoOptions['log'],
): Promise<DemoResult['webhooks']> {
  if (wanted.length === 0) return [];
  const existing = (await call('GET', '/api/webhooks?limit=1000')).body as Array<{ id: string; name: string; cron: string | null }>;
  const apiNamed = (name: string) => {
    const api = apis.find((a) => a.name === name);
    if (!api) throw new ConfigError(`a demo webhook refers to the API '${name}', which the demo does not define. Fix examples/demo.json, or start without --demo`);
    return api;
  };
  const out: DemoResult['webhooks'] = [];
  for (const { target, mock_endpoint, ...fields } of wanted) {
    let webhook = existing.find((w) => w.name === fields.name);
    if (webhook) {
      log.info({ webhook: webhook.id, name: webhook.name }, 'demo webhook already present, left as it is');
    } else {
      const body: Record<string, unknown> = { ...fields, target_url: apiNamed(target.api).invokeUrl + target.path };
      if (mock_endpoint) body.mock_endpoint = { api_id: apiNamed(mock_endpoint.api).id, path: mock_endpoint.path };
      webhook = (await call('POST', '/api/webhooks', body)).body as { id: string; name: string; cron: string | null };
      log.info({ webhook: webhook.id, name: webhook.name }, 'demo webhook created');
    }
    out.push({ name: webhook.name, id: webhook.id, cron: webhook.cron });
  }
  return out;
}

/** Calls the management API; an answer outside 2xx and `accept` is a DemoLoadError. */
type Call = (method: string, url: string, body?: unknown, accept?: number[]) => Promise<{ status: number; body: unknown }>;

function managementClient(baseUrl: string, adminKey: string | null): Call {
  return async function callManagementApi(method, url, body, accept = []) {
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
    if (!res.ok && !accept.includes(res.status)) {
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
    throw new ConfigError(`cannot read the demo file ${shown(file)}: ${(err as Error).message}`);
  }
  let def: Partial<DemoDefinition>;
  try {
    def = JSON.parse(raw) as Partial<DemoDefinition>;
  } catch (err) {
    throw new ConfigError(`the demo file ${shown(file)} is not valid JSON: ${(err as Error).message}. Fix it, or start without --demo`);
  }
  if (!Array.isArray(def?.functions) || !Array.isArray(def?.apis)) {
    throw new ConfigError(`the demo file ${shown(file)} must have "functions" and "apis" arrays. Fix it, or start without --demo`);
  }
  return def as DemoDefinition;
}

/** A file under the working directory as a relative path (shorter to read), else as it is. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

interface ErrorAnswer {
  error?: string;
  details?: { line?: number | null; column?: number | null };
}

/** Deploys a demo function unless one of that name exists, which is left as it is (the user may have edited it). */
async function createFunctionIfMissing(call: Call, fn: DemoFunction, file: string, log: LoadDemoOptions['log']): Promise<void> {
  const present = await call('GET', `/api/functions/${encodeURIComponent(fn.name)}`, undefined, [404]);
  if (present.status !== 404) {
    log.info({ function: fn.name }, 'demo function already present, left as it is');
    return;
  }
  let code: string;
  try {
    code = await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read ${shown(file)}, the code of the demo function '${fn.name}': ${(err as Error).message}`);
  }
  const body = {
    name: fn.name,
    code,
    runtime: fn.runtime ?? 'javascript',
    env: fn.env ?? {},
    ...(fn.handler ? { handler: fn.handler } : {}),
    ...(fn.event_format ? { event_format: fn.event_format } : {}),
  };
  const created = await call('POST', '/api/functions', body, [400, 409]);
  if (created.status === 400) throw refusedDemoFunction(fn, file, created.body as ErrorAnswer);
  // 409: created in the meantime (another node loading the demo too); theirs stays.
  if (created.status !== 409) log.info({ function: fn.name }, 'demo function created');
}

/** One line naming the function, the file and the line, and what to do about it. */
function refusedDemoFunction(fn: DemoFunction, file: string, answer: ErrorAnswer): ConfigError {
  const line = answer.details?.line;
  const column = answer.details?.column;
  const where = line ? `, line ${line}${column ? ` column ${column}` : ''}` : '';
  // The server's message names the field and the position, which this line gives in its own words.
  const reason = (answer.error ?? 'refused').replace(/^code: /, '').replace(/ \((?:[^(),]+, )?line \d+(, column \d+)?\)$/, '');
  return new ConfigError(
    `the demo function '${fn.name}' in ${shown(file)} cannot be deployed${where}: ${reason}. Fix the file, or start without --demo`,
  );
}

function absoluteInvokeUrl(baseUrl: string, api: RemoteApi): string {
  if (api.invokeUrl && /^https?:\/\//.test(api.invokeUrl)) return api.invokeUrl;
  if (api.invokeUrl) return baseUrl + api.invokeUrl;
  return `${baseUrl}/api/invoke/fn/${api.id}${api.basePath === '/' ? '' : api.basePath}`;
}
