/**
 * The client's resource surface: `client.functions.create(...)`,
 * `client.functions.create.plan(...)` for a dry run, `for await` over every
 * page of a list, and error answers thrown as SwitchyardApiError with a typed
 * `code`.
 *
 * Written by hand over the generated layer, on purpose and thinly: every call
 * below goes through openapi-fetch with the types openapi-typescript
 * generates from the OpenAPI document, so a path, parameter, body or answer
 * that no longer matches the document fails to compile here. What the
 * generators do not give, and this file adds, is the shape of the resources
 * (names, not operationIds), one answer type per call (a write's dry run has
 * its own `.plan`, so the write itself is typed as the resource, not
 * `DryRun | Resource`), pagination that follows `Link: rel="next"`, and
 * errors that are thrown rather than returned.
 */
import type { Client } from 'openapi-fetch';
import { UnexpectedAnswerError, answerError } from './errors.js';
import { followDeliveries, followLogs, type AttemptStreamEvent, type FollowDeliveriesOptions, type FollowLogsOptions, type StreamEvent } from './events.js';
import type { components, operations, paths } from './schema.js';

type S = components['schemas'];
export type DryRun = S['DryRun'];
type JsonBody<O extends keyof operations> = NonNullable<operations[O]['requestBody']> extends { content: { 'application/json': infer B } } ? B : never;
type Query<O extends keyof operations> = NonNullable<operations[O]['parameters']['query']>;

export type FunctionInput = JsonBody<'createFunction'>;
export type FunctionUpdate = JsonBody<'updateFunction'>;
export type ApiInput = JsonBody<'createApi'>;
export type ApiUpdate = JsonBody<'updateApi'>;
export type RouteInput = JsonBody<'addRoute'>;
export type WebhookInput = JsonBody<'createWebhook'>;
export type WebhookUpdate = JsonBody<'updateWebhook'>;
export type EventInput = JsonBody<'publishEvent'>;
export type FilterTestInput = JsonBody<'testWebhookFilter'>;
export type TransformationTestInput = JsonBody<'testTransformation'>;
/** `?limit=` (1 to 1000, default 100) and `?after=`: where a list starts and how many items each page holds. */
export type PageQuery = Query<'listFunctions'>;

/** Per call: a signal to cancel it or give it a deadline (`AbortSignal.timeout(ms)`), and extra headers. */
export interface CallOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** A write, typed as what it writes; `.plan(...)` takes the same arguments and answers what it would change, writing nothing. */
export interface Write<A extends unknown[], R> {
  (...args: A): Promise<R>;
  plan(...args: A): Promise<DryRun>;
}

/** Every item of a list, fetched a page at a time as the loop goes on. */
export interface Paged<T> extends AsyncIterable<T> {
  /** The pages themselves, for a caller that shows or stores them a page at a time. */
  pages(): AsyncIterable<T[]>;
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer; a thrown SwitchyardApiError (or UnexpectedAnswerError) otherwise. */
async function ok<T>(call: Promise<Answer<T>>): Promise<{ data: T; response: Response }> {
  const { data, error, response } = await call;
  if (!response.ok) throw answerError(response, error);
  if (data === undefined) throw new UnexpectedAnswerError(response.status, `${response.url} answered ${response.status} without a JSON body`);
  return { data, response };
}

function isDryRun(value: unknown): value is DryRun {
  return typeof value === 'object' && value !== null && (value as { dry_run?: unknown }).dry_run === true;
}

/**
 * A write in both forms: `send(dryRun, ...args)` makes the call, with
 * `?dry_run=true` or without. Each form checks that the answer is its own, so
 * the types below hold at run time too.
 */
function write<A extends unknown[], T>(send: (dryRun: boolean, ...args: A) => Promise<Answer<T>>): Write<A, Exclude<T, DryRun>> {
  async function run(...args: A): Promise<Exclude<T, DryRun>> {
    const { data, response } = await ok(send(false, ...args));
    if (isDryRun(data)) throw new UnexpectedAnswerError(response.status, `${response.url} answered a dry run to a write`);
    return data as Exclude<T, DryRun>;
  }
  async function plan(...args: A): Promise<DryRun> {
    const { data, response } = await ok(send(true, ...args));
    if (!isDryRun(data)) throw new UnexpectedAnswerError(response.status, `${response.url} did not answer a dry run (is it older than this client?)`);
    return data;
  }
  return Object.assign(run, { plan });
}

const dryRunQuery = (dryRun: boolean) => (dryRun ? { dry_run: 'true' as const } : undefined);

/**
 * Where the next page of a list starts: the `after` of the answer's
 * `Link: <...>; rel="next"` header, or undefined on the last page.
 */
export function nextPageAfter(response: Response): string | undefined {
  const next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
  return next ? (new URL(next, 'http://switchyard.invalid').searchParams.get('after') ?? undefined) : undefined;
}

/** Pages of a list from `query` on, each asked with the `after` the previous one's Link header gave. */
function paged<T, Q extends { after?: string }>(query: Q, page: (query: Q) => Promise<Answer<T[]>>): Paged<T> {
  async function* pages(): AsyncGenerator<T[]> {
    let next: Q | undefined = query;
    while (next !== undefined) {
      const { data, response } = await ok(page(next));
      yield data;
      const after = nextPageAfter(response);
      next = after === undefined ? undefined : { ...query, after };
    }
  }
  return {
    pages,
    async *[Symbol.asyncIterator]() {
      for await (const items of pages()) yield* items;
    },
  };
}

/** What the resources need from `createClient`: the typed fetch client, and how to reach the streams. */
export interface ResourceContext {
  http: Client<paths>;
  stream: Pick<FollowLogsOptions, 'baseUrl' | 'adminKey' | 'headers' | 'fetch'>;
}

export function resources({ http, stream }: ResourceContext) {
  const byName = (name: string) => ({ path: { name } });
  const byId = (id: string) => ({ path: { id } });

  const functions = {
    /** Every function (without code), oldest first. */
    list: (query: PageQuery = {}, options?: CallOptions): Paged<S['Function']> =>
      paged(query, (q) => http.GET('/api/functions', { params: { query: q }, ...options })),
    /** One function with its code. */
    get: async (name: string, options?: CallOptions): Promise<S['Function']> =>
      (await ok(http.GET('/api/functions/{name}', { params: byName(name), ...options }))).data,
    create: write((dryRun, body: FunctionInput, options?: CallOptions) =>
      http.POST('/api/functions', { params: { query: dryRunQuery(dryRun) }, body, ...options }),
    ),
    /** A partial update: fields present replace, `null` resets one. */
    update: write((dryRun, name: string, body: FunctionUpdate, options?: CallOptions) =>
      http.PUT('/api/functions/{name}', { params: { ...byName(name), query: dryRunQuery(dryRun) }, body, ...options }),
    ),
    delete: write((dryRun, name: string, options?: CallOptions) =>
      http.DELETE('/api/functions/{name}', { params: { ...byName(name), query: dryRunQuery(dryRun) }, ...options }),
    ),
    /** Runs the function with `event` and answers what the gateway would, with the run's console lines. */
    async invoke(name: string, event: Record<string, unknown> = {}, options?: CallOptions): Promise<S['Invocation']> {
      const { data, response } = await ok(http.POST('/api/functions/{name}/invoke', { params: byName(name), body: event, ...options }));
      if (!('logs' in data)) throw new UnexpectedAnswerError(response.status, `${response.url} queued the run instead of answering it`);
      return data;
    },
    /** Stores the run and answers at once (202); it runs in the background with retries. */
    async invokeAsync(name: string, event: Record<string, unknown> = {}, options?: CallOptions): Promise<S['InvocationAccepted']> {
      const { data, response } = await ok(
        http.POST('/api/functions/{name}/invoke', { params: { ...byName(name), header: { 'x-invocation-type': 'Event' } }, body: event, ...options }),
      );
      if (!('invocation_id' in data)) throw new UnexpectedAnswerError(response.status, `${response.url} ran '${name}' at once instead of queueing it`);
      return data;
    },
    /** The newest stored console lines, oldest first. */
    logs: async (name: string, query: Query<'listFunctionLogs'> = {}, options?: CallOptions): Promise<S['LogEntry'][]> =>
      (await ok(http.GET('/api/functions/{name}/logs', { params: { ...byName(name), query }, ...options }))).data,
    /** The kept versions, newest first, without code. */
    versions: async (name: string, options?: CallOptions): Promise<S['FunctionVersion'][]> =>
      (await ok(http.GET('/api/functions/{name}/versions', { params: byName(name), ...options }))).data,
    /** One kept version with its code. */
    version: async (name: string, version: number, options?: CallOptions): Promise<S['FunctionVersion']> =>
      (await ok(http.GET('/api/functions/{name}/versions/{version}', { params: { path: { name, version } }, ...options }))).data,
    invocations: {
      /** Background invocations (asynchronous, scheduled, event, destination), newest first. */
      list: (name: string, query: Query<'listFunctionInvocations'> = {}, options?: CallOptions): Paged<S['FunctionInvocation']> =>
        paged(query, (q) => http.GET('/api/functions/{name}/invocations', { params: { ...byName(name), query: q }, ...options })),
      get: async (name: string, id: string, options?: CallOptions): Promise<S['FunctionInvocation']> =>
        (await ok(http.GET('/api/functions/{name}/invocations/{id}', { params: { path: { name, id } }, ...options }))).data,
      /** Runs a failed invocation again. */
      retry: async (name: string, id: string, options?: CallOptions): Promise<S['FunctionInvocation']> =>
        (await ok(http.POST('/api/functions/{name}/invocations/{id}/retry', { params: { path: { name, id } }, ...options }))).data,
    },
  };

  const apis = {
    list: (query: PageQuery = {}, options?: CallOptions): Paged<S['Api']> =>
      paged(query, (q) => http.GET('/api/apis', { params: { query: q }, ...options })),
    get: async (id: string, options?: CallOptions): Promise<S['Api']> => (await ok(http.GET('/api/apis/{id}', { params: byId(id), ...options }))).data,
    create: write((dryRun, body: ApiInput, options?: CallOptions) => http.POST('/api/apis', { params: { query: dryRunQuery(dryRun) }, body, ...options })),
    update: write((dryRun, id: string, body: ApiUpdate, options?: CallOptions) =>
      http.PUT('/api/apis/{id}', { params: { ...byId(id), query: dryRunQuery(dryRun) }, body, ...options }),
    ),
    delete: write((dryRun, id: string, options?: CallOptions) =>
      http.DELETE('/api/apis/{id}', { params: { ...byId(id), query: dryRunQuery(dryRun) }, ...options }),
    ),
    routes: {
      add: write((dryRun, apiId: string, body: RouteInput, options?: CallOptions) =>
        http.POST('/api/apis/{id}/routes', { params: { ...byId(apiId), query: dryRunQuery(dryRun) }, body, ...options }),
      ),
      delete: write((dryRun, apiId: string, routeId: string, options?: CallOptions) =>
        http.DELETE('/api/apis/{id}/routes/{routeId}', { params: { path: { id: apiId, routeId }, query: dryRunQuery(dryRun) }, ...options }),
      ),
    },
  };

  const webhooks = {
    list: (query: PageQuery = {}, options?: CallOptions): Paged<S['Webhook']> =>
      paged(query, (q) => http.GET('/api/webhooks', { params: { query: q }, ...options })),
    get: async (id: string, options?: CallOptions): Promise<S['Webhook']> =>
      (await ok(http.GET('/api/webhooks/{id}', { params: byId(id), ...options }))).data,
    create: write((dryRun, body: WebhookInput, options?: CallOptions) =>
      http.POST('/api/webhooks', { params: { query: dryRunQuery(dryRun) }, body, ...options }),
    ),
    update: write((dryRun, id: string, body: WebhookUpdate, options?: CallOptions) =>
      http.PUT('/api/webhooks/{id}', { params: { ...byId(id), query: dryRunQuery(dryRun) }, body, ...options }),
    ),
    delete: write((dryRun, id: string, options?: CallOptions) =>
      http.DELETE('/api/webhooks/{id}', { params: { ...byId(id), query: dryRunQuery(dryRun) }, ...options }),
    ),
    /** Sends once now (also when disabled) and answers the finished delivery. */
    test: async (id: string, options?: CallOptions): Promise<S['Delivery']> =>
      (await ok(http.POST('/api/webhooks/{id}/test', { params: byId(id), ...options }))).data,
    /** The webhook's deliveries. */
    deliveries: (id: string, query: Query<'listDeliveries'> = {}, options?: CallOptions): Paged<S['Delivery']> =>
      paged(query, (q) => http.GET('/api/webhooks/{id}/deliveries', { params: { ...byId(id), query: q }, ...options })),
    /** Whether an event would match a webhook filter, and the first part that failed; nothing is published. */
    testFilter: async (body: FilterTestInput, options?: CallOptions): Promise<S['FilterTest']> =>
      (await ok(http.POST('/api/events/filter-test', { body, ...options }))).data,
    /** Runs a transformation on a sample request, as an attempt would; nothing is sent. */
    testTransformation: async (body: TransformationTestInput, options?: CallOptions): Promise<S['TransformationTestResult']> =>
      (await ok(http.POST('/api/transformation-test', { body, ...options }))).data,
  };

  const deliveries = {
    get: async (id: string, options?: CallOptions): Promise<S['DeliveryDetail']> =>
      (await ok(http.GET('/api/deliveries/{id}', { params: byId(id), ...options }))).data,
    /** Attempts a finished delivery once more, now. */
    retry: async (id: string, options?: CallOptions): Promise<S['Delivery']> =>
      (await ok(http.POST('/api/deliveries/{id}/retry', { params: byId(id), ...options }))).data,
    /** Every recorded attempt as it happens, resuming after drops (see followDeliveries). */
    follow: (opts: Omit<FollowDeliveriesOptions, keyof ResourceContext['stream']> = {}): AsyncGenerator<AttemptStreamEvent> =>
      followDeliveries({ ...stream, ...opts }),
  };

  return {
    functions,
    apis,
    webhooks,
    deliveries,
    events: {
      /** Publishes an event to the webhooks and functions subscribed to it. */
      publish: async (body: EventInput, options?: CallOptions): Promise<S['PublishedEvent']> =>
        (await ok(http.POST('/api/events', { body, ...options }))).data,
    },
    logs: {
      /** Console lines and finished invocations as they happen, one function's or all (see followLogs). */
      follow: (opts: Omit<FollowLogsOptions, keyof ResourceContext['stream']> = {}): AsyncGenerator<StreamEvent> => followLogs({ ...stream, ...opts }),
    },
    stats: {
      /** Per-minute statistics of every node over the last `minutes` (default 60). */
      get: async (query: Query<'getStats'> = {}, options?: CallOptions): Promise<S['Stats']> =>
        (await ok(http.GET('/api/stats', { params: { query }, ...options }))).data,
    },
    /** `GET /healthz`: the server process answers. */
    health: async (options?: CallOptions): Promise<S['Health']> => (await ok(http.GET('/healthz', { ...options }))).data,
  };
}

export type Resources = ReturnType<typeof resources>;
