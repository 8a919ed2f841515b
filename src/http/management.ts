/**
 * Mounts the documented HTTP surface on a Fastify app: the named schemas, the
 * OpenAPI generator and every route module. One function so that the server
 * and the build (scripts/build-openapi.mjs, which passes stub services and
 * never calls a handler) describe exactly the same routes.
 */
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import type { FunctionInvocations } from '../functions/invocations.js';
import type { FunctionService } from '../functions/service.js';
import type { ApiService } from '../gateway/apis.js';
import type { ApiKeyService } from '../keys/service.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { Stats } from '../stats/index.js';
import type { Store } from '../store/store.js';
import type { InvocationHub } from '../streams/invocations.js';
import type { EventBus } from '../webhooks/events.js';
import type { WebhookService } from '../webhooks/service.js';
import { registerApiKeyRoutes } from './api-keys/index.js';
import { registerApiRoutes } from './apis.js';
import { originOf, type InvokeOrigin } from './common.js';
import { registerDashboardRoutes } from './dashboard.js';
import { registerPortalPage } from './portal-page.js';
import { registerFunctionRoutes } from './functions/index.js';
import { registerIntegerParameters } from './integer-parameters.js';
import { swaggerOptions, type DocumentOptions } from './openapi.js';
import { registerOpsRoutes, type MetricsAccess, type NotReady } from './ops.js';
import { registerSchemas } from './schemas.js';
import { registerStatsRoutes } from './stats.js';
import { registerStreamRoutes } from './streams.js';
import { registerWebhookRoutes } from './webhooks/index.js';
import type { Idempotency } from '../events/idempotency.js';
import type { EventCatalogue } from '../events/catalogue.js';
import { registerEventTypeRoutes } from './event-types.js';
import type { ApplicationService } from '../applications/service.js';
import type { PortalTokens } from '../portal/tokens.js';
import { registerApplicationRoutes } from './applications.js';
import { registerPortalRoutes } from './portal.js';
import type { RequestSpans } from './request-spans.js';

export interface ManagementDeps {
  store: Store;
  metrics: Metrics;
  functions: FunctionService;
  apis: ApiService;
  apiKeys: ApiKeyService;
  webhooks: WebhookService;
  events: EventBus;
  /** The event-type catalogue (`/api/event-types`). */
  catalogue: EventCatalogue;
  /** Applications (`/api/applications`) and the scope of webhooks and publishes. */
  applications: ApplicationService;
  /** Portal tokens: the consumer API's (`/api/portal/...`) authentication. */
  portalTokens: PortalTokens;
  /** Idempotency-Key and event ids on publish, test-fire and background invokes. */
  idempotency: Idempotency;
  invocations: InvocationHub;
  /** Background invocations (asynchronous, scheduled, event-triggered) of functions. */
  background: FunctionInvocations;
  /** Per-minute statistics (`GET /api/stats`). */
  stats: Stats;
  /** Who may read /metrics (default: anyone). */
  metricsAccess?: MetricsAccess;
  /** Why /readyz answers 503 beyond the store (draining, isolate workers down); null: ready. */
  notReady?: () => NotReady | null;
  /** A span per request while tracing (request-spans.ts); null or absent: off. */
  spans?: RequestSpans | null;
}

/** `invokeOrigin`: where callers reach invocations (listeners.ts); by default their own origin. */
export async function registerManagementApi(
  app: FastifyInstance,
  deps: ManagementDeps,
  doc: DocumentOptions,
  invokeOrigin: InvokeOrigin = originOf,
): Promise<void> {
  registerSchemas(app);
  deps.spans?.register(app);
  registerIntegerParameters(app);
  countManagementRequests(app, deps.metrics);
  await app.register(swagger, swaggerOptions(doc));
  registerOpsRoutes(app, deps.store, deps.metrics, deps.metricsAccess, deps.notReady);
  registerDashboardRoutes(app, invokeOrigin);
  registerFunctionRoutes(app, { functions: deps.functions, background: deps.background, idempotency: deps.idempotency, spans: deps.spans });
  registerStreamRoutes(app, { store: deps.store, functions: deps.functions, invocations: deps.invocations });
  registerApiRoutes(app, { apis: deps.apis, invokeOrigin });
  registerApiKeyRoutes(app, { apiKeys: deps.apiKeys });
  registerWebhookRoutes(app, {
    webhooks: deps.webhooks,
    events: deps.events,
    idempotency: deps.idempotency,
    catalogue: deps.catalogue,
    applications: deps.applications,
    spans: deps.spans,
  });
  registerEventTypeRoutes(app, { catalogue: deps.catalogue });
  registerApplicationRoutes(app, { applications: deps.applications, portalTokens: deps.portalTokens });
  registerPortalRoutes(app, { portalTokens: deps.portalTokens, webhooks: deps.webhooks, catalogue: deps.catalogue });
  registerPortalPage(app, { applications: deps.applications });
  registerStatsRoutes(app, { store: deps.store, stats: deps.stats });
}

/**
 * `switchyard_management_requests_total` and its duration histogram: every
 * answer under /api/ (invocations are counted by the gateway), by the route's
 * template (`/api/functions/:name`, bounded), "" when no route matched (a
 * caller's path would be unbounded). Children are cached per label set.
 */
function countManagementRequests(app: FastifyInstance, metrics: Metrics): void {
  const counters = new Map<string, { inc(): void }>();
  const timers = new Map<string, { observe(seconds: number): void }>();
  app.addHook('onResponse', (request, reply, done) => {
    const template = request.routeOptions.url;
    if (template === undefined ? request.url.startsWith('/api/') : template.startsWith('/api/')) {
      const route = template ?? '';
      const method = request.method;
      const key = `${method} ${route} ${reply.statusCode}`;
      let counter = counters.get(key);
      if (!counter) {
        counter = metrics.managementRequests.labels(method, route, String(reply.statusCode));
        counters.set(key, counter);
      }
      counter.inc();
      const timerKey = `${method} ${route}`;
      let timer = timers.get(timerKey);
      if (!timer) {
        timer = metrics.managementLatency.labels(method, route);
        timers.set(timerKey, timer);
      }
      timer.observe(reply.elapsedTime / 1000);
    }
    done();
  });
}

/**
 * The document alone, without a server or a database: the routes are mounted
 * with stub services (no handler runs) and the generator reads them.
 */
export async function buildOpenApiDocument(doc: DocumentOptions): Promise<Record<string, any>> {
  const app = Fastify({ logger: false });
  const stub = {} as never;
  await registerManagementApi(
    app,
    {
      store: stub,
      metrics: stub,
      functions: stub,
      apis: stub,
      apiKeys: stub,
      webhooks: stub,
      events: stub,
      catalogue: stub,
      applications: stub,
      portalTokens: stub,
      idempotency: stub,
      invocations: stub,
      background: stub,
      stats: stub,
    },
    doc,
  );
  await app.ready();
  // A copy: the generator caches its object and later callers may change theirs.
  const document = structuredClone(app.swagger()) as Record<string, any>;
  await app.close();
  return document;
}
