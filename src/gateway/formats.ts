/**
 * The one place that picks, by a function's `event_format`, how its event is
 * built (for a request, or completed for a manual invoke) and how its result
 * is read. `switchyard` is the default and the first branch; a value this
 * code does not know cannot be stored (the API and the store check it).
 */
import type { EventFormat } from '../types.js';
import { buildAwsV1Event, defaultAwsV1Event } from './aws-event-v1.js';
import { buildAwsV2Event, defaultAwsV2Event } from './aws-event-v2.js';
import { mapAwsV1Result, mapAwsV2Result } from './aws-result.js';
import { buildEvent, defaultEvent, type RequestFacts } from './event.js';
import { mapResult, type GatewayResponse } from './result.js';
import type { BinaryMediaTypes } from './policy/media-types.js';
import type { PolicyGrant } from './policy/guards.js';
import { authorizerContext } from './policy/authorizer-event.js';
import type { RouteMatch } from './route-table.js';

/**
 * `binary`: the API's binaryMediaTypes, which only the aws-v1 format reads (null: unset).
 * `grant`: what the route's policy admitted the request with (null: the route has none).
 */
export function buildEventFor(
  format: EventFormat,
  req: RequestFacts,
  match: RouteMatch,
  binary: BinaryMediaTypes | null = null,
  grant: PolicyGrant | null = null,
): object {
  const authorizer = grant?.authorizer === undefined ? null : authorizerContext(format, grant.authorizer);
  if (format === 'switchyard') return buildEvent(req, match, authorizer, grant?.parsedBody);
  if (format === 'aws-v2') return buildAwsV2Event(req, match, authorizer);
  const event = buildAwsV1Event(req, match, binary, authorizer);
  // A REST API passes the key a request was admitted with (an HTTP API has no keys).
  if (grant?.apiKeyId !== undefined) {
    event.requestContext.identity.apiKeyId = grant.apiKeyId;
    event.requestContext.identity.apiKey = grant.apiKey ?? null;
  }
  return event;
}

export function defaultEventFor(
  format: EventFormat,
  partial: unknown,
  ids: { requestId: string; functionName: string },
): object {
  if (format === 'aws-v1') return defaultAwsV1Event(partial, ids);
  if (format === 'aws-v2') return defaultAwsV2Event(partial, ids);
  return defaultEvent(partial, ids);
}

/** `requestId` goes into the body of an `invalid_result` answer, as into every invocation failure's. */
export function mapResultFor(
  format: EventFormat,
  result: unknown,
  requestId?: string,
  binary: BinaryMediaTypes | null = null,
  rawHeaders: string[] = [],
): GatewayResponse {
  if (format === 'switchyard') return mapResult(result, requestId);
  if (format === 'aws-v2') return mapAwsV2Result(result, requestId);
  return mapAwsV1Result(result, requestId, binary === null ? null : { types: binary, rawHeaders });
}
