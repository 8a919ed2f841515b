/**
 * Builds the Switchyard service from its parts: store, runtime, services,
 * Fastify app. `startServer` is what the CLI and the integration tests run.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ChangeBus, type Siblings } from './changes.js';
import { DatabaseClock, ManualClock, systemClock, type Clock } from './clock.js';
import { isClusterWorker, type ClusterMessage } from './cluster.js';
import { isLoopbackHost, type Config, type ListenAddress } from './config.js';
import { createDeliveryPipeline, type DeliveryPipeline } from './deliveries/index.js';
import { DueSignal } from './deliveries/due-signal.js';
import { FunctionLogSink } from './functions/log-sink.js';
import { FunctionStdout } from './functions/stdout-lines.js';
import { FunctionInvocations } from './functions/invocations.js';
import { InvocationOutcomes } from './functions/outcomes.js';
import { scheduledInvocation } from './functions/schedule-event.js';
import { BackgroundRunner } from './functions/runner.js';
import { FunctionService } from './functions/service.js';
import { FunctionTarget } from './functions/target.js';
import { ApiService } from './gateway/apis.js';
import { Gateway } from './gateway/gateway.js';
import { RunDepths } from './hops.js';
import { AccessLog } from './http/access-log.js';
import { registerAdminAuth } from './http/auth.js';
import { registerCompression } from './http/compression.js';
import { FailedAttempts } from './http/failed-attempts.js';
import { registerKeylessGuard } from './http/keyless-guard.js';
import { MAX_PARAM_LENGTH, answerClientError, answerFrameworkError, registerErrorHandling } from './http/errors.js';
import { OWN_ORIGIN_HEADERS } from './http/common.js';
import { lazySerializerFactory, lazyValidatorFactory } from './http/lazy-compilers.js';
import { createInvokeHandler } from './http/invoke.js';
import { arrivedOnMetricsListener, createListeners, invokeOriginOf } from './http/listeners.js';
import { registerJsonBodyParser } from './http/json-body.js';
import { registerManagementApi } from './http/management.js';
import { RequestSpans } from './http/request-spans.js';
import { EventInvalidError } from './errors.js';
import { Idempotency } from './events/idempotency.js';
import { EventCatalogue } from './events/catalogue.js';
import { EmitRulesSync } from './events/emit-rules-sync.js';
import { webhooksSection } from './events/openapi.js';
import { EventValidator } from './events/validation.js';
import { registerTestHooks } from './http/test-hooks.js';
import { nextRequestId } from './ids.js';
import { trustFunction } from './net/trusted-proxies.js';
import { createLogger } from './logger.js';
import { createMetrics, type Metrics } from './telemetry/metrics.js';
import { createRuntime } from './runtime/pool.js';
import { siblingChanges } from './sibling-changes.js';
import { Throttles } from './gateway/policy/throttle.js';
import { KeyDirectory } from './gateway/policy/api-keys.js';
import { KeyUseCounter } from './gateway/policy/key-usage.js';
import { ApiKeyService } from './keys/service.js';
import type { FunctionRuntime, RunReports } from './runtime/types.js';
import { openStore } from './store/index.js';
import type { Store } from './store/store.js';
import { createStats } from './stats/index.js';
import { InvocationHub } from './streams/invocations.js';
import { EventBus } from './webhooks/events.js';
import { ApplicationService } from './applications/service.js';
import { PortalTokens } from './portal/tokens.js';
import { createEndpointHealth } from './webhooks/health/index.js';
import { createWebhooks, mockFetcher, type Webhooks } from './webhooks/index.js';
import { WebhookTarget } from './webhooks/target.js';
import type { FetchSpanRecord, TraceCarrier } from './telemetry/types.js';
import { Transformer } from './webhooks/transformation.js';

export interface Service {
  app: FastifyInstance;
  /** The admin listener (dashboard and management API) when it has its own; null: `app.server` serves everything. */
  adminServer: Server | null;
  /** The metrics listener (GET /metrics alone) when SWITCHYARD_METRICS_ADDRESS gives it one. */
  metricsServer: Server | null;
  store: Store;
  runtime: FunctionRuntime;
  log: Logger;
  webhooks: Webhooks;
  deliveries: DeliveryPipeline;
  clock: Clock;
  metrics: Metrics;
  /** Starts the background work (scheduler, deliveries); call after listening. */
  startBackground(): void;
  /** Stops taking requests, finishes in-flight ones (up to the grace period), then releases everything. */
  close(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** The LOG_LEVELs at which an `info` line is written. */
const WRITES_INFO: ReadonlySet<Config['logLevel']> = new Set(['info', 'debug', 'trace']);

/** The answer header of a management write: the number of the last change it made to cached state. */
export const CHANGE_HEADER = 'switchyard-change';

export async function buildService(config: Config, log: Logger = createLogger(config)): Promise<Service> {
  // Stored timestamps follow the same clock as schedules and leases (late-bound: the
  // database clock needs the store to read the database's time).
  let clock: Clock | undefined;
  const store = await openStore(config.databaseUrl, {
    logRetention: config.logRetention,
    limits: config.limits,
    now: config.testHooks ? undefined : () => new Date((clock ?? systemClock).now()),
  });
  clock = await chooseClock(config, store, log);
  // Loaded only when on: a server without tracing loads none of the OpenTelemetry SDK.
  const tracing = config.telemetry === null ? null : new (await import('./telemetry/tracing.js')).Tracing(config.telemetry, config.logRedactQuery);
  // One hop count for every kind of trigger (src/hops.ts): the gateway, manual invokes and background runs share it.
  const hops = new RunDepths();
  // Producers of deliveries are built before the engine (it needs the runtime, whose emits reach them): they ring this.
  const due = new DueSignal();
  const wake = () => due.wake();
  const changes = new ChangeBus({
    feed: store.changeFeed,
    siblings: isClusterWorker() ? clusterSiblings(log) : null,
    onFeedError: (err) => log.warn({ err }, 'could not announce a change to other nodes'),
  });
  const background = new FunctionInvocations({ store, clock, wake, log, hops });
  // The catalogue's compiled schemas, dropped on every process by an event_type change;
  // a write answers once this process's workers refuse emits by it (emitRules, below).
  const catalogue = new EventCatalogue({ store, changes, afterChange: (): Promise<void> => emitRules.settled() });
  const applications = new ApplicationService({ store, clock, changes });
  const portalTokens = new PortalTokens({ store, clock, ttlMs: config.portalTokenTtlMs, maxTtlMs: config.portalTokenMaxTtlMs });
  const events = new EventBus({
    store,
    clock,
    wake,
    applications,
    functionFanOut: (event, data, depth, trace) => background.fanOut(event, data, depth, trace),
    validator: new EventValidator({ store, changes, log }),
    log,
  });
  const emitOperational = events.emitOperational.bind(events);
  const idempotency = new Idempotency({ store, clock, windowMs: config.idempotencyWindowMs, log });
  // The start time and heap of a run travel with its answer only where report lines are written, or
  // while tracing for a sampled run (its invocation span says whether it was a cold start).
  const runReports: RunReports = config.functionLogsToStdout && config.functionReportLines ? 'all' : tracing !== null ? 'sampled' : 'none';
  const runtimeOptions = {
    warmIsolates: config.warmIsolates,
    syncCalls: config.syncCalls,
    allowPrivateTargets: config.allowPrivateTargets,
    runReports,
    logger: log,
    onEmit(functionName: string, event: string, dataJson: string, application?: string, trace?: TraceCarrier) {
      // `emit(name, data, {application})`: to that application's webhooks only (an unknown one is logged below).
      // A traced invocation's emit is a PRODUCER span under it; the deliveries it makes keep that span's context.
      const span = tracing !== null && trace !== undefined ? tracing.under(trace, `emit ${event}`, 'producer', { 'switchyard.event': event, 'faas.invoked_name': functionName }) : undefined;
      const carrier = span && tracing!.carrierOf(span);
      // Started as a promise chain so a throw while parsing or starting still reaches the catch and ends the span.
      Promise.resolve()
        .then(() => background.emitFrom(functionName, event, JSON.parse(dataJson), (e, data, depth) => events.publish(e, data, depth, { source: 'emit', trace: carrier, ...(application === undefined ? {} : { application }) }), emitOperational))
        .catch((err) => {
          if (span !== undefined) tracing!.failed(span, err instanceof Error ? err.message : String(err));
          return err instanceof EventInvalidError
            ? log.warn({ function: functionName, event, path: err.path, version: err.version }, `emit refused: ${err.message}`)
            : log.warn({ err, function: functionName, event }, 'could not publish an emitted event');
        })
        .finally(() => span?.end());
    },
    onFetchSpan: tracing === null ? undefined : (record: FetchSpanRecord) => tracing.recordFetch(record),
  };
  // In this process only as one of several (src/cluster.ts): an isolate's V8 abort then costs this process alone.
  // Loaded only here: isolated-vm and the sandbox stay out of a primary's and a worker-mode process's memory.
  const runtime =
    config.isolates === 'in-process' && isClusterWorker()
      ? (await import('./runtime/in-process.js')).createInProcessRuntime({ ...runtimeOptions, testHooks: config.testHooks })
      : createRuntime({ ...runtimeOptions, workers: config.workers });
  const emitRules: EmitRulesSync = new EmitRulesSync({ catalogue, changes, apply: (rules) => runtime.setEmitRules(rules), log });
  void emitRules.refresh();
  const dbClock = clock instanceof DatabaseClock ? clock : null;
  const metrics = createMetrics({ clockOffsetMs: () => dbClock?.offset ?? 0, store: store.kind });
  // Loaded only when on, like tracing: the push reads the same registry GET /metrics does.
  const otlpMetrics =
    config.metricsExport === null ? null : new (await import('./telemetry/otlp-metrics.js')).OtlpMetrics({ config: config.metricsExport, json: metrics.json });
  metrics.runtime.workers = () => runtime.stats().workers;
  const logSink = new FunctionLogSink({
    store,
    retention: config.logRetention,
    log,
    echo: config.functionLogsToStdout ? new FunctionStdout({ format: config.functionLogsFormat, log }) : null,
    runLines: config.functionReportLines,
  });
  const invocations = new InvocationHub({ store, changes, log });
  const stats = createStats({ clock, store, log });
  const throttles = new Throttles({ limits: store, clock });
  const keyUses = new KeyUseCounter({ limits: store, log });
  const gateway = new Gateway({
    store,
    runtime,
    changes,
    logSink,
    metrics,
    invocations,
    stats: stats.collector,
    hops,
    tracing,
    policy: {
      clock,
      allowPrivateTargets: config.allowPrivateTargets,
      throttles,
      apiKeys: { directory: new KeyDirectory({ store, changes }), throttles, limits: store, uses: keyUses, clock },
    },
  });
  // Webhooks' transformations run in the functions' worker processes, never here.
  const transformer = new Transformer({ runtime, allowPrivateTargets: config.allowPrivateTargets });
  const webhookTarget = new WebhookTarget({
    store,
    clock,
    allowPrivateTargets: config.allowPrivateTargets,
    connections: config.deliveryConcurrency,
    fetchMock: mockFetcher(gateway),
    log,
    transformer,
    tracing,
  });
  const functionTarget = new FunctionTarget({
    runner: new BackgroundRunner({ store, runtime, logSink, hops, hub: invocations, tracing }),
    clock,
  });
  // The engine asks it before each attempt: held webhooks, breakers, rate limits, Retry-After.
  const health = createEndpointHealth({ store, clock, changes, target: webhookTarget, due, events, metrics, log, maxHeld: config.maxHeld });
  const deliveries = createDeliveryPipeline({
    config,
    store,
    clock,
    targets: { webhook: webhookTarget, function: functionTarget },
    gate: health.gate,
    due,
    metrics,
    stats: stats.collector,
    log,
  });
  new InvocationOutcomes({ store, invocations: background, clock, wake, emitOperational, log }).follow(deliveries.engine.events);
  const webhooks = createWebhooks({
    config,
    store,
    clock,
    changes,
    engine: deliveries.engine,
    target: webhookTarget,
    transformer,
    health,
    events,
    applications,
    due,
    metrics,
    log,
    functionSlot: scheduledInvocation,
    prewarm: config.prewarmAheadMs === 0 ? undefined : {
      aheadMs: config.prewarmAheadMs,
      // Each worker process keeps at most warmIsolates; the runtime refuses prewarms past that itself.
      limit: config.warmIsolates * Math.max(1, config.workers),
      warm(names) {
        for (const name of names) {
          store.getFunction(name).then(
            (fn) => fn && runtime.prewarm(fn),
            (err: unknown) => log.warn({ err, function: name }, 'could not read a function to prewarm'),
          );
        }
      },
    },
  });
  const scheduler = webhooks.scheduler;
  const functions = new FunctionService({
    store,
    runtime,
    changes,
    logSink,
    emitOperational,
    invocations,
    schedules: { clock, changed: () => scheduler.wake() },
    stats: stats.collector,
    hops,
  });
  const webhookService = webhooks.service;
  const apiKeys = new ApiKeyService({ store, changes, now: () => clock.now() });
  const apis = new ApiService({
    store,
    changes,
    hooks: { beforeDelete: (id) => webhookService.assertApiUnused(id), emitOperational },
    allowPrivateTargets: config.allowPrivateTargets,
  });

  /** Each request's count of published changes when it arrived. */
  const changeMarks = new WeakMap<object, number>();
  let closingStarted = false;
  let draining = false;
  // One trust function for both paths, so the invoke endpoint's sourceIp and Fastify's request.ip agree.
  const trust = config.trustedProxies && trustFunction(config.trustedProxies);
  // Access lines are written at info: under a LOG_LEVEL above it none would be, so none is built
  // (5xx lines, at warn, still are).
  const access = new AccessLog({ log, enabled: config.accessLog && WRITES_INFO.has(config.logLevel), redaction: config.logRedactQuery });
  const invoke = createInvokeHandler(gateway, { bodyLimit: config.bodyLimit, log, access, isClosing: () => closingStarted, trust, tracing });

  let adminServer: Server | null = null;
  let metricsServer: Server | null = null;
  const app = Fastify({
    // Invocations skip Fastify entirely (src/http/invoke.ts explains why); which
    // listener serves what: src/http/listeners.ts. Fastify listens on the public one.
    serverFactory(fastifyHandler) {
      const listeners = createListeners((req, res) => void invoke(req, res), fastifyHandler, {
        separate: config.adminAddress !== null,
        metricsOnPublic: config.metricsListener === 'public',
        metricsOwn: config.metricsAddress !== null,
      });
      adminServer = listeners.admin;
      metricsServer = listeners.metrics;
      // Fastify answers malformed requests on the server it listens on only.
      adminServer?.on('clientError', answerClientError);
      metricsServer?.on('clientError', answerClientError);
      return listeners.public;
    },
    loggerInstance: log as FastifyBaseLogger,
    // One request id field name in every line (`requestId`, as invocations and functions' lines name it); the
    // per-request line is our own access line (src/http/access-log.ts), not Fastify's two.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    bodyLimit: config.bodyLimit,
    // request.ip, .protocol and .host (invokeUrl, the wrong-key slowing) believe X-Forwarded-* only from trusted peers.
    trustProxy: trust ?? false,
    return503OnClosing: true,
    requestIdHeader: false,
    genReqId(req) {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : nextRequestId();
    },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
    // Validators and serializers are built on a route's first use, not all at start-up (lazy-compilers.ts).
    schemaController: { compilersFactory: { buildValidator: lazyValidatorFactory(), buildSerializer: lazySerializerFactory() } },
  });

  app.addHook('onRequest', async function tagRequest(request, reply) {
    reply.header('x-request-id', request.id).headers(OWN_ORIGIN_HEADERS);
    changeMarks.set(request, changes.published);
  });
  // A write that changed a cached entry says which change it made: a call to another node
  // can ask to be served from a state at least that new (Switchyard-Min-Change, docs/deploy.md).
  app.addHook('onSend', async function tagChange(request, reply) {
    if (request.method === 'GET' || request.method === 'HEAD') return;
    if (changeMarks.get(request) !== changes.published && changes.latestPublished > 0) {
      reply.header(CHANGE_HEADER, String(changes.latestPublished));
    }
  });
  app.addHook('onResponse', async function accessLog(request, reply) {
    if (access.wants(reply.statusCode)) access.management(request, reply);
  });

  registerErrorHandling(app);
  registerJsonBodyParser(app);
  await registerCompression(app);
  // Wrong keys are slowed only where other machines can send them, on either listener (failed-attempts.ts).
  const exposed = !isLoopbackHost(config.host) || (config.adminAddress !== null && !isLoopbackHost(config.adminAddress.host));
  const attempts = exposed ? new FailedAttempts() : null;
  if (config.adminKey) registerAdminAuth(app, config.adminKey, attempts);
  else {
    // Without a key the management API's listener keeps to this machine's pages (keyless-guard.ts). A public
    // listener of its own that other machines reach brings Fastify only the probes and /metrics, public there.
    const publicReachable = config.adminAddress !== null && !isLoopbackHost(config.host);
    // A metrics listener other machines reach serves them /metrics, as a reachable public listener does.
    const metricsReachable = config.metricsAddress !== null && !isLoopbackHost(config.metricsAddress.host);
    registerKeylessGuard(app, (request) => {
      const on = arrivedOn(request);
      if (on === metricsServer && on !== null) return !metricsReachable;
      return !publicReachable || on === adminServer;
    });
  }
  await registerManagementApi(
    app,
    {
      store,
      metrics,
      functions,
      apis,
      apiKeys,
      webhooks: webhooks.service,
      events,
      catalogue,
      applications,
      portalTokens,
      idempotency,
      invocations,
      background,
      stats,
      metricsAccess: {
        token: config.metricsToken,
        attempts,
        arrivedOnOwnListener: config.metricsAddress === null ? null : arrivedOnMetricsListener,
      },
      spans: tracing === null ? null : new RequestSpans({ tracing }),
      notReady: () =>
        draining
          ? { status: 'draining', error: 'Switchyard is shutting down: draining connections', code: 'shutting_down' }
          : runtime.ready()
            ? null
            : { status: 'unavailable', error: 'the isolate workers of this server process are not running', code: 'runtime_unavailable' },
    },
    { secured: config.adminKey !== null },
    invokeOriginOf({
      publicUrl: config.publicUrl,
      separate: config.adminAddress !== null,
      publicPort: () => (app.server.address() as AddressInfo | null)?.port ?? config.port,
    }),
  );
  if (config.testHooks && clock instanceof ManualClock) registerTestHooks(app, clock);
  // The catalogue changes at run time, so its `webhooks` section is added to each answer, not to the built document.
  app.get('/api/openapi.json', { schema: { hide: true } }, async function openapi() {
    return { ...app.swagger(), webhooks: webhooksSection(await catalogue.all()) };
  });

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      // Draining: still serving, while /readyz tells the load balancer to send no more.
      draining = true;
      if (config.drainDelayMs > 0) {
        log.info({ drainDelayMs: config.drainDelayMs }, `draining: /readyz answers 503 for ${config.drainDelayMs} ms while requests are still served`);
        await new Promise((r) => setTimeout(r, config.drainDelayMs));
      }
      closingStarted = true;
      // Keep-alive sockets that finish their last response would hold close() open
      // until the grace period: close them as soon as they go idle.
      const servers = [app.server, adminServer, metricsServer].filter((s): s is Server => s !== null);
      const sweep = setInterval(() => servers.forEach((s) => s.closeIdleConnections?.()), 100);
      sweep.unref();
      const grace = setTimeout(() => {
        log.warn('grace period over: closing remaining connections');
        servers.forEach((s) => s.closeAllConnections?.());
      }, config.shutdownGraceMs);
      grace.unref();
      // One grace period for everything: the engine stops claiming now, not once the
      // HTTP side has drained, and its attempts finish alongside the requests.
      const deadline = Date.now() + config.shutdownGraceMs;
      // The scheduler stops first, so the engine's last claim sees every slot it made.
      const pipeline = webhooks.stop().then(() => deliveries.stop(config.shutdownGraceMs));
      await Promise.all([app.close(), closeServer(adminServer), closeServer(metricsServer), pipeline]);
      clearInterval(sweep);
      clearTimeout(grace);
      idempotency.stop();
      await invocations.close();
      changes.close();
      await logSink.flush();
      await keyUses.flush();
      await stats.flusher.stop();
      await runtime.close(Math.max(0, deadline - Date.now()));
      // After the runtime: the last fetches' spans arrive with its workers' last frames.
      await tracing?.shutdown().catch((err: unknown) => log.warn({ err }, 'could not send the last spans'));
      await otlpMetrics?.shutdown().catch((err: unknown) => log.warn({ err }, 'could not push the last metrics'));
      dbClock?.stop();
      await store.close();
    })());

  let started = false;
  const startBackground = () => {
    if (started) return;
    started = true;
    deliveries.start();
    webhooks.start();
    idempotency.start();
    stats.flusher.start();
  };
  return { app, adminServer, metricsServer, store, runtime, log, webhooks, deliveries, clock, metrics, startBackground, close };
}

/** Stops accepting on a listener Fastify does not own; resolves once its connections are gone. */
function closeServer(server: Server | null): Promise<void> {
  if (!server?.listening) return Promise.resolve();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** In a server process of `--processes`: the other processes of this node, through the primary. */
function clusterSiblings(log: Logger): Siblings {
  return siblingChanges({
    send: (message) => process.send!(message),
    receive(handler: (message: ClusterMessage) => void) {
      process.on('message', handler);
      return () => process.off('message', handler);
    },
    onLate: (missing) =>
      log.warn({ missing }, 'not every server process of this node confirmed a change in time; the write answered anyway'),
  });
}

/** The listener a request came in on (node sets `server` on every socket it accepts, in cluster workers too). */
function arrivedOn(request: FastifyRequest): unknown {
  return (request.raw.socket as { server?: unknown }).server;
}

/**
 * Nodes on one PostgreSQL must agree on when a slot is due and a lease has
 * expired, whatever their own clocks say: they use the database's clock.
 * SQLite's processes share one machine's clock; tests move a ManualClock.
 */
async function chooseClock(config: Config, store: Store, log: Logger): Promise<Clock> {
  if (config.testHooks) return new ManualClock();
  if (store.kind === 'sqlite') return systemClock;
  const clock = new DatabaseClock({
    readTime: () => store.databaseTime(),
    onError: (err) => log.warn({ err }, 'could not read the database clock; keeping the last offset'),
  });
  await clock.start();
  if (Math.abs(clock.offset) > 1000) {
    log.warn({ offset_ms: clock.offset }, "this node's clock is off the database's; schedules and leases use the database's");
  }
  return clock;
}

/** The URLs a started server answers at. */
export interface Listening {
  /** Invocations (and everything else when there is no admin listener). */
  url: string;
  /** The dashboard and management API: `url` unless they have their own listener. */
  adminUrl: string;
  /** GET /metrics: its own listener's URL with SWITCHYARD_METRICS_ADDRESS, else null. */
  metricsUrl: string | null;
}

/**
 * Builds the service and listens; resolves with the bound addresses. The
 * public listener first, then the admin one: under node:cluster every server
 * process must listen in the same order, so that with port 0 the n-th
 * listener of each shares one port (src/cluster.ts).
 */
export async function startServer(config: Config, log?: Logger): Promise<Service & Listening> {
  const service = await buildService(config, log);
  try {
    const url = await service.app.listen({ port: config.port, host: config.host });
    const adminUrl = service.adminServer ? await listen(service.adminServer, config.adminAddress!) : url;
    const metricsUrl = service.metricsServer ? await listen(service.metricsServer, config.metricsAddress!, 'metrics') : null;
    service.startBackground();
    return { ...service, url, adminUrl, metricsUrl };
  } catch (err) {
    await service.close();
    throw err;
  }
}

/** Listens with the admin listener; a failure says which listener it was (startup-failure.ts names its setting). */
function listen(server: Server, at: ListenAddress, listener: 'admin' | 'metrics' = 'admin'): Promise<string> {
  return new Promise((resolve, reject) => {
    const fail = (err: Error) => reject(Object.assign(err, { listener }));
    server.once('error', fail);
    server.listen(at.port, at.host, () => {
      server.off('error', fail);
      const bound = server.address() as AddressInfo;
      resolve(`http://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`);
    });
  });
}
