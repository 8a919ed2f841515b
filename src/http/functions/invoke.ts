/**
 * `POST /api/functions/{name}/invoke`: a manual invoke that waits for the
 * result, or with `x-invocation-type: Event` a background one answered 202.
 */
import { InvalidRequestError, LoopStoppedError } from '../../errors.js';
import { DEPTH_HEADER, DEPTH_HEADER_SCHEMA, MAX_HOPS, requestDepth } from '../../hops.js';
import { errors, ref } from '../schemas.js';
import type { TypedApp } from '../typed.js';
import { invocationView } from '../views/functions.js';
import type { FunctionRouteDeps } from './deps.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_HEADER_SCHEMA, REPLAYED_RESPONSE_HEADERS, idempotencyKeyOf, requestHash } from '../../events/idempotency.js';
import { sendOnce } from '../idempotent.js';
import { nameParams } from '../../schema/functions.js';

/** `x-invocation-type` (or Lambda's `X-Amz-Invocation-Type`): `Event` runs in the background; `RequestResponse` (default) waits. */
function invocationType(headers: Record<string, string | string[] | undefined>): 'Event' | 'RequestResponse' {
  const given = headers['x-invocation-type'] ?? headers['x-amz-invocation-type'];
  const value = Array.isArray(given) ? given[0] : given;
  if (value === undefined || value === 'RequestResponse') return 'RequestResponse';
  if (value === 'Event') return 'Event';
  throw new InvalidRequestError(`x-invocation-type must be Event or RequestResponse, not '${value}'`, { field: 'x-invocation-type' });
}


export function invokeFunctionRoute(app: TypedApp, { functions, background, idempotency, spans }: FunctionRouteDeps): void {
  app.post(
    '/api/functions/:name/invoke',
    {
      schema: {
        tags: ['functions'],
        operationId: 'invokeFunction',
        summary: 'Invoke a function with an event (missing fields defaulted); in the background with `x-invocation-type: Event`',
        params: nameParams,
        headers: {
          type: 'object',
          properties: {
            'x-invocation-type': {
              type: 'string',
              enum: ['Event', 'RequestResponse'],
              description: "`Event`: store it, answer 202 at once and run it in the background with retries (Lambda's asynchronous invocation; `X-Amz-Invocation-Type` is read too). Default `RequestResponse`: wait for the result.",
            },
            [DEPTH_HEADER]: DEPTH_HEADER_SCHEMA,
            [IDEMPOTENCY_HEADER]: {
              ...IDEMPOTENCY_HEADER_SCHEMA,
              description: `With \`x-invocation-type: Event\` only (a synchronous invoke ignores it). ${IDEMPOTENCY_HEADER_SCHEMA.description}`,
            },
          },
        },
        body: {
          type: ['object', 'null'],
          additionalProperties: true,
          description:
            "An invocation event in the function's event_format; missing fields are defaulted in that format " +
            '(see docs/functions.md, "Event formats")',
        },
        response: {
          200: { description: 'What the gateway would answer, with the logs', ...ref('Invocation') },
          202: {
            description: 'Stored; it runs in the background (`x-invocation-type: Event`)',
            headers: REPLAYED_RESPONSE_HEADERS,
            ...ref('InvocationAccepted'),
          },
          // As any operation by id with a body, and 508 for a chain of runs past its bound.
          ...errors(404, 409, 413, 414, 415, 508),
        },
      },
    },
    async function invokeFunction(request, reply) {
      const depth = requestDepth(request.headers);
      if (depth > MAX_HOPS) throw new LoopStoppedError(depth, MAX_HOPS);
      if (invocationType(request.headers) === 'Event') {
        const key = idempotencyKeyOf(request.headers);
        const queue = async () => {
          const queued = await background.invokeAsync(request.params.name, request.body ?? {}, depth, spans?.carrierOf(request));
          return { status: 202, body: { invocation_id: queued.id, status: queued.status } };
        };
        const scopes = key === null ? [] : [{ scope: `invoke:${request.params.name}`, key, field: 'Idempotency-Key' }];
        return sendOnce(reply, idempotency, scopes, scopes.length > 0 ? requestHash(request.body ?? {}) : '', queue);
      }
      return invocationView(await functions.invoke(request.params.name, request.body ?? {}, depth, request.id, spans?.carrierOf(request)));
    },
  );
}
