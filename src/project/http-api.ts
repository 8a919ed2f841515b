/**
 * ProjectApi over HTTP, through the package's typed client (src/client/,
 * generated from the OpenAPI document), the same calls the CLI makes: the
 * admin key as a Bearer token, lists followed page by page through their
 * `Link: rel="next"` header, every failure a ProjectApiError carrying the
 * server's status, code and details (status 0 when nothing answered).
 */
import { createClient, nextPageAfter } from '../client/index.js';
import type { DryRunResult, FunctionBody, ProjectApi, RemoteApi, RemoteEventType, RemoteFunction, RemoteUsagePlan, RemoteWebhook, WebhookBody } from './api.js';
import { ProjectApiError } from './types.js';
import type { RemoteApplication } from './applications.js';

export interface HttpProjectApiOptions {
  /** Server origin, e.g. http://localhost:3000 */
  baseUrl: string;
  adminKey?: string | null;
  fetch?: (input: Request) => Promise<Response>;
}

interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

const DRY_RUN = { dry_run: 'true' } as const;

export function createHttpProjectApi(options: HttpProjectApiOptions): ProjectApi {
  const base = options.baseUrl.replace(/\/+$/, '');
  const client = createClient({ baseUrl: base, adminKey: options.adminKey, fetch: options.fetch });

  /** The answer's data, or a ProjectApiError naming what the server said. */
  async function send<T>(what: string, request: Promise<Answer>): Promise<{ data: T; response: Response }> {
    let answer: Answer;
    try {
      answer = await request;
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new ProjectApiError(0, 'unreachable', `cannot reach ${base} (${cause})`);
    }
    if (!answer.response.ok) {
      const e = (answer.error ?? {}) as { error?: string; code?: string; details?: unknown };
      throw new ProjectApiError(answer.response.status, e.code, e.error ?? `${what} answered ${answer.response.status}`, e.details);
    }
    return { data: answer.data as T, response: answer.response };
  }
  const value = async <T>(what: string, request: Promise<Answer>) => (await send<T>(what, request)).data;

  /** Every page of a list: `after` comes from the `Link: <...>; rel="next"` header. */
  async function list<T>(what: string, page: (after: string | undefined) => Promise<Answer>): Promise<T[]> {
    const items: T[] = [];
    let after: string | undefined;
    do {
      const { data, response } = await send<T[]>(what, page(after));
      items.push(...data);
      after = nextPageAfter(response);
    } while (after !== undefined);
    return items;
  }
  const page = (after: string | undefined) => ({ query: { limit: 1000, ...(after === undefined ? {} : { after }) } });
  const fn = (name: string) => ({ path: { name } });
  const id = (value: string) => ({ path: { id: value } });

  return {
    listFunctions: () => list<RemoteFunction>('GET /api/functions', (after) => client.GET('/api/functions', { params: page(after) })),
    getFunction: (name) => value<RemoteFunction>('GET /api/functions/{name}', client.GET('/api/functions/{name}', { params: fn(name) })),
    createFunction: (body) => value<RemoteFunction>('POST /api/functions', client.POST('/api/functions', { body })),
    updateFunction: (name, body) =>
      value<RemoteFunction>('PUT /api/functions/{name}', client.PUT('/api/functions/{name}', { params: fn(name), body })),
    deleteFunction: async (name) => void (await send('DELETE /api/functions/{name}', client.DELETE('/api/functions/{name}', { params: fn(name) }))),
    checkFunction: (body, exists) => {
      // A create is checked with the whole body (plan sends one), an update with the fields that change.
      if (!exists) {
        return value<DryRunResult>('POST /api/functions?dry_run', client.POST('/api/functions', { params: { query: DRY_RUN }, body: body as FunctionBody }));
      }
      const { name, ...patch } = body;
      return value<DryRunResult>(
        'PUT /api/functions/{name}?dry_run',
        client.PUT('/api/functions/{name}', { params: { ...fn(name), query: DRY_RUN }, body: patch }),
      );
    },

    listApis: () => list<RemoteApi>('GET /api/apis', (after) => client.GET('/api/apis', { params: page(after) })),
    createApi: (body) => value<RemoteApi>('POST /api/apis', client.POST('/api/apis', { body })),
    updateApi: (apiId, body) => value<RemoteApi>('PUT /api/apis/{id}', client.PUT('/api/apis/{id}', { params: id(apiId), body })),
    deleteApi: async (apiId) => void (await send('DELETE /api/apis/{id}', client.DELETE('/api/apis/{id}', { params: id(apiId) }))),

    listWebhooks: () => list<RemoteWebhook>('GET /api/webhooks', (after) => client.GET('/api/webhooks', { params: page(after) })),
    createWebhook: (body) => value<RemoteWebhook>('POST /api/webhooks', client.POST('/api/webhooks', { body })),
    updateWebhook: (hookId, body) => value<RemoteWebhook>('PUT /api/webhooks/{id}', client.PUT('/api/webhooks/{id}', { params: id(hookId), body })),
    deleteWebhook: async (hookId) => void (await send('DELETE /api/webhooks/{id}', client.DELETE('/api/webhooks/{id}', { params: id(hookId) }))),
    checkWebhook: (body, hookId) =>
      value<DryRunResult>(
        'webhook dry run',
        hookId === undefined
          ? client.POST('/api/webhooks', { params: { query: DRY_RUN }, body: body as WebhookBody })
          : client.PUT('/api/webhooks/{id}', { params: { ...id(hookId), query: DRY_RUN }, body }),
      ),

    listUsagePlans: async () => {
      try {
        return await list<RemoteUsagePlan>('GET /api/usage-plans', (after) => client.GET('/api/usage-plans', { params: page(after) }));
      } catch (err) {
        // A server older than usage plans has none.
        if (err instanceof ProjectApiError && err.status === 404) return [];
        throw err;
      }
    },
    createUsagePlan: (body) => value<RemoteUsagePlan>('POST /api/usage-plans', client.POST('/api/usage-plans', { body })),
    updateUsagePlan: (planId, body) =>
      value<RemoteUsagePlan>('PUT /api/usage-plans/{id}', client.PUT('/api/usage-plans/{id}', { params: id(planId), body })),
    deleteUsagePlan: async (planId) =>
      void (await send('DELETE /api/usage-plans/{id}', client.DELETE('/api/usage-plans/{id}', { params: id(planId) }))),

    listEventTypes: async () => {
      try {
        return await list<RemoteEventType>('GET /api/event-types', (after) => client.GET('/api/event-types', { params: page(after) }));
      } catch (err) {
        // A server older than the catalogue has none.
        if (err instanceof ProjectApiError && err.status === 404) return [];
        throw err;
      }
    },
    createEventType: (body) => value<RemoteEventType>('POST /api/event-types', client.POST('/api/event-types', { body })),
    updateEventType: (name, body) =>
      value<RemoteEventType>('PUT /api/event-types/{name}', client.PUT('/api/event-types/{name}', { params: { path: { name } }, body })),
    deleteEventType: async (name) =>
      void (await send('DELETE /api/event-types/{name}', client.DELETE('/api/event-types/{name}', { params: { path: { name } } }))),

    listApplications: async () => {
      try {
        return await list<RemoteApplication>('GET /api/applications', (after) => client.GET('/api/applications', { params: page(after) }));
      } catch (err) {
        // A server older than applications has none.
        if (err instanceof ProjectApiError && err.status === 404) return [];
        throw err;
      }
    },
    createApplication: (body) => value<RemoteApplication>('POST /api/applications', client.POST('/api/applications', { body })),
    updateApplication: (appId, body) =>
      value<RemoteApplication>('PATCH /api/applications/{id}', client.PATCH('/api/applications/{id}', { params: id(appId), body })),
    deleteApplication: async (appId) =>
      void (await send('DELETE /api/applications/{id}', client.DELETE('/api/applications/{id}', { params: id(appId) }))),
  };
}
