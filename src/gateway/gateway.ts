/**
 * The invocation hot path: API id -> cached route table -> match -> cached
 * function record -> event (in the function's `event_format`) -> isolate ->
 * HTTP response. Route tables and
 * function records stay in memory until a change for them is published.
 */
import type { Span } from '@opentelemetry/api';
import type { ChangeBus } from '../changes.js';
import {
  InvalidRequestError,
  LoopStoppedError,
  MethodNotAllowedError,
  NoRouteError,
  PolicyRefusalError,
  SwitchyardError,
  apiNotFound,
} from '../errors.js';
import { MAX_HOPS, type RunDepths } from '../hops.js';
import { counterHandle, histogramHandle, type Metrics } from '../telemetry/metrics.js';
import type { OkCell, RequestCell, StatsCollector } from '../stats/collector.js';
import { roundMs, type InvocationHub } from '../streams/invocations.js';
import type { FunctionRuntime } from '../runtime/types.js';
import type { Store } from '../store/store.js';
import type { Tracing } from '../telemetry/tracing.js';
import type { TraceCarrier } from '../telemetry/types.js';
import type { ConsoleLineSink, FunctionRecord, Route } from '../types.js';
import type { RequestFacts } from './event.js';
import { scopeCookies } from './cookies.js';
import { buildEventFor, mapResultFor } from './formats.js';
import type { GatewayResponse } from './result.js';
import { awsErrorAnswer, failureAnswer, failureLogLine, type ErrorPolicy } from './error-answers.js';
import { RouteTable } from './route-table.js';
import { applyCors } from './policy/cors.js';
import { compileGuards, runGuards, type PolicyDeps, type PolicyGrant, type PolicyRequest, type RouteGuard } from './policy/guards.js';

/** A missing function is the gateway's own finding, not a secret of the function: said in full in Switchyard's format. */
const OWN_WORDS: ErrorPolicy = Object.freeze({ errorFormat: 'switchyard', exposeErrors: true });

/**
 * A small read-through cache that cannot be poisoned by a fill racing an
 * invalidation: a fill only lands if no change for that key arrived meanwhile.
 */
class Cache<V> {
  private readonly entries = new Map<string, V>();
  private readonly generations = new Map<string, number>();

  constructor(private readonly load: (key: string) => Promise<V | null>) {}

  /** The cached value, without a trip through the microtask queue. */
  peek(key: string): V | undefined {
    return this.entries.get(key);
  }

  async get(key: string): Promise<V | null> {
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    const generation = this.generations.get(key) ?? 0;
    const value = await this.load(key);
    if (value !== null && (this.generations.get(key) ?? 0) === generation) this.entries.set(key, value);
    return value;
  }

  clear(): void {
    for (const key of this.entries.keys()) this.invalidate(key);
  }

  invalidate(key: string): void {
    this.entries.delete(key);
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
  }
}

export interface InvokeRequest extends RequestFacts {
  /** Serve from a state at least as new as this change (the `Switchyard-Min-Change` header); absent: as cached. */
  minChange?: number;
  /** The request's hop count in a chain of runs (the `Switchyard-Depth` header, src/hops.ts); absent: 0. */
  depth?: number;
  /** Filled with what the access line names (src/http/access-log.ts); absent when no line is written. */
  facts?: InvocationFacts;
  /** The request's span, while tracing and sampled (src/http/invoke.ts made it): authorisation and the invocation become its children. */
  span?: Span;
  /** An unsampled request's trace context, while tracing: handed to the function as is, with no span made. */
  trace?: TraceCarrier;
}

/** What the gateway learnt while answering, for the request's access line: the route template and its function. */
export interface InvocationFacts {
  /** `GET /users/{id}`: the route as the API declares it. */
  route?: string;
  function?: string;
}

/**
 * Metric series of one route, resolved once instead of per request. Keyed by
 * the route object of the cached table (a changed API builds a new table, so
 * new objects): a hit costs no label string.
 */
interface RouteSeries {
  route: Route;
  resource: string;
  apiId: string;
  latency: { observe(seconds: number): void };
  byStatus: Map<number, { inc(by?: number): void }>;
  /** The route's per-minute statistics (null without a collector). */
  stats: RequestCell | null;
}

/** What a successful invocation of one function counts: its metric series and its per-minute cell. */
interface OkSeries {
  metric: { inc(by?: number): void };
  stats: OkCell | null;
}

export interface GatewayDeps {
  store: Store;
  runtime: FunctionRuntime;
  changes: ChangeBus;
  logSink: ConsoleLineSink;
  metrics: Metrics;
  invocations?: InvocationHub | null;
  stats?: StatsCollector | null;
  /** The runs of this process that are part of a chain; a request with a depth joins them while it runs. */
  hops?: RunDepths | null;
  /** What routes' policy checks need (./policy/guards.ts); absent: {}. */
  policy?: PolicyDeps;
  /** OpenTelemetry tracing; null: off (requests then come without a span). */
  tracing?: Tracing | null;
}

export class Gateway {
  private readonly tables: Cache<RouteTable>;
  private readonly functions: Cache<FunctionRecord>;
  private readonly routeSeries = new Map<string, RouteSeries>();
  /** Each route's policy checks, for routes that have some (./policy/guards.ts); gone with the route objects. */
  private readonly guards = new WeakMap<Route, RouteGuard[]>();
  /** `switchyard_function_invocations_total{outcome="ok"}` per function: the label set of nearly every request. */
  private readonly okSeries = new Map<string, OkSeries>();
  /** `switchyard_http_requests_total{route=""}` per API (or "") and status: answers no route took. */
  private readonly unrouted = new Map<string, { inc(by?: number): void }>();
  /** The route a refusal came from (see `counted`): its answer is counted with the route's series. */
  private readonly refusedAt = new WeakMap<object, PolicyRequest>();

  private readonly runtime: FunctionRuntime;
  private readonly changes: ChangeBus;
  private readonly logSink: ConsoleLineSink;
  private readonly metrics: Metrics;
  private readonly invocations: InvocationHub | null;
  private readonly stats: StatsCollector | null;
  private readonly hops: RunDepths | null;
  private readonly tracing: Tracing | null;

  constructor(deps: GatewayDeps) {
    const { store, changes } = deps;
    this.runtime = deps.runtime;
    this.changes = changes;
    this.logSink = deps.logSink;
    this.metrics = deps.metrics;
    this.invocations = deps.invocations ?? null;
    this.stats = deps.stats ?? null;
    this.hops = deps.hops ?? null;
    this.tracing = deps.tracing ?? null;
    // Authorizer functions run like route functions: through this gateway's runtime, records from its cache.
    const policy: PolicyDeps = {
      runtime: deps.runtime,
      logSink: deps.logSink,
      functions: (name) => Promise.resolve(this.functions.peek(name) ?? this.functions.get(name)),
      ...deps.policy,
    };
    this.tables = new Cache(async (id) => {
      const api = await store.getApi(id);
      if (!api) return null;
      // Compiled with the table: a changed API brings new route objects, and their checks with them.
      for (const route of api.routes) {
        const guards = compileGuards(api, route, policy);
        if (guards !== null) this.guards.set(route, guards);
      }
      return new RouteTable(api);
    });
    this.functions = new Cache((name) => store.getFunction(name));
    changes.subscribe((change) => {
      if (change.kind === 'api') {
        this.tables.invalidate(change.id);
        void this.forgetRoutesGone(change.id);
      } else if (change.kind === 'function') {
        this.functions.invalidate(change.name);
        void this.forgetFunctionGone(change.name, store);
      } else if (change.kind === 'reset') {
        this.tables.clear();
        this.functions.clear();
      }
    });
  }

  /**
   * Answers one invocation request. Client mistakes (unknown API or route,
   * wrong method) throw typed errors; failures of user code become responses.
   */
  async handle(req: InvokeRequest): Promise<GatewayResponse> {
    const started = performance.now();
    const depth = req.depth ?? 0;
    if (depth > MAX_HOPS) throw new LoopStoppedError(depth, MAX_HOPS);
    if (req.minChange !== undefined && !(await this.changes.catchUp(req.minChange))) {
      throw new InvalidRequestError(`Switchyard-Min-Change: no change ${req.minChange} is known to this database`, {
        field: 'Switchyard-Min-Change',
      });
    }
    const cached = this.tables.peek(req.apiId);
    const table = cached ?? (await this.tables.get(req.apiId));
    if (!table) throw apiNotFound(req.apiId);
    const cors = table.cors;
    const aws = table.errors.errorFormat === 'aws';
    if (cors === null && !aws) return this.serve(req, table, cached, started, depth);
    const decision = cors === null ? null : cors.decide(req.method, req.rawHeaders);
    // A preflight is answered here: no route is needed and no function runs.
    if (decision?.kind === 'preflight') return { status: decision.answer.status, headers: { ...decision.answer.headers }, body: null };
    let response: GatewayResponse;
    try {
      response = await this.serve(req, table, cached, started, depth);
    } catch (err) {
      // No route, a wrong method, a refusal: worded as API Gateway words them when the API asks for it.
      const answer = aws ? awsErrorAnswer(err) : null;
      if (answer === null) {
        // The browser must still be let read the answer.
        if (decision !== null && err instanceof SwitchyardError) {
          const headers: Record<string, string | string[]> = { ...err.headers };
          applyCors(headers, decision);
          err.headers = headers as Record<string, string>;
        }
        throw err;
      }
      response = answer;
      // Answered, not thrown: the invoke handler's count of errors never sees it.
      this.countFailure(req.apiId, err, started);
    }
    if (decision !== null) applyCors(response.headers, decision, response.ownCors === true);
    return response;
  }

  /**
   * The CORS headers an answer of the API carries when it is written before the
   * gateway ran (a body over the limit, refused while it is read), so a browser
   * can read that answer too; {} for an unknown API or one without CORS.
   */
  async corsHeadersFor(apiId: string, method: string, rawHeaders: string[]): Promise<Record<string, string>> {
    const table = this.tables.peek(apiId) ?? (await this.tables.get(apiId));
    const decision = table?.cors?.decide(method, rawHeaders) ?? null;
    if (decision === null || decision.kind === 'preflight') return {};
    const headers: Record<string, string | string[]> = {};
    applyCors(headers, decision);
    return headers as Record<string, string>;
  }

  /** Matches the route and runs its function: the rest of `handle`, once the API's table is in hand. */
  private async serve(req: InvokeRequest, found: RouteTable, cached: RouteTable | undefined, started: number, depth: number): Promise<GatewayResponse> {
    let table: RouteTable | null = found;
    let match = table.match(req.method, req.path);
    // A miss on a cached table may be a change whose notice is still on its way from
    // another node: when the store knows of a newer change, read the API again once.
    // The notice may also arrive while the store is asked: then the table in hand is stale too.
    if (match.kind !== 'match' && cached !== undefined && ((await this.changes.behind()) || this.tables.peek(req.apiId) !== cached)) {
      this.tables.invalidate(req.apiId);
      table = await this.tables.get(req.apiId);
      if (!table) throw apiNotFound(req.apiId);
      match = table.match(req.method, req.path);
    }
    if (match.kind === 'not_found') throw new NoRouteError(req.method, req.path || '/');
    if (match.kind === 'method_not_allowed') throw new MethodNotAllowedError(req.method, req.path || '/', match.allow);
    // Before the policy runs: a refused request's line names its route too.
    if (req.facts !== undefined) {
      req.facts.route = `${match.route.method} ${match.resource}`;
      req.facts.function = match.route.function;
    }
    // An unsampled request comes with its context only (req.trace): its children would be unsampled
    // too, so none is made, and the function's fetches and emits carry that context on.
    const span = req.span;
    const traced = span !== undefined && span.isRecording() ? span : undefined;
    if (traced !== undefined) {
      traced.updateName(`${req.method} ${match.resource}`);
      traced.setAttributes({ 'http.route': match.resource, 'switchyard.api_id': req.apiId, 'faas.invoked_name': match.route.function });
    }
    const guards = this.guards.get(match.route);
    // The route's policy decides before its function is even looked up.
    let grant: PolicyGrant | null = null;
    if (guards !== undefined) {
      const authz = traced === undefined ? undefined : this.tracing!.internal(traced, 'authorize');
      try {
        const checked = this.guarded(guards, { req, route: match.route, resource: match.resource, match });
        grant = checked instanceof Promise ? await checked : checked;
      } catch (err) {
        if (authz !== undefined) this.tracing!.failed(authz, err instanceof PolicyRefusalError ? err.reason : 'error');
        throw err;
      } finally {
        authz?.end();
      }
    }

    const fn = this.functions.peek(match.route.function) ?? (await this.functions.get(match.route.function));
    let response: GatewayResponse;
    let outcomeCode = 'function_error';
    let logLines = 0;
    if (!fn) {
      // The route outlived its function (deleted on another node mid-flight): the gateway's own words, no secret of the function.
      const message = `Function '${match.route.function}' does not exist`;
      const words = table.errors.errorFormat === 'aws' ? table.errors : OWN_WORDS;
      response = failureAnswer(words, 'switchyard', 'function_error', message, req.requestId);
      this.stats?.invocationFailed(match.route.function, 'function_error', message, req.requestId);
    } else {
      const event = buildEventFor(fn.eventFormat, req, match, table.binaryMediaTypes, grant);
      // Only a request that is part of a chain (rare) is tracked: its emits are one hop deeper.
      const tracked = depth > 0 ? this.hops?.enter(fn.name, req.requestId, depth) : null;
      let outcome: Awaited<ReturnType<FunctionRuntime['invoke']>>;
      const run = traced === undefined ? undefined : this.tracing!.internal(traced, `invoke ${fn.name}`, { 'faas.invoked_name': fn.name, 'faas.invocation_id': req.requestId, 'switchyard.function_version': fn.version });
      const carried = run ?? span;
      try {
        outcome = await this.runtime.invoke(fn, JSON.stringify(event), req.requestId, carried === undefined ? (req.trace ?? null) : this.tracing!.carrierOf(carried));
      } catch (err) {
        // The runtime answers failures as outcomes; a throw (it stopped) still ends the span, so the trace keeps it.
        if (run !== undefined) {
          this.tracing!.failed(run, 'runtime_error');
          run.end();
        }
        throw err;
      } finally {
        if (tracked) this.hops!.leave(fn.name, req.requestId);
      }
      if (run !== undefined) {
        run.setAttribute('switchyard.isolate_ms', outcome.durationMs);
        // OpenTelemetry's FaaS convention: the run that started its isolate (a prewarmed one's first run is warm).
        if (outcome.stats !== undefined) run.setAttribute('faas.coldstart', outcome.stats.initMs !== null);
        if (!outcome.ok) this.tracing!.failed(run, outcome.error.code);
        run.end();
      }
      let logs = outcome.logs;
      outcomeCode = outcome.ok ? 'ok' : outcome.error.code;
      if (outcome.ok) {
        response = mapResultFor(fn.eventFormat, outcome.result, req.requestId, table.binaryMediaTypes, req.rawHeaders);
        if (fn.eventFormat === 'aws-v1') response.ownCors = true;
        const cookies = response.headers['set-cookie'];
        if (cookies !== undefined) response.headers['set-cookie'] = scopeCookies(cookies, table.cookieScope);
        const ok = this.okCounter(fn.name);
        ok.metric.inc();
        if (response.invalid === undefined) ok.stats?.add();
        else {
          const invalid = response.invalid;
          outcomeCode = 'invalid_result';
          this.stats?.invocationFailed(fn.name, 'invalid_result', invalid, req.requestId);
          response = failureAnswer(table.errors, fn.eventFormat, 'invalid_result', invalid, req.requestId);
          logs = [...logs, failureLogLine('invalid_result', invalid, req.requestId)];
        }
      } else {
        response = failureAnswer(table.errors, fn.eventFormat, outcome.error.code, outcome.error.message, req.requestId);
        // The details the answer may leave out are kept where the function's owner reads them.
        logs = [...logs, failureLogLine(outcome.error.code, outcome.error.message, req.requestId)];
        this.stats?.invocationFailed(fn.name, outcome.error.code, outcome.error.message, req.requestId);
        this.metrics.invocations.inc({ function: fn.name, outcome: outcome.error.code });
        if (outcome.error.code === 'function_timeout') this.metrics.timeouts.inc({ function: fn.name });
        else this.metrics.errors.inc({ function: fn.name, code: outcome.error.code });
      }
      logLines = logs.length;
      if (this.logSink.runLines === true) {
        this.logSink.push(fn.name, logs, fn.version, { requestId: req.requestId, durationMs: outcome.durationMs, memoryMb: fn.memoryMb, stats: outcome.stats });
      } else if (logLines > 0) this.logSink.push(fn.name, logs, fn.version);
    }
    if (table.minimumCompressionSize !== null) response.compressAbove = table.minimumCompressionSize;
    this.record(req.apiId, match.route, match.resource, response.status, started);
    if (this.invocations?.active) {
      this.invocations.publish({
        function: match.route.function,
        api_id: req.apiId,
        method: req.method,
        path: req.path || '/',
        status: response.status,
        duration_ms: roundMs(performance.now() - started),
        request_id: req.requestId,
        ts: new Date().toISOString(),
        outcome: outcomeCode,
        log_lines: logLines,
      });
    }
    return response;
  }

  /** Runs a route's checks (synchronously when none has to wait); a refusal is counted by reason before it is answered. */
  private guarded(guards: RouteGuard[], ctx: PolicyRequest): PolicyGrant | Promise<PolicyGrant> {
    let checked: PolicyGrant | Promise<PolicyGrant>;
    try {
      checked = runGuards(guards, ctx);
    } catch (err) {
      throw this.counted(err, ctx);
    }
    if (!(checked instanceof Promise)) return checked;
    return checked.catch((err: unknown) => {
      throw this.counted(err, ctx);
    });
  }

  private counted(err: unknown, ctx: PolicyRequest): unknown {
    if (err instanceof PolicyRefusalError) {
      this.metrics.refusals.inc({ api: ctx.req.apiId, route: `${ctx.route.method} ${ctx.resource}`, reason: err.reason });
    }
    // A refusal is an answer of the route: counted with its series, by its status (countFailure).
    if (err instanceof SwitchyardError) this.refusedAt.set(err, ctx);
    return err;
  }

  /**
   * Counts an invocation answered with an error (the invoke handler calls it on its error path, so a
   * success pays nothing for it): a route's refusal with the route's series (not in the per-minute
   * statistics, which count runs); any other (no such API or route, a wrong method, a body over the
   * limit) with route "". `started`: when the request arrived (performance.now()).
   */
  countFailure(apiId: string, err: unknown, started: number): void {
    const refused = typeof err === 'object' && err !== null ? this.refusedAt.get(err) : undefined;
    if (refused !== undefined && err instanceof SwitchyardError) {
      this.record(apiId, refused.route, refused.resource, err.status, started, false);
      return;
    }
    // An id no API has is the caller's to choose: one series for all of them, not one each.
    const api = this.tables.peek(apiId) ? apiId : '';
    const status = err instanceof SwitchyardError ? err.status : 500;
    const key = `${api}\u0000${status}`;
    let counter = this.unrouted.get(key);
    if (!counter) {
      counter = counterHandle(this.metrics.requests, api, '', String(status));
      this.unrouted.set(key, counter);
    }
    counter.inc();
  }

  /** After a change of API `apiId`: drops the series of its routes that are gone (all of them when the API is). */
  private async forgetRoutesGone(apiId: string): Promise<void> {
    let keep: ReadonlySet<string> | null;
    try {
      keep = (await this.tables.get(apiId))?.routeLabels ?? null;
    } catch {
      return; // the store is unreachable: the series stay until the next change
    }
    for (const [id, series] of this.routeSeries) {
      if (series.apiId === apiId && (keep === null || !keep.has(`${series.route.method} ${series.resource}`))) this.routeSeries.delete(id);
    }
    if (keep === null) for (const key of this.unrouted.keys()) if (key.startsWith(`${apiId}\u0000`)) this.unrouted.delete(key);
    await this.metrics.forgetRoutes(apiId, keep);
  }

  /** After a change of function `name`: drops its series if it was deleted. */
  private async forgetFunctionGone(name: string, store: Store): Promise<void> {
    try {
      if ((await store.getFunction(name)) !== null) return;
    } catch {
      return;
    }
    this.okSeries.delete(name);
    await this.metrics.forgetFunction(name);
  }

  private okCounter(name: string): OkSeries {
    let series = this.okSeries.get(name);
    if (!series) {
      series = { metric: counterHandle(this.metrics.invocations, name, 'ok'), stats: this.stats?.okCell(name) ?? null };
      this.okSeries.set(name, series);
    }
    return series;
  }

  private record(apiId: string, route: Route, resource: string, status: number, started: number, inStats = true): void {
    let series = this.routeSeries.get(route.id);
    if (!series || series.route !== route || series.resource !== resource || series.apiId !== apiId) {
      const labels = [apiId, `${route.method} ${resource}`];
      series = {
        route,
        resource,
        apiId,
        latency: histogramHandle(this.metrics.latency, ...labels),
        byStatus: new Map(),
        stats: this.stats?.requestCell(apiId, route.method, resource) ?? null,
      };
      this.routeSeries.set(route.id, series);
    }
    let counter = series.byStatus.get(status);
    if (!counter) {
      counter = counterHandle(this.metrics.requests, series.apiId, `${route.method} ${resource}`, String(status));
      series.byStatus.set(status, counter);
    }
    counter.inc();
    const ms = performance.now() - started;
    series.latency.observe(ms / 1000);
    if (inStats) series.stats?.add(status >= 500, ms);
  }
}
