/**
 * The named shapes of the management API's answers, gathered: each resource's
 * component schemas live in schema/ (functions.ts, webhooks.ts, apis.ts,
 * common.ts) beside the request schemas of its routes, written with TypeBox,
 * the one source of the API's types. Each is registered with `app.addSchema`
 * under its `$id`, so routes reference it (`{ $ref: 'Function#' }`), Fastify
 * serialises answers with it, @fastify/swagger publishes it as
 * `components.schemas.<Name>`, and the views (src/http/views/) are typed with
 * `Static<typeof ...>` of it: a field added to a schema and not to its view
 * (or the other way round) fails to compile, and what the document says is
 * what goes on the wire. The integration suite checks every answer against
 * these (test/helpers/service.ts).
 */
import type { FastifyInstance } from 'fastify';
import { ApiSchema, AuthorizerSchema, CorsSchema, RouteSchema, ThrottleSchema } from '../schema/apis.js';
import { ApiKeySchema, ApiKeyUsageSchema, QuotaSchema, UsagePlanSchema } from '../schema/api-keys.js';
import { DeletedSchema, DryRunSchema, ErrorSchema, HealthSchema, ReadinessSchema } from '../schema/common.js';
import {
  DestinationSchema,
  FunctionInvocationSchema,
  FunctionSchema,
  FunctionVersionSchema,
  InvocationAcceptedSchema,
  InvocationEventSchema,
  InvocationSchema,
  LogEntrySchema,
  LogStreamEntrySchema,
} from '../schema/functions.js';
import {
  AttemptDetailSchema,
  AttemptSchema,
  AutoDisableSchema,
  BreakerSettingsSchema,
  DeliveryDetailSchema,
  DeliverySchema,
  FilterTestSchema,
  PublishedEventSchema,
  RateLimitSchema,
  RecoverySchema,
  SigningSecretSchema,
  TransformationTestResultSchema,
  WebhookSchema,
} from '../schema/webhooks.js';
import { ApplicationLimitsSchema, ApplicationSchema, PortalAccessSchema, PortalSessionSchema, PortalSettingsSchema } from '../schema/applications.js';
import { PortalDeliveryDetailSchema, PortalDeliverySchema, PortalEndpointSchema } from '../schema/portal.js';
import { EventTypeImportSchema, EventTypeSchema, EventTypeVersionSchema, EventViolationSchema } from '../schema/event-types.js';
import { AttemptEventSchema, StatsSchema } from './stats-schemas.js';

/** In the order of the document's `components.schemas` (and of the generated clients' types). */
export const COMPONENT_SCHEMAS = [
  ErrorSchema,
  DeletedSchema,
  FunctionSchema,
  FunctionVersionSchema,
  LogEntrySchema,
  LogStreamEntrySchema,
  InvocationEventSchema,
  InvocationSchema,
  ThrottleSchema,
  RouteSchema,
  CorsSchema,
  AuthorizerSchema,
  ApiSchema,
  QuotaSchema,
  UsagePlanSchema,
  ApiKeySchema,
  ApiKeyUsageSchema,
  BreakerSettingsSchema,
  RateLimitSchema,
  AutoDisableSchema,
  SigningSecretSchema,
  WebhookSchema,
  AttemptSchema,
  AttemptDetailSchema,
  DeliverySchema,
  DeliveryDetailSchema,
  RecoverySchema,
  TransformationTestResultSchema,
  DestinationSchema,
  InvocationAcceptedSchema,
  FunctionInvocationSchema,
  PublishedEventSchema,
  EventTypeVersionSchema,
  EventTypeSchema,
  EventViolationSchema,
  EventTypeImportSchema,
  ApplicationLimitsSchema,
  PortalSettingsSchema,
  ApplicationSchema,
  PortalAccessSchema,
  PortalSessionSchema,
  PortalEndpointSchema,
  PortalDeliverySchema,
  PortalDeliveryDetailSchema,
  FilterTestSchema,
  DryRunSchema,
  HealthSchema,
  ReadinessSchema,
  StatsSchema,
  AttemptEventSchema,
] as const;

export type ComponentName = (typeof COMPONENT_SCHEMAS)[number]['$id'];

export function registerSchemas(app: FastifyInstance): void {
  for (const schema of COMPONENT_SCHEMAS) app.addSchema(schema);
}

/** `{ $ref: 'Name#' }`: a reference Fastify resolves and @fastify/swagger turns into `#/components/schemas/Name`. */
export const ref = (name: ComponentName) => ({ $ref: `${name}#` }) as const;
export const listOf = (name: ComponentName) => ({ type: 'array', items: ref(name) }) as const;

/** The 200 of a create sent with `?dry_run=true`. */
export const DRY_RUN_ANSWER = { description: 'With `?dry_run=true`: what would be created; nothing is written', ...ref('DryRun') } as const;

/** A 200 that is the resource, or with `?dry_run=true` what would change. */
export const orDryRun = (name: ComponentName, description: string) =>
  ({ description: `${description}; with \`?dry_run=true\`, a DryRun`, anyOf: [ref(name), ref('DryRun')] }) as const;

const errorRef = ref('Error');
type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 414 | 415 | 421 | 422 | 429 | 500 | 503 | 508;
const ERROR_TEXT: Record<ErrorStatus, string> = {
  400: 'Invalid request (the message and `details.field` name the field)',
  401: 'Missing or wrong admin key',
  403: 'Without an admin key: a request from a page of another origin (cross_origin_refused)',
  404: 'Not found',
  409: 'Conflict',
  413: 'Request body larger than the limit',
  414: 'A path segment is too long',
  415: 'The body is not JSON',
  421: 'Without an admin key: a Host that is not a loopback name (host_not_allowed)',
  422: "One of the application's limits is reached (application_limit_reached)",
  429: 'Too many wrong admin keys from this address (too_many_failed_attempts; Retry-After says when to try again)',
  500: 'Internal error (see the server log for the request id)',
  503: 'The database does not answer, or the server is shutting down',
  508: 'The request is part of a chain of runs past 16 hops (`Switchyard-Depth`): a loop',
};

/**
 * Error answers of an operation. Every operation can answer 400, 401, 403,
 * 421, 429, 500 and 503; `extra` adds the ones it has besides (404 and 414
 * with a path parameter, 413 and 415 with a body, 409 for conflicts).
 */
export function errors(...extra: ErrorStatus[]): Record<number, { description: string; $ref: string }> {
  const out: Record<number, { description: string; $ref: string }> = {};
  for (const status of [400, 401, 403, ...extra.filter((s) => s !== 422), 421, ...extra.filter((s) => s === 422), 429, 500, 503] as ErrorStatus[]) {
    out[status] = { description: ERROR_TEXT[status], ...errorRef };
  }
  return out;
}

/** With a path parameter. */
export const ERRORS_BY_ID = errors(404, 414);
/** With a JSON body. */
export const ERRORS_WITH_BODY = errors(409, 413, 415);
/** With a path parameter and a JSON body. */
export const ERRORS_BY_ID_WITH_BODY = errors(404, 409, 413, 414, 415);
