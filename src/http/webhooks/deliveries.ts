/**
 * A webhook's deliveries: list them, read one with each attempt's answer,
 * and retry a finished one.
 */
import { LINK_HEADER, pageOf, pageQuerySchema, readPage } from '../common.js';
import { ERRORS_BY_ID, errors, listOf, ref } from '../schemas.js';
import type { TypedApp } from '../typed.js';
import { deliveryDetailView, deliveryView } from '../views/webhooks.js';
import type { WebhookRouteDeps } from './deps.js';
import { idParams } from '../../schema/webhooks.js';
import { DELIVERY_STATUSES } from '../../deliveries/types.js';
import { Type, stringEnum } from '../../schema/kit.js';

const deliveryListQuery = Type.Object(
  {
    ...pageQuerySchema.properties,
    status: Type.Optional(stringEnum(DELIVERY_STATUSES, { description: 'Only deliveries in this status (`held`: waiting to be sent)' })),
  },
  { additionalProperties: false },
);

export function listDeliveriesRoute(app: TypedApp, { webhooks }: WebhookRouteDeps): void {
  app.get(
    '/api/webhooks/:id/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'listDeliveries',
        summary: 'Deliveries of a webhook, newest first (`?status=held`: the ones waiting to be sent)',
        params: idParams,
        querystring: deliveryListQuery,
        response: { 200: { description: 'A page of deliveries', headers: LINK_HEADER, ...listOf('Delivery') }, ...ERRORS_BY_ID },
      },
    },
    async function listDeliveries(request, reply) {
      const page = readPage(request.query);
      const items = await webhooks.listDeliveries(request.params.id, page, request.query.status ?? null);
      return pageOf(items, page, request, reply, (d) => d.id).map(deliveryView);
    },
  );
}

export function getDeliveryRoute(app: TypedApp, { webhooks }: WebhookRouteDeps): void {
  app.get(
    '/api/deliveries/:id',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'getDelivery',
        summary: "Get a delivery with its attempts, each with the target's answer to it",
        params: idParams,
        response: { 200: { description: 'The delivery', ...ref('DeliveryDetail') }, ...ERRORS_BY_ID },
      },
    },
    async function getDelivery(request) {
      return deliveryDetailView(await webhooks.getDeliveryDetail(request.params.id));
    },
  );
}

export function retryDeliveryRoute(app: TypedApp, { webhooks }: WebhookRouteDeps): void {
  app.post(
    '/api/deliveries/:id/retry',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'retryDelivery',
        summary: 'One more attempt of a finished delivery (same webhook-id, same bytes)',
        params: idParams,
        response: { 200: { description: 'The delivery after the attempt', ...ref('Delivery') }, ...errors(404, 409, 414) },
      },
    },
    async function retryDelivery(request) {
      return deliveryView(await webhooks.retry(request.params.id));
    },
  );
}
