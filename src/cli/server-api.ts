/**
 * The calls the CLI makes to a Switchyard server, behind one interface
 * (ServerApi) so the verbs never build URLs or read HTTP answers themselves.
 * This implementation is plain fetch against the documented endpoints
 * (docs/api.md); the typed client generated from the OpenAPI document
 * (src/client/) can back the same interface without touching the verbs.
 *
 * Every failure becomes a CliError (errors.ts): nothing answering is
 * ServerUnreachableError (exit 3), a 401 ServerAuthError, any other error
 * answer a ServerError with the server's `code` and message. Every call has a
 * deadline.
 */
import { CommandFailedError, ServerAuthError, ServerError, ServerUnreachableError } from './errors.js';
import { followEventStream, type StreamEvent } from './sse.js';

export type EventFormat = 'switchyard' | 'aws-v1' | 'aws-v2';

export interface FunctionInfo {
  name: string;
  runtime: string;
  env_keys: string[];
  timeout_ms: number;
  memory_mb: number;
  handler: string | null;
  event_format: EventFormat;
  version: number;
  code_sha256: string;
  created_at: string;
  updated_at: string;
}

export interface FunctionInput {
  name: string;
  code: string;
  runtime?: 'javascript' | 'typescript';
  env?: Record<string, string>;
  handler?: string;
  event_format?: EventFormat;
}

export type FunctionPatch = Partial<Omit<FunctionInput, 'name'>>;

export interface LogLine {
  /** Stored lines carry an id (servers with the log stream); lines of one invoke answer do not. */
  id?: number;
  version?: number;
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
}

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
  status: 'pending' | 'succeeded' | 'failed';
  error: string | null;
  scheduled_for: string | null;
  next_attempt_at: string | null;
  attempts: Attempt[];
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
  createFunction(input: FunctionInput): Promise<FunctionInfo>;
  updateFunction(name: string, patch: FunctionPatch): Promise<FunctionInfo>;
  invokeFunction(name: string, event: unknown): Promise<Invocation>;
  functionLogs(name: string, opts: { limit?: number }): Promise<LogLine[]>;
  /** Follows the function's log stream until `signal` aborts; resumes after drops with Last-Event-ID. */
  followFunctionLogs(name: string, opts: FollowOptions): Promise<void>;
  listWebhooks(): Promise<WebhookInfo[]>;
  testWebhook(id: string): Promise<Delivery>;
  listDeliveries(webhookId: string, opts: { limit?: number }): Promise<Delivery[]>;
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

  /** Turns an error answer into the matching CliError. */
  async function failure(res: Response): Promise<never> {
    if (res.status === 401) throw new ServerAuthError(base, opts.adminKey !== null);
    const text = await res.text().catch(() => '');
    let body: { error?: string; code?: string; details?: unknown } | null;
    try {
      body = JSON.parse(text) as { error?: string; code?: string; details?: unknown } | null;
    } catch {
      body = null;
    }
    if (body && typeof body.code === 'string') throw new ServerError(res.status, body.code, body.error ?? body.code, body.details);
    throw new ServerError(
      res.status,
      `http_${res.status}`,
      `${base} answered ${res.status} ${res.statusText} without a Switchyard error body (is --url a Switchyard server?)`,
    );
  }

  async function send(method: string, path: string, body?: unknown, timeoutMs = CALL_MS): Promise<Response> {
    const headers: Record<string, string> = { ...authHeaders, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await doFetch(base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new ServerUnreachableError(base, networkReason(err));
    }
  }

  /** The JSON of a successful answer; anything else means --url is not a Switchyard server. */
  async function json<T>(res: Response): Promise<T> {
    const text = await res.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ServerError(
        res.status,
        'not_switchyard',
        `${base} answered ${res.status} with ${res.headers.get('content-type') ?? 'no content type'}, not JSON (is --url a Switchyard server?)`,
      );
    }
  }

  async function call<T>(method: string, path: string, body?: unknown, timeoutMs?: number): Promise<T> {
    const res = await send(method, path, body, timeoutMs);
    if (!res.ok) return failure(res);
    return json<T>(res);
  }

  /** Every item of a paged list, following `Link: <...>; rel="next"`. */
  async function all<T>(path: string): Promise<T[]> {
    const items: T[] = [];
    let next: string | null = path;
    while (next) {
      const res = await send('GET', next);
      if (!res.ok) return failure(res);
      items.push(...(await json<T[]>(res)));
      next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1] ?? null;
    }
    return items;
  }

  return {
    url: base,
    async getFunction(name) {
      const res = await send('GET', `/api/functions/${enc(name)}`);
      if (res.status === 404) {
        const body = (await res.json().catch(() => null)) as { code?: string } | null;
        if (body?.code === 'function_not_found') return null;
        return failure(new Response(JSON.stringify(body), { status: 404 }));
      }
      if (!res.ok) return failure(res);
      return json<FunctionInfo>(res);
    },
    createFunction: (input) => call('POST', '/api/functions', input),
    updateFunction: (name, patch) => call('PUT', `/api/functions/${enc(name)}`, patch),
    invokeFunction: (name, event) => call('POST', `/api/functions/${enc(name)}/invoke`, event ?? {}, INVOKE_MS),
    functionLogs: (name, { limit }) =>
      call('GET', `/api/functions/${enc(name)}/logs${limit === undefined ? '' : `?limit=${limit}`}`),
    async followFunctionLogs(name, follow) {
      const path = `/api/functions/${enc(name)}/logs/stream`;
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
          return failure(res).catch((err: unknown) => err as Error);
        },
      });
    },
    listWebhooks: () => all<WebhookInfo>('/api/webhooks?limit=1000'),
    testWebhook: (id) => call('POST', `/api/webhooks/${enc(id)}/test`, undefined, WEBHOOK_TEST_MS),
    listDeliveries: (id, { limit }) =>
      call('GET', `/api/webhooks/${enc(id)}/deliveries${limit === undefined ? '' : `?limit=${limit}`}`),
  };
}
