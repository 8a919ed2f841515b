/**
 * What the webhook routes accept: the request schemas, written with TypeBox
 * so the input types handed to the webhook service are derived from what
 * Fastify validates (`Static`), never written beside them.
 */
import { WEBHOOK_METHODS } from '../../webhooks/types.js';
import { Type, anyObject, headerMap, stringEnum, type Static, type TSchema } from '../schema/kit.js';

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  target_url: Type.String({ minLength: 1, maxLength: 2048, description: 'Absolute http(s) URL' }),
  method: stringEnum(WEBHOOK_METHODS),
  headers: headerMap(
    {
      maxProperties: 100,
      description:
        'Headers sent to the target (may override user-agent and content-type). Sensitive values (authorization, ' +
        'cookie, names with key/token/secret/auth...) are write-only: answers show them masked ("***"), and a masked ' +
        'value sent back as shown keeps the stored one',
    },
    { maxLength: 8192 },
  ),
  payload_template: anyObject({ description: 'A JSON object (any values, not an array) with optional {{placeholders}}' }),
  cron: Type.String({ maxLength: 200, description: 'Five-field cron expression (see docs/webhooks.md)' }),
  timezone: Type.String({ maxLength: 100, description: 'IANA time zone, default UTC' }),
  mock_endpoint: Type.Object(
    { api_id: Type.String({ maxLength: 100 }), path: Type.String({ maxLength: 2048 }) },
    { additionalProperties: false },
  ),
  events: Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100, uniqueItems: true }),
  enabled: Type.Boolean(),
  secret: Type.String({ maxLength: 200, description: '"generate" or whsec_<base64>; write-only' }),
  retry: Type.Object(
    {
      max_attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 })),
      schedule_s: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 86400 }), { minItems: 1, maxItems: 30 })),
    },
    { additionalProperties: false },
  ),
  timeout_ms: Type.Integer({ minimum: 1000, maximum: 60000 }),
};

/** Absent, or null: cleared or back to the default. */
const orNull = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

const optionalFields = {
  headers: orNull(fields.headers),
  cron: orNull(fields.cron),
  timezone: orNull(fields.timezone),
  mock_endpoint: orNull(fields.mock_endpoint),
  events: orNull(fields.events),
  enabled: orNull(fields.enabled),
  secret: orNull(fields.secret),
  retry: orNull(fields.retry),
  timeout_ms: orNull(fields.timeout_ms),
};

export const createWebhookBody = Type.Object(
  { name: fields.name, target_url: fields.target_url, method: fields.method, payload_template: fields.payload_template, ...optionalFields },
  { additionalProperties: false },
);

export const updateWebhookBody = Type.Object(
  {
    name: orNull(fields.name),
    target_url: orNull(fields.target_url),
    method: orNull(fields.method),
    payload_template: orNull(fields.payload_template),
    ...optionalFields,
  },
  // `required: []` as the document has always said it (TypeBox leaves an empty list out).
  { additionalProperties: false, required: [] },
);

export const idParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

export const publishEventBody = Type.Object(
  { event: Type.String({ maxLength: 200 }), data: Type.Optional(Type.Unknown({ description: 'Any JSON value' })) },
  { additionalProperties: false },
);

/** `POST /api/webhooks`: the body, snake_case, before defaults. */
export type WebhookInput = Static<typeof createWebhookBody>;
/** `PUT /api/webhooks/{id}`: fields present replace; null clears or resets. */
export type WebhookUpdate = Static<typeof updateWebhookBody>;
