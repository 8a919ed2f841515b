/**
 * The consumer API's own answers (`/api/portal/...`): an endpoint and a
 * delivery as a customer of the operator sees them. Narrower than the
 * operator's Webhook and Delivery on purpose: what the customer set or needs to
 * run their receiver (URL, events, filter, rate limit, headers, signing
 * secrets, health), never what runs or names the operator's things (payload
 * template, transformation, mock endpoint, project, cron, retry, timeout,
 * breaker and auto-disable settings, probe internals). The properties are
 * picked from the operator's schemas, so descriptions and types stay one.
 */
import { Type, headerMap, named, nullableString, type Static } from './kit.js';
import { AttemptDetailSchema, AttemptSchema, DeliverySchema, WebhookSchema } from './webhooks.js';

const w = WebhookSchema.properties;
const h = w.health.properties;

export const PortalEndpointSchema = named(
  'PortalEndpoint',
  Type.Object(
    {
      id: w.id,
      name: w.name,
      target_url: w.target_url,
      method: w.method,
      headers: w.headers,
      events: w.events,
      enabled: w.enabled,
      disabled_reason: w.disabled_reason,
      filter: w.filter,
      rate_limit: w.rate_limit,
      has_secret: w.has_secret,
      public_key: w.public_key,
      secrets: w.secrets,
      created_at: w.created_at,
      updated_at: w.updated_at,
      secret: Type.Optional(Type.String({ description: 'Only in the answer that generated it (create, rotate)' })),
      health: Type.Optional(
        Type.Object(
          {
            last_outcome: h.last_outcome,
            failures_in_a_row: h.failures_in_a_row,
            pending: h.pending,
            retrying: h.retrying,
            window: h.window,
            state: h.state,
            held: h.held,
            failing_since: h.failing_since,
            last_success_at: h.last_success_at,
            last_failure_at: h.last_failure_at,
          },
          { description: "In the list and the get: outcomes over the endpoint's `window` (20) newest deliveries, and whether sending is paused for failing (`state`)" },
        ),
      ),
    },
    { description: 'An endpoint (webhook) of the application, as its consumer sees it' },
  ),
);

const { outcome: _outcome, ...attemptProperties } = AttemptSchema.properties;
const d = DeliverySchema.properties;
const deliveryProperties = {
  id: d.id,
  webhook_id: Type.String({ description: 'The endpoint it is for' }),
  trigger: d.trigger,
  event: d.event,
  status: d.status,
  error: d.error,
  next_attempt_at: d.next_attempt_at,
  attempts: Type.Array(Type.Object(attemptProperties)),
  request: Type.Union([Type.Null(), Type.Object({ method: Type.String(), url: Type.String(), headers: headerMap(), body: nullableString() })], {
    description:
      'The request as sent (sensitive header values masked); null until sent. For an endpoint whose requests the operator reshapes, ' +
      'only in `GET /api/portal/deliveries/{id}` (the latest attempt\'s)',
  }),
  response: d.response,
  created_at: d.created_at,
  completed_at: d.completed_at,
};

export const PortalDeliverySchema = named('PortalDelivery', Type.Object(deliveryProperties, { description: "A delivery to one of the application's endpoints" }));

const { outcome: _detailOutcome, ...attemptDetailProperties } = AttemptDetailSchema.properties;
export const PortalDeliveryDetailSchema = named(
  'PortalDeliveryDetail',
  Type.Object({ ...deliveryProperties, attempts: Type.Array(Type.Object(attemptDetailProperties)) }, { description: 'A delivery with each attempt\'s answer and request' }),
);

export type PortalEndpointView = Static<typeof PortalEndpointSchema>;
export type PortalDeliveryView = Static<typeof PortalDeliverySchema>;
export type PortalDeliveryDetailView = Static<typeof PortalDeliveryDetailSchema>;
