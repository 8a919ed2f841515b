/**
 * `POST /api/events`: publish an event to the webhooks and functions
 * subscribed to it.
 */
import { LoopStoppedError } from '../../errors.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_HEADER_SCHEMA, REPLAYED_RESPONSE_HEADERS, idempotencyKeyOf, requestHash, type IdempotencyScope } from '../../events/idempotency.js';
import { DEPTH_HEADER, DEPTH_HEADER_SCHEMA, MAX_HOPS, requestDepth } from '../../hops.js';
import { newId } from '../../ids.js';
import { sendOnce } from '../idempotent.js';
import { EventBus } from '../../webhooks/events.js';
import { errors, ref } from '../schemas.js';
import type { TypedApp } from '../typed.js';
import type { WebhookRouteDeps } from './deps.js';
import { filterTestBody, publishEventBody } from '../../schema/webhooks.js';
import { compileFilter } from '../../events/filters.js';

export function publishEventRoute(app: TypedApp, { events, idempotency, spans }: WebhookRouteDeps): void {
  app.post(
    '/api/events',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'publishEvent',
        summary: 'Publish an event to every enabled webhook and every function subscribed to it',
        body: publishEventBody,
        headers: { type: 'object', properties: { [DEPTH_HEADER]: DEPTH_HEADER_SCHEMA, [IDEMPOTENCY_HEADER]: IDEMPOTENCY_HEADER_SCHEMA } },
        response: {
          202: {
            description: 'Accepted: one delivery per subscribed webhook whose filter matched, one invocation per subscribed function',
            headers: REPLAYED_RESPONSE_HEADERS,
            ...ref('PublishedEvent'),
          },
          ...errors(404, 409, 413, 415, 508),
        },
      },
    },
    async function publishEvent(request, reply) {
      EventBus.checkUserEvent(request.body.event);
      const key = idempotencyKeyOf(request.headers);
      // An event published by a request of a chain of runs is one hop deeper than the request.
      const depth = requestDepth(request.headers) + (request.headers[DEPTH_HEADER] === undefined ? 0 : 1);
      if (depth > MAX_HOPS) throw new LoopStoppedError(depth, MAX_HOPS);
      const { id: ownId, event, data, version, application } = request.body;
      const headers = lowercased(request.body.headers);
      const scopes: IdempotencyScope[] = [];
      if (key !== null) scopes.push({ scope: 'events', key, field: 'Idempotency-Key' });
      // An event's own id is a key of its own: repeats of it are replays whatever key they carry.
      if (ownId !== undefined) scopes.push({ scope: 'event-id', key: ownId, field: 'id' });
      // Hashed only when a key or an id asks for it: a plain publish does no extra work.
      return sendOnce(reply, idempotency, scopes, scopes.length > 0 ? requestHash(request.body) : '', async () => {
        const published = await events.publish(event, data ?? null, depth, {
          source: 'publish',
          version,
          headers,
          trace: spans?.carrierOf(request),
          ...(application === undefined ? {} : { application }),
        });
        const body = {
          id: ownId ?? newId('evt'),
          event,
          deliveries: published.deliveries,
          webhooks: { matched: published.webhooks.matched, filtered_out: published.webhooks.filteredOut },
          functions: published.functions.map((f) => ({ name: f.name, invocation_id: f.invocationId })),
          ...(published.applicationId ? { application_id: published.applicationId } : {}),
          ...(published.validation ? { validation: published.validation } : {}),
        };
        return { status: 202, body };
      });
    },
  );
}

/** Header names are case-insensitive: filters see them lowercased (the last of two spellings wins). */
function lowercased(headers: Record<string, string> | undefined): Record<string, string> {
  if (headers === undefined) return {};
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

export function filterTestRoute(app: TypedApp, _deps: WebhookRouteDeps): void {
  app.post(
    '/api/events/filter-test',
    {
      schema: {
        tags: ['webhooks'],
        operationId: 'testWebhookFilter',
        summary: 'Whether an event would match a webhook filter, and which part failed; nothing is published',
        body: filterTestBody,
        response: { 200: { description: 'The verdict', ...ref('FilterTest') }, ...errors(413, 415) },
      },
    },
    async function testWebhookFilter(request) {
      const compiled = compileFilter(request.body.filter);
      const { event = 'test.event', data = null, headers } = request.body.event;
      const failed = compiled.check({ event, data, headers: lowercased(headers) });
      return { matched: failed === null, failed };
    },
  );
}
