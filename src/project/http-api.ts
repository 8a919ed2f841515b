/**
 * ProjectApi over HTTP: the documented management endpoints (docs/api.md)
 * with `fetch`, the admin key as a Bearer token, lists followed page by page
 * through their `Link: rel="next"` header. One small file on purpose: a typed
 * client generated from the OpenAPI document can replace it behind the same
 * interface.
 */
import type { ProjectApi, RemoteApi, RemoteFunction, RemoteWebhook, DryRunResult } from './api.js';
import { ProjectApiError } from './types.js';

export interface HttpProjectApiOptions {
  /** Server origin, e.g. http://localhost:3000 */
  baseUrl: string;
  adminKey?: string | null;
  fetch?: typeof fetch;
}

export function createHttpProjectApi(options: HttpProjectApiOptions): ProjectApi {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;

  async function call<T>(method: string, path: string, body?: unknown): Promise<{ data: T; headers: Headers }> {
    const headers: Record<string, string> = {};
    if (options.adminKey) headers.authorization = `Bearer ${options.adminKey}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await doFetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new ProjectApiError(0, 'unreachable', `cannot reach ${base} (${cause})`);
    }
    const text = await res.text();
    let data: unknown;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      data = text;
    }
    if (!res.ok) {
      const e = (data ?? {}) as { error?: string; code?: string; details?: unknown };
      throw new ProjectApiError(res.status, e.code, e.error ?? `${method} ${path} answered ${res.status}`, e.details);
    }
    return { data: data as T, headers: res.headers };
  }

  async function list<T>(path: string): Promise<T[]> {
    const items: T[] = [];
    let next: string | null = `${path}?limit=1000`;
    while (next) {
      const page: { data: T[]; headers: Headers } = await call<T[]>('GET', next);
      const { data, headers } = page;
      items.push(...data);
      next = /<([^>]+)>;\s*rel="next"/.exec(headers.get('link') ?? '')?.[1] ?? null;
    }
    return items;
  }

  const enc = encodeURIComponent;
  const value = async <T>(p: Promise<{ data: T }>) => (await p).data;

  return {
    listFunctions: () => list<RemoteFunction>('/api/functions'),
    getFunction: (name) => value(call<RemoteFunction>('GET', `/api/functions/${enc(name)}`)),
    createFunction: (body) => value(call<RemoteFunction>('POST', '/api/functions', body)),
    updateFunction: (name, body) => value(call<RemoteFunction>('PUT', `/api/functions/${enc(name)}`, body)),
    deleteFunction: async (name) => void (await call('DELETE', `/api/functions/${enc(name)}`)),
    checkFunction: (body, exists) => {
      if (!exists) return value(call<DryRunResult>('POST', '/api/functions?dry_run=true', body));
      const { name, ...patch } = body;
      return value(call<DryRunResult>('PUT', `/api/functions/${enc(name)}?dry_run=true`, patch));
    },

    listApis: () => list<RemoteApi>('/api/apis'),
    createApi: (body) => value(call<RemoteApi>('POST', '/api/apis', body)),
    updateApi: (id, body) => value(call<RemoteApi>('PUT', `/api/apis/${enc(id)}`, body)),
    deleteApi: async (id) => void (await call('DELETE', `/api/apis/${enc(id)}`)),

    listWebhooks: () => list<RemoteWebhook>('/api/webhooks'),
    createWebhook: (body) => value(call<RemoteWebhook>('POST', '/api/webhooks', body)),
    updateWebhook: (id, body) => value(call<RemoteWebhook>('PUT', `/api/webhooks/${enc(id)}`, body)),
    deleteWebhook: async (id) => void (await call('DELETE', `/api/webhooks/${enc(id)}`)),
    checkWebhook: (body, id) =>
      value(
        id === undefined
          ? call<DryRunResult>('POST', '/api/webhooks?dry_run=true', body)
          : call<DryRunResult>('PUT', `/api/webhooks/${enc(id)}?dry_run=true`, body),
      ),
  };
}
