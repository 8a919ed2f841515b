/**
 * The calls the CLI makes to a Switchyard server, behind one interface
 * (ServerApi) so the verbs never build URLs or read HTTP answers themselves.
 * Requests go through the typed client generated from the OpenAPI document
 * (src/client/), so a path, parameter or body the API does not have fails to
 * compile; the log stream, which that client cannot read, goes through sse.ts.
 *
 * Every failure becomes a CliError (errors.ts): nothing answering is
 * ServerUnreachableError (exit 3), a 401 ServerAuthError, any other error
 * answer a ServerError with the server's `code` and message. Every call has a
 * deadline.
 */
import { SwitchyardApiError, UnexpectedAnswerError, createClient, nextPageAfter, type paths, type Schemas } from '../client/index.js';
import { CliError, CommandFailedError, ServerAuthError, ServerError, ServerUnreachableError } from './errors.js';
import { followEventStream, type StreamEvent } from './sse.js';

export type EventFormat = 'switchyard' | 'aws-v1' | 'aws-v2';

/** The server's answers and bodies, as the OpenAPI document types them. */
export type FunctionInfo = Schemas['Function'];
export type FunctionInput = paths['/api/functions']['post']['requestBody']['content']['application/json'];
export type FunctionPatch = Partial<Omit<FunctionInput, 'name'>>;

export interface LogLine {
  /** Stored lines carry an id (servers with the log stream); lines of one invoke answer do not. */
  id?: number;
  /** null for lines stored before versions were kept. */
  version?: number | null;
  time: string;
  /** The stream's name for `time`. */
  ts?: string;
  level: string;
  message: string;
  request_id: string | null;
}

export interface Invocation {
  status: number;
  result: unknown;
  error: { code: string; message: string } | null;
  logs: LogLine[];
  duration_ms: number;
}

export interface WebhookInfo {
  id: string;
  name: string;
  target_url: string;
  method: string;
  enabled: boolean;
  cron: string | null;
  events: string[] | null;
  /** Endpoint health: absent on servers older than it. */
  paused?: boolean;
  paused_at?: string | null;
  disabled_reason?: Schemas['Webhook']['disabled_reason'];
  /** In the answers of the list and of one webhook, not of pause and resume. */
  health?: Pick<NonNullable<Schemas['Webhook']['health']>, 'state' | 'held' | 'last_outcome' | 'failures_in_a_row'>;
  /** Absent on servers older than applications. */
  application_id?: string | null;
}

/** A recovery job: resends a webhook's finished deliveries in the background. */
export type Recovery = Schemas['Recovery'];
export type PublishedEvent = Schemas['PublishedEvent'];
export type EventTypeInfo = Schemas['EventType'];
export type EventTypeImport = Schemas['EventTypeImport'];
export type ValidationMode = EventTypeInfo['mode'];
export type ApplicationInfo = Schemas['Application'];
export type PortalAccess = Schemas['PortalAccess'];
/** What `applications create` and `update` send (fields present replace; a limit null removes it). */
export interface ApplicationFields {
  name?: string;
  uid?: string | null;
  metadata?: Record<string, unknown>;
  limits?: { max_endpoints?: number | null; events_per_second?: number | null; retention_days?: number | null };
}
export type EventInput = paths['/api/events']['post']['requestBody']['content']['application/json'];
/** Which finished deliveries a recovery resends: created since a time, of some statuses and events. */
export type RecoverFilter = paths['/api/webhooks/{id}/recover']['post']['requestBody']['content']['application/json'];
export type RotateSecretInput = paths['/api/webhooks/{id}/rotate-secret']['post']['requestBody']['content']['application/json'];
export type RecoverableStatus = NonNullable<RecoverFilter['statuses']>[number];

export interface Attempt {
  attempt: number;
  started_at: string;
  duration_ms: number | null;
  response_status: number | null;
  error: string | null;
}

export interface Delivery {
  id: string;
  webhook_id: string;
  trigger: string;
  event: string | null;
  /** `held`: kept unsent while the webhook is disabled, paused or its breaker open; `discarded`: a held one dropped. */
  status: 'pending' | 'held' | 'succeeded' | 'failed' | 'discarded' | 'cancelled';
  error: string | null;
  scheduled_for: string | null;
  next_attempt_at: string | null;
  attempts: Attempt[];
  created_at: string;
  completed_at: string | null;
}

/** The answer of an asynchronous invoke (`x-invocation-type: Event`): 202 at once, the run comes later. */
export interface AsyncInvocation {
  invocation_id: string;
  status: string;
}

export interface InvocationAttempt {
  attempt: number;
  started_at: string;
  duration_ms: number | null;
  outcome: string;
  /** The server's error: a message, or `{code, message}`. */
  error: string | { code?: string; message?: string } | null;
}

/** A scheduled, event-triggered, asynchronous or destination run of a function, with its attempts. */
export interface InvocationRecord {
  id: string;
  function: string;
  trigger: { type: 'async' | 'schedule' | 'event' | 'destination'; [key: string]: unknown };
  status: 'pending' | 'succeeded' | 'failed';
  attempts: InvocationAttempt[];
  event: unknown;
  result: unknown;
  error: InvocationAttempt['error'];
  created_at: string;
  completed_at: string | null;
}

/** A line of the log stream: `ts` always, `time` not necessarily. */
export type StreamLogLine = Omit<LogLine, 'time'> & { time?: string; ts?: string; function?: string };

/** One event of `GET /api/functions/{name}/logs/stream`. */
export type FunctionStreamEvent =
  | { type: 'log'; id: string | undefined; line: StreamLogLine }
  | { type: 'invocation'; invocation: Record<string, unknown> };

export interface FollowOptions {
  /** Replay stored lines after this line id first (`?since=`). */
  since?: string;
  signal: AbortSignal;
  onEvent(event: FunctionStreamEvent): void;
  /** The connection dropped and will be reopened from the last id seen. */
  onReconnect?(reason: string, lastEventId: string | undefined): void;
}

export interface ServerApi {
  readonly url: string;
  /** null when no function has that name. */
  getFunction(name: string): Promise<FunctionInfo | null>;
  /** Every function's name (all pages), to match a name typed on the command line. */
  listFunctionNames(): Promise<string[]>;
  createFunction(input: FunctionInput): Promise<FunctionInfo>;
  updateFunction(name: string, patch: FunctionPatch): Promise<FunctionInfo>;
  invokeFunction(name: string, event: unknown): Promise<Invocation>;
  functionLogs(name: string, opts: { limit?: number }): Promise<LogLine[]>;
  /** Follows the function's log stream until `signal` aborts; resumes after drops with Last-Event-ID. */
  followFunctionLogs(name: string, opts: FollowOptions): Promise<void>;
  /** Follows every function's console lines and every invocation (`GET /api/logs/stream`). */
  followAllLogs(opts: FollowOptions): Promise<void>;
  /** Every webhook, or one application's (by id or uid). */
  listWebhooks(application?: string): Promise<WebhookInfo[]>;
  testWebhook(id: string): Promise<Delivery>;
  /** `POST /api/events`; `replayed`: the server answered a repeat of `idempotencyKey` (or of the event's id) with its first answer. */
  publishEvent(body: EventInput, idempotencyKey?: string): Promise<{ published: PublishedEvent; replayed: boolean }>;
  /** Every catalogued event type, by name. */
  listEventTypes(): Promise<EventTypeInfo[]>;
  /** Creates or updates the types of an OpenAPI document's webhooks. */
  importEventTypes(document: Record<string, unknown>, mode?: ValidationMode): Promise<EventTypeImport>;
  listDeliveries(webhookId: string, opts: { limit?: number }): Promise<Delivery[]>;
  /** Every application, oldest first. */
  listApplications(): Promise<ApplicationInfo[]>;
  createApplication(body: ApplicationFields & { name: string }): Promise<ApplicationInfo>;
  /** By id or uid. */
  getApplication(id: string): Promise<ApplicationInfo>;
  updateApplication(id: string, body: ApplicationFields): Promise<ApplicationInfo>;
  /** Its webhooks, their deliveries and its portal tokens go with it. */
  deleteApplication(id: string): Promise<void>;
  /** A portal token and link for the application (id or uid); the token is shown once. */
  createPortalAccess(application: string, ttlSeconds?: number): Promise<PortalAccess>;
  /** Holds the webhook's new and due deliveries, none lost, until it is resumed. */
  pauseWebhook(id: string): Promise<WebhookInfo>;
  /** Sends again: unpauses, closes an open circuit breaker, releases held deliveries in publish order. */
  resumeWebhook(id: string): Promise<WebhookInfo>;
  /** `POST /api/webhooks/{id}/rotate-secret`: the webhook with its secrets, and `secret` once when one was generated. */
  rotateWebhookSecret(id: string, body: RotateSecretInput): Promise<Schemas['Webhook']>;
  /** How many deliveries a recovery with `filter` would resend now (`?dry_run=true`): nothing is resent. */
  countRecoverable(webhookId: string, filter: RecoverFilter): Promise<number>;
  /** Starts a recovery job, which resends them in the background; its `total` is how many. */
  recoverWebhook(webhookId: string, filter: RecoverFilter): Promise<Recovery>;
  getRecovery(id: string): Promise<Recovery>;
  /** Queues an invocation (`x-invocation-type: Event`): answered 202 before the function runs. */
  invokeFunctionAsync(name: string, event: unknown): Promise<AsyncInvocation>;
  /** The function's recorded invocations, newest first. */
  listInvocations(name: string, opts: { status?: InvocationRecord['status']; limit?: number }): Promise<InvocationRecord[]>;
  /** Runs a failed invocation again. */
  retryInvocation(name: string, id: string): Promise<InvocationRecord>;
}

export interface ServerApiOptions {
  url: string;
  adminKey: string | null;
  /** For tests; the global fetch otherwise. */
  fetch?: typeof fetch;
}

/** Management calls answer in milliseconds; these bound a server that hangs. */
const CALL_MS = 30_000;
/** A manual invoke lasts as long as the function may run (up to 900 s), plus margin. */
const INVOKE_MS = 960_000;
/** A webhook test makes one attempt of at most 60 s. */
const WEBHOOK_TEST_MS = 90_000;

const enc = encodeURIComponent;

/** Why fetch failed, in words: `connection refused`, `no such host`, ... */
export function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (err as { code?: string }).code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'no such host';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
  }
  if ((err as Error)?.name === 'TimeoutError') return 'no answer in time';
  return cause?.message ?? (err as Error)?.message ?? String(err);
}

export function createServerApi(opts: ServerApiOptions): ServerApi {
  const base = opts.url.replace(/\/+$/, '');
  const doFetch = opts.fetch ?? fetch;
  const authHeaders: Record<string, string> = opts.adminKey ? { authorization: `Bearer ${opts.adminKey}` } : {};
  const client = createClient({ baseUrl: base, adminKey: opts.adminKey, headers: { accept: 'application/json' }, fetch: (request) => doFetch(request) });
  // A success answer that is not JSON means --url is not a Switchyard server: say so before the client parses it.
  client.use({
    onResponse({ response }) {
      if (response.ok && response.status !== 204 && !response.headers.get('content-type')?.includes('json')) {
        throw new ServerError(
          response.status,
          'not_switchyard',
          `${base} answered ${response.status} with ${response.headers.get('content-type') ?? 'no content type'}, not JSON (is --url a Switchyard server?)`,
        );
      }
      return undefined;
    },
  });

  /** Turns an error answer into the matching CliError. */
  function failure(response: Response, body: unknown): never {
    if (response.status === 401) throw new ServerAuthError(base, opts.adminKey !== null);
    const error = body as { error?: string; code?: string; details?: unknown } | null | undefined;
    if (error && typeof error === 'object' && typeof error.code === 'string') {
      throw new ServerError(response.status, error.code, error.error ?? error.code, error.details);
    }
    throw new ServerError(
      response.status,
      `http_${response.status}`,
      `${base} answered ${response.status} ${response.statusText} without a Switchyard error body (is --url a Switchyard server?)`,
    );
  }

  /** Runs one typed call: a network failure is ServerUnreachableError, an error answer a ServerError. */
  async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<{ data: T; response: Response }> {
    let answer: { data?: T; error?: unknown; response: Response };
    try {
      answer = await request;
    } catch (err) {
      if (err instanceof CliError) throw err;
      throw new ServerUnreachableError(base, networkReason(err));
    }
    if (!answer.response.ok) failure(answer.response, answer.error);
    return { data: answer.data as T, response: answer.response };
  }

  const deadline = (ms = CALL_MS) => ({ signal: AbortSignal.timeout(ms) });

  /** A call of endpoint health (pause, resume, recovery): a 404 `not_found` (no such route) means a server older than it, said in words. */
  async function healthCall<T>(what: string, request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
    try {
      return (await call(request)).data;
    } catch (err) {
      if (err instanceof ServerError && err.status === 404 && err.code === 'not_found') {
        throw new CommandFailedError('no_endpoint_health', `the server at ${base} cannot ${what}: it is older than this CLI`);
      }
      throw err;
    }
  }

  /** Runs one call of the client's resources (which throw), with the same translation as `call`. */
  async function resource<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (err instanceof CliError) throw err;
      if (err instanceof SwitchyardApiError) {
        if (err.status === 401) throw new ServerAuthError(base, opts.adminKey !== null);
        throw new ServerError(err.status, err.code, err.message, err.details);
      }
      if (err instanceof UnexpectedAnswerError) {
        throw new ServerError(err.status, `http_${err.status}`, `${err.message} (is --url a Switchyard server?)`);
      }
      throw new ServerUnreachableError(base, networkReason(err));
    }
  }

  /** Only for `failure` of the stream: the answer's JSON body, when it has one. */
  const bodyOf = async (res: Response) => {
    const text = await res.text().catch(() => '');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return null;
    }
  };

  /** Follows one of the server's log streams (server-sent events), resuming after drops. */
  async function followStream(path: string, follow: FollowOptions): Promise<void> {
    await followEventStream({
      url: base + path,
      query: follow.since === undefined ? {} : { since: follow.since },
      headers: authHeaders,
      signal: follow.signal,
      fetch: doFetch,
      onEvent(event: StreamEvent) {
        if (event.event === 'log') {
          follow.onEvent({ type: 'log', id: event.id, line: JSON.parse(event.data) as StreamLogLine });
        } else if (event.event === 'invocation') {
          follow.onEvent({ type: 'invocation', invocation: JSON.parse(event.data) as Record<string, unknown> });
        }
      },
      onReconnect: follow.onReconnect,
      unreachable: (err) => new ServerUnreachableError(base, networkReason(err)),
      refused: async (res) => {
        if (res.status === 404 && res.headers.get('content-type')?.includes('json')) {
          const body = (await res.clone().json().catch(() => null)) as { code?: string } | null;
          if (body?.code === 'not_found') {
            return new CommandFailedError(
              'no_log_stream',
              `the server at ${base} has no log stream (GET ${path} is not a route there): it is older than this CLI; use \`switchyard logs\` without -f`,
            );
          }
        }
        try {
          return failure(res, await bodyOf(res));
        } catch (err) {
          return err as Error;
        }
      },
    });
  }

  /**
   * A call the generated client does not know yet (invocation records arrived
   * after the document it was generated from): the same headers, deadline and
   * error handling as `call`, with a typed answer. A 404 `not_found` (no such
   * route) means an older server, said in words.
   */
  async function untyped<T>(method: 'GET' | 'POST', path: string, query: Record<string, string> = {}): Promise<T> {
    const qs = new URLSearchParams(query).toString();
    let response: Response;
    try {
      response = await doFetch(`${base}${path}${qs ? `?${qs}` : ''}`, {
        method,
        headers: { accept: 'application/json', ...authHeaders, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
        body: method === 'POST' ? '{}' : undefined,
        ...deadline(),
      });
    } catch (err) {
      throw new ServerUnreachableError(base, networkReason(err));
    }
    const body = await bodyOf(response);
    if (!response.ok) {
      if (response.status === 404 && (body as { code?: string } | null)?.code === 'not_found') {
        throw new CommandFailedError(
          'no_invocation_records',
          `the server at ${base} keeps no invocation records (${method} ${path} is not a route there): it is older than this CLI`,
        );
      }
      failure(response, body);
    }
    if (body === null) throw new ServerError(response.status, 'not_switchyard', `${base} answered ${response.status} without JSON (is --url a Switchyard server?)`);
    return body as T;
  }

  return {
    url: base,
    async getFunction(name) {
      try {
        const { data } = await call(client.GET('/api/functions/{name}', { params: { path: { name } }, ...deadline() }));
        return data;
      } catch (err) {
        if (err instanceof ServerError && err.status === 404 && err.code === 'function_not_found') return null;
        throw err;
      }
    },
    async listFunctionNames() {
      const names: string[] = [];
      let after: string | undefined;
      do {
        const query = { limit: 1000, ...(after === undefined ? {} : { after }) };
        const { data, response } = await call(client.GET('/api/functions', { params: { query }, ...deadline() }));
        names.push(...data.map((f) => f.name));
        after = nextPageAfter(response);
      } while (after !== undefined);
      return names;
    },
    createFunction: (input) => resource(() => client.functions.create(input, deadline())),
    updateFunction: (name, patch) => resource(() => client.functions.update(name, patch, deadline())),
    async invokeFunction(name, event) {
      const body = (event ?? {}) as Record<string, unknown> | null;
      const { data } = await call(client.POST('/api/functions/{name}/invoke', { params: { path: { name } }, body, ...deadline(INVOKE_MS) }));
      // 200: a synchronous invoke (the 202 of x-invocation-type: Event is never asked for here).
      return data as Schemas['Invocation'];
    },
    async functionLogs(name, { limit }) {
      const query = limit === undefined ? {} : { limit };
      const { data } = await call(client.GET('/api/functions/{name}/logs', { params: { path: { name }, query }, ...deadline() }));
      return data;
    },
    followFunctionLogs: (name, follow) => followStream(`/api/functions/${enc(name)}/logs/stream`, follow),
    followAllLogs: (follow) => followStream('/api/logs/stream', follow),
    async listWebhooks(application) {
      const items: WebhookInfo[] = [];
      let after: string | undefined;
      do {
        const query = { limit: 1000, ...(after === undefined ? {} : { after }), ...(application === undefined ? {} : { application }) };
        const { data, response } = await call(client.GET('/api/webhooks', { params: { query }, ...deadline() }));
        items.push(...data);
        after = nextPageAfter(response);
      } while (after !== undefined);
      return items;
    },
    async testWebhook(id) {
      const { data } = await call(client.POST('/api/webhooks/{id}/test', { params: { path: { id } }, ...deadline(WEBHOOK_TEST_MS) }));
      return data;
    },
    async publishEvent(body, idempotencyKey) {
      const headers = idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey };
      const { data, response } = await call(client.POST('/api/events', { body, headers, ...deadline() }));
      return { published: data, replayed: response.headers.get('idempotent-replayed') === 'true' };
    },
    async listEventTypes() {
      const items: EventTypeInfo[] = [];
      let after: string | undefined;
      do {
        const query = { limit: 1000, ...(after === undefined ? {} : { after }) };
        const { data, response } = await call(client.GET('/api/event-types', { params: { query }, ...deadline() }));
        items.push(...data);
        after = nextPageAfter(response);
      } while (after !== undefined);
      return items;
    },
    async importEventTypes(document, mode) {
      const { data } = await call(client.POST('/api/event-type-imports', { body: { document, ...(mode === undefined ? {} : { mode }) }, ...deadline() }));
      return data;
    },
    async listApplications() {
      const items: ApplicationInfo[] = [];
      let after: string | undefined;
      do {
        const query = { limit: 1000, ...(after === undefined ? {} : { after }) };
        const { data, response } = await call(client.GET('/api/applications', { params: { query }, ...deadline() }));
        items.push(...data);
        after = nextPageAfter(response);
      } while (after !== undefined);
      return items;
    },
    async createApplication(body) {
      const { data } = await call(client.POST('/api/applications', { body, ...deadline() }));
      return data;
    },
    async getApplication(id) {
      const { data } = await call(client.GET('/api/applications/{id}', { params: { path: { id } }, ...deadline() }));
      return data;
    },
    async updateApplication(id, body) {
      const { data } = await call(client.PATCH('/api/applications/{id}', { params: { path: { id } }, body, ...deadline() }));
      return data;
    },
    async deleteApplication(id) {
      await call(client.DELETE('/api/applications/{id}', { params: { path: { id } }, ...deadline() }));
    },
    async createPortalAccess(application, ttlSeconds) {
      const body = ttlSeconds === undefined ? {} : { ttl_seconds: ttlSeconds };
      const { data } = await call(client.POST('/api/applications/{id}/portal-access', { params: { path: { id: application } }, body, ...deadline() }));
      return data;
    },
    async listDeliveries(id, { limit }) {
      const query = limit === undefined ? {} : { limit };
      const { data } = await call(client.GET('/api/webhooks/{id}/deliveries', { params: { path: { id }, query }, ...deadline() }));
      return data;
    },
    pauseWebhook: (id) => healthCall('pause webhooks', client.POST('/api/webhooks/{id}/pause', { params: { path: { id } }, ...deadline() })),
    resumeWebhook: (id) => healthCall('resume webhooks', client.POST('/api/webhooks/{id}/resume', { params: { path: { id } }, ...deadline() })),
    rotateWebhookSecret: (id, body) =>
      healthCall('rotate secrets', client.POST('/api/webhooks/{id}/rotate-secret', { params: { path: { id } }, body, ...deadline() })),
    async countRecoverable(id, filter) {
      const request = client.POST('/api/webhooks/{id}/recover', { params: { path: { id }, query: { dry_run: 'true' } }, body: filter, ...deadline() });
      // 200 with ?dry_run=true: the count (the 202 is the job's answer).
      return ((await healthCall('recover deliveries', request)) as { count: number }).count;
    },
    async recoverWebhook(id, filter) {
      const request = client.POST('/api/webhooks/{id}/recover', { params: { path: { id } }, body: filter, ...deadline() });
      return (await healthCall('recover deliveries', request)) as Recovery;
    },
    getRecovery: (id) => healthCall('follow recoveries', client.GET('/api/recoveries/{id}', { params: { path: { id } }, ...deadline() })),
    async invokeFunctionAsync(name, event) {
      const body = (event ?? {}) as Record<string, unknown> | null;
      // The generated types know this operation's 200 (a synchronous run), not yet its 202: the answer is read as the 202's.
      const { data, response } = await call(
        client.POST('/api/functions/{name}/invoke', {
          params: { path: { name } },
          body,
          headers: { 'x-invocation-type': 'Event' },
          ...deadline(),
        }),
      );
      if (response.status !== 202) {
        throw new CommandFailedError(
          'no_async_invoke',
          `the server at ${base} ran '${name}' at once instead of queueing it (it answered ${response.status}, not 202): it is older than this CLI and has no asynchronous invocation`,
        );
      }
      return data as unknown as AsyncInvocation;
    },
    async listInvocations(name, { status, limit }) {
      const query: Record<string, string> = {};
      if (status !== undefined) query.status = status;
      if (limit !== undefined) query.limit = String(limit);
      return untyped<InvocationRecord[]>('GET', `/api/functions/${enc(name)}/invocations`, query);
    },
    async retryInvocation(name, id) {
      return untyped<InvocationRecord>('POST', `/api/functions/${enc(name)}/invocations/${enc(id)}/retry`);
    },
  };
}
