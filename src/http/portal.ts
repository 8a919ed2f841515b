/**
 * The consumer API (`/api/portal/...`, tag `consumer`): what a portal token
 * (src/portal/tokens.ts) opens, on its application's resources only. Each
 * route is marked `config.portal`: the admin check (auth.ts) leaves it to the
 * hook below, which takes only a portal token; every other route refuses one.
 * The scope is checked on the resource the matched route names, after the
 * router decoded the path: another application's webhook or delivery answers
 * 404 as one that does not exist would, so ids of others are not confirmed.
 * It reuses the webhook service; consumers may set a subset of a webhook's
 * fields (no transformation, mock endpoint or project: those run or name the
 * operator's things), and every answer is the consumer's narrower view
 * (PortalEndpoint, PortalDelivery: schema/portal.ts), never the operator's. Lives in http/ rather than src/portal/ because it is
 * mounted by management.ts with the rest of the document.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { EventCatalogue } from '../events/catalogue.js';
import { NotFoundError, PortalTokenInvalidError, deliveryNotFound, webhookNotFound } from '../errors.js';
import { PORTAL_TOKEN_PREFIX, type PortalCaller, type PortalTokens } from '../portal/tokens.js';
import { Type, anyObject, stringEnum } from '../schema/kit.js';
import { idParams, recoverBody, rotateSecretBody } from '../schema/webhooks.js';
import { DELIVERY_STATUSES, type Delivery } from '../deliveries/types.js';
import type { Webhook } from '../webhooks/types.js';
import type { WebhookService } from '../webhooks/service.js';
import { WEBHOOK_METHODS } from '../webhooks/types.js';
import { LINK_HEADER, pageOf, pageQuerySchema, readPage } from './common.js';
import { ERRORS_BY_ID, ERRORS_BY_ID_WITH_BODY, errors, listOf, ref } from './schemas.js';
import { typed, type TypedApp } from './typed.js';
import { portalSessionView } from './views/applications.js';
import { eventTypeView } from './views/event-types.js';
import { portalDeliveryDetailView, portalDeliveryView, portalEndpointView } from './views/portal.js';
import { recoveryView } from './views/webhooks.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A consumer API route: a portal token, never the admin key (portal.ts). */
    portal?: boolean;
  }
  interface FastifyRequest {
    /** On a consumer API route: who the portal token is. */
    portalCaller?: PortalCaller;
  }
}

export interface PortalRouteDeps {
  portalTokens: PortalTokens;
  webhooks: WebhookService;
  catalogue?: EventCatalogue;
}

const tags = ['consumer'];
const security = [{ portalToken: [] }];
const PORTAL = { config: { portal: true } } as const;
const BEARER = /^bearer +/i;

/** The bearer token of a request, or null. */
function bearerOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const scheme = BEARER.exec(header);
  return scheme ? header.slice(scheme[0].length).trim() : null;
}

const callerOf = (request: FastifyRequest): PortalCaller => request.portalCaller!;

/** The envelope consumers' endpoints get: `{type, timestamp, data}` (the data rule fills `data`). */
const CONSUMER_TEMPLATE = Object.freeze({ type: '{{event}}', timestamp: '{{timestamp}}' });

const endpointFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  target_url: Type.String({ maxLength: 2048, description: 'http(s) URL; private and loopback addresses are refused' }),
  method: stringEnum(WEBHOOK_METHODS, { description: 'Default POST' }),
  headers: Type.Record(Type.String(), Type.String({ maxLength: 4096 }), { maxProperties: 50 }),
  events: Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100, description: 'Event names, or `*` for every event of the application' }),
  enabled: Type.Boolean(),
  filter: anyObject({ description: 'A payload filter (docs/webhooks.md, Filters)' }),
  rate_limit: Type.Object(
    { per_second: Type.Number({ minimum: 0.01, maximum: 100_000 }), burst: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })) },
    { additionalProperties: false },
  ),
};
const createEndpointBody = Type.Object(
  {
    name: endpointFields.name,
    target_url: endpointFields.target_url,
    method: Type.Optional(endpointFields.method),
    headers: Type.Optional(endpointFields.headers),
    events: Type.Optional(endpointFields.events),
    enabled: Type.Optional(endpointFields.enabled),
    filter: Type.Optional(endpointFields.filter),
    rate_limit: Type.Optional(endpointFields.rate_limit),
  },
  { additionalProperties: false },
);
const updateEndpointBody = Type.Object(
  {
    name: Type.Optional(endpointFields.name),
    target_url: Type.Optional(endpointFields.target_url),
    method: Type.Optional(endpointFields.method),
    headers: Type.Optional(endpointFields.headers),
    events: Type.Optional(endpointFields.events),
    enabled: Type.Optional(endpointFields.enabled),
    filter: Type.Optional(endpointFields.filter),
    rate_limit: Type.Optional(endpointFields.rate_limit),
  },
  { additionalProperties: false, required: [] },
);
const testEndpointBody = Type.Object(
  { event_type: Type.Optional(Type.String({ maxLength: 200, description: "Send this catalogued type's example (default: the first of the endpoint's events that has one)" })) },
  { additionalProperties: false },
);
const deliveryListQuery = Type.Object(
  { ...pageQuerySchema.properties, status: Type.Optional(stringEnum(DELIVERY_STATUSES)) },
  { additionalProperties: false },
);

/** A missing record reads null; anything else (the store unreachable: 503) is answered as itself. */
function absentAsNull(err: unknown): null {
  if (err instanceof NotFoundError) return null;
  throw err;
}

/** The caller's own webhook; another application's, or a global one, is as absent as a missing one. */
async function ownEndpoint(webhooks: WebhookService, caller: PortalCaller, id: string): Promise<Webhook> {
  const webhook = await webhooks.get(id).catch(absentAsNull);
  if (!webhook || webhook.applicationId !== caller.application.id) throw webhookNotFound(id);
  return webhook;
}

/** The caller's own delivery, with its endpoint (whose transformation decides which request it shows). */
async function ownDelivery(webhooks: WebhookService, caller: PortalCaller, id: string, detail = false): Promise<{ delivery: Delivery; owner: Webhook }> {
  const delivery = await (detail ? webhooks.getDeliveryDetail(id) : webhooks.getDelivery(id)).catch(absentAsNull);
  const owner = delivery?.webhookId ? await webhooks.get(delivery.webhookId).catch(absentAsNull) : null;
  if (!delivery || !owner || owner.applicationId !== caller.application.id) throw deliveryNotFound(id);
  return { delivery, owner };
}

/** An endpoint's requests are reshaped by the operator's code: its rendered request is not what was sent. */
const reshaped = (w: Webhook): boolean => w.transformation != null;

function sessionRoutes(app: TypedApp, { portalTokens }: PortalRouteDeps): void {
  const session = { description: 'The session', ...ref('PortalSession') };
  app.get(
    '/api/portal/session',
    { ...PORTAL, schema: { tags, security, operationId: 'getPortalSession', summary: 'The application the token is bound to, and when the token expires', response: { 200: session, ...errors() } } },
    async function getPortalSession(request) {
      const { application, session: s } = callerOf(request);
      return portalSessionView(application, s);
    },
  );
  app.post(
    '/api/portal/session/refresh',
    {
      ...PORTAL,
      schema: {
        tags,
        security,
        operationId: 'refreshPortalSession',
        summary: "Moves the token's expiry to a full TTL from now, never past its maximum (the portal calls it while open)",
        response: { 200: session, ...errors() },
      },
    },
    async function refreshPortalSession(request) {
      const caller = callerOf(request);
      return portalSessionView(caller.application, await portalTokens.refresh(caller));
    },
  );
  app.delete(
    '/api/portal/session',
    {
      ...PORTAL,
      schema: {
        tags,
        security,
        operationId: 'endPortalSession',
        summary: 'Revokes the token itself (signing out)',
        response: { 200: { description: 'Revoked', type: 'object', required: ['revoked'], properties: { revoked: { type: 'boolean' } } }, ...errors() },
      },
    },
    async function endPortalSession(request) {
      await portalTokens.revokeOwn(callerOf(request));
      return { revoked: true };
    },
  );
}

function endpointRoutes(app: TypedApp, { webhooks }: PortalRouteDeps): void {
  const endpoint = (description: string) => ({ description, ...ref('PortalEndpoint') });
  app.get(
    '/api/portal/endpoints',
    {
      ...PORTAL,
      schema: {
        tags,
        security,
        operationId: 'listPortalEndpoints',
        summary: "The application's endpoints (webhooks), oldest first, each with its health",
        querystring: pageQuerySchema,
        response: { 200: { description: 'A page of endpoints', headers: LINK_HEADER, ...listOf('PortalEndpoint') }, ...errors() },
      },
    },
    async function listPortalEndpoints(request, reply) {
      const page = readPage(request.query);
      const items = pageOf(await webhooks.list(page, callerOf(request).application.id), page, request, reply, (w) => w.id);
      const health = await webhooks.health(items);
      return items.map((w) => portalEndpointView(w, { health: health.get(w.id) }));
    },
  );
  app.post(
    '/api/portal/endpoints',
    {
      ...PORTAL,
      schema: {
        tags,
        security,
        operationId: 'createPortalEndpoint',
        summary: 'Add an endpoint to the application (its events are delivered as `{type, timestamp, data}`)',
        body: createEndpointBody,
        response: { 201: endpoint('The endpoint (with `secret`: shown once)'), ...errors(404, 409, 413, 415, 422) },
      },
    },
    async function createPortalEndpoint(request, reply) {
      const b = request.body;
      const { webhook, secret } = await webhooks.create({
        ...b,
        method: b.method ?? 'POST',
        payload_template: { ...CONSUMER_TEMPLATE },
        // Every consumer endpoint signs: a secret is generated unless one is given.
        secret: 'generate',
        application_id: callerOf(request).application.id,
      });
      return reply.code(201).send(portalEndpointView(webhook, { secret }));
    },
  );
  app.get(
    '/api/portal/endpoints/:id',
    { ...PORTAL, schema: { tags, security, operationId: 'getPortalEndpoint', summary: 'One endpoint of the application', params: idParams, response: { 200: endpoint('The endpoint'), ...ERRORS_BY_ID } } },
    async function getPortalEndpoint(request) {
      const webhook = await ownEndpoint(webhooks, callerOf(request), request.params.id);
      const health = await webhooks.health([webhook]);
      return portalEndpointView(webhook, { health: health.get(webhook.id) });
    },
  );
  app.patch(
    '/api/portal/endpoints/:id',
    {
      ...PORTAL,
      schema: {
        tags,
        security,
        operationId: 'updatePortalEndpoint',
        summary: 'Change an endpoint (partial)',
        params: idParams,
        body: updateEndpointBody,
        response: { 200: endpoint('The endpoint as updated'), ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function updatePortalEndpoint(request) {
      await ownEndpoint(webhooks, callerOf(request), request.params.id);
      return portalEndpointView((await webhooks.update(request.params.id, request.body ?? {})).webhook);
    },
  );
  app.delete(
    '/api/portal/endpoints/:id',
    {
      ...PORTAL,
      schema: {
        tags,
        security,
        operationId: 'deletePortalEndpoint',
        summary: 'Delete an endpoint with its deliveries',
        params: idParams,
        response: { 200: { description: 'Deleted', ...ref('Deleted') }, ...ERRORS_BY_ID },
      },
    },
    async function deletePortalEndpoint(request) {
      await ownEndpoint(webhooks, callerOf(request), request.params.id);
      await webhooks.delete(request.params.id);
      return { deleted: true, id: request.params.id };
    },
  );
  for (const [verb, enabled] of [['enable', true], ['disable', false]] as const) {
    app.post(
      `/api/portal/endpoints/:id/${verb}`,
      {
        ...PORTAL,
        schema: {
          tags,
          security,
          operationId: `${verb}PortalEndpoint`,
          summary: enabled ? 'Enable an endpoint: what it held is sent' : 'Disable an endpoint: its deliveries are held',
          params: idParams,
          response: { 200: endpoint('The endpoint'), ...ERRORS_BY_ID },
        },
      },
      async function setPortalEndpointEnabled(request) {
        await ownEndpoint(webhooks, callerOf(request), request.params.id);
        return portalEndpointView((await webhooks.update(request.params.id, { enabled })).webhook);
      },
    );
  }
}

function operationRoutes(app: TypedApp, { webhooks, catalogue }: PortalRouteDeps): void {
  app.post(
    '/api/portal/endpoints/:id/test',
    {
      ...PORTAL,
      schema: {
        tags,
        security,
        operationId: 'testPortalEndpoint',
        summary: "Send once now with a catalogued event type's example; answers the finished delivery",
        params: idParams,
        body: testEndpointBody,
        response: { 200: { description: 'The finished delivery', ...ref('PortalDelivery') }, ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function testPortalEndpoint(request) {
      const webhook = await ownEndpoint(webhooks, callerOf(request), request.params.id);
      const type = request.body?.event_type;
      const sample = !catalogue ? null : type === undefined ? await catalogue.exampleFor(webhook.events) : await catalogue.exampleFor([type]);
      return portalDeliveryView(await webhooks.test(webhook.id, sample), reshaped(webhook));
    },
  );
  app.post(
    '/api/portal/endpoints/:id/rotate-secret',
    {
      ...PORTAL,
      schema: {
        tags,
        security,
        operationId: 'rotatePortalEndpointSecret',
        summary: 'Rotate the signing secret (the replaced one signs beside it for `overlap_s`)',
        params: idParams,
        body: rotateSecretBody,
        response: { 200: { description: 'The endpoint (with `secret` when generated)', ...ref('PortalEndpoint') }, ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function rotatePortalEndpointSecret(request) {
      await ownEndpoint(webhooks, callerOf(request), request.params.id);
      const { webhook, secret } = await webhooks.rotateSecret(request.params.id, request.body ?? {});
      return portalEndpointView(webhook, { secret });
    },
  );
  app.post(
    '/api/portal/endpoints/:id/recover',
    {
      ...PORTAL,
      schema: {
        tags,
        security,
        operationId: 'recoverPortalEndpoint',
        summary: "Resend the endpoint's failed deliveries since a time, in the background",
        params: idParams,
        body: recoverBody,
        response: { 202: { description: 'The recovery job', ...ref('Recovery') }, ...ERRORS_BY_ID_WITH_BODY },
      },
    },
    async function recoverPortalEndpoint(request, reply) {
      await ownEndpoint(webhooks, callerOf(request), request.params.id);
      const job = await webhooks.recover(request.params.id, request.body, false);
      if (typeof job === 'number') throw new Error('a recovery without dry run answered a count');
      return reply.code(202).send(recoveryView(job));
    },
  );
  app.get(
    '/api/portal/endpoints/:id/deliveries',
    {
      ...PORTAL,
      schema: {
        tags,
        security,
        operationId: 'listPortalDeliveries',
        summary: "The endpoint's deliveries, newest first",
        params: idParams,
        querystring: deliveryListQuery,
        response: { 200: { description: 'A page of deliveries', headers: LINK_HEADER, ...listOf('PortalDelivery') }, ...ERRORS_BY_ID },
      },
    },
    async function listPortalDeliveries(request, reply) {
      const webhook = await ownEndpoint(webhooks, callerOf(request), request.params.id);
      const page = readPage(request.query);
      const items = await webhooks.listDeliveries(request.params.id, page, request.query.status ?? null);
      return pageOf(items, page, request, reply, (d) => d.id).map((d) => portalDeliveryView(d, reshaped(webhook)));
    },
  );
  app.get(
    '/api/portal/deliveries/:id',
    {
      ...PORTAL,
      schema: {
        tags,
        security,
        operationId: 'getPortalDelivery',
        summary: 'A delivery of one of the endpoints, with its attempts',
        params: idParams,
        response: { 200: { description: 'The delivery', ...ref('PortalDeliveryDetail') }, ...ERRORS_BY_ID },
      },
    },
    async function getPortalDelivery(request) {
      const { delivery, owner } = await ownDelivery(webhooks, callerOf(request), request.params.id, true);
      return portalDeliveryDetailView(delivery, reshaped(owner));
    },
  );
  app.post(
    '/api/portal/deliveries/:id/retry',
    {
      ...PORTAL,
      schema: {
        tags,
        security,
        operationId: 'retryPortalDelivery',
        summary: 'One more attempt of a finished delivery',
        params: idParams,
        response: { 200: { description: 'The delivery after the attempt', ...ref('PortalDelivery') }, ...errors(404, 409, 414) },
      },
    },
    async function retryPortalDelivery(request) {
      const { owner } = await ownDelivery(webhooks, callerOf(request), request.params.id);
      return portalDeliveryView(await webhooks.retry(request.params.id), reshaped(owner));
    },
  );
  app.get(
    '/api/portal/event-types',
    {
      ...PORTAL,
      schema: {
        tags,
        security,
        operationId: 'listPortalEventTypes',
        summary: 'The event types an endpoint can subscribe to, with their schemas and examples',
        querystring: pageQuerySchema,
        response: { 200: { description: 'A page of event types', headers: LINK_HEADER, ...listOf('EventType') }, ...errors() },
      },
    },
    async function listPortalEventTypes(request, reply) {
      const page = readPage(request.query);
      const types = catalogue ? await catalogue.list(page) : [];
      return pageOf(types, page, request, reply, (t) => t.name).map(eventTypeView);
    },
  );
}

/**
 * The hook that authenticates consumer routes with a portal token, and refuses a
 * portal token on every other route that is not public (so it opens nothing of
 * the management API, on a server without an admin key too).
 */
function registerPortalAuth(app: FastifyInstance, portalTokens: PortalTokens): void {
  app.addHook('onRequest', async function checkPortalToken(request) {
    if (request.is404) return;
    const config = request.routeOptions.config;
    if (config.portal === true) {
      request.portalCaller = await portalTokens.authenticate(bearerOf(request));
      return;
    }
    if (config.public !== true && bearerOf(request)?.startsWith(PORTAL_TOKEN_PREFIX)) {
      throw new PortalTokenInvalidError('A portal token opens only the consumer API (/api/portal/...), never the management API');
    }
  });
}

export function registerPortalRoutes(app: FastifyInstance, deps: PortalRouteDeps): void {
  registerPortalAuth(app, deps.portalTokens);
  const api = typed(app);
  sessionRoutes(api, deps);
  endpointRoutes(api, deps);
  operationRoutes(api, deps);
}
