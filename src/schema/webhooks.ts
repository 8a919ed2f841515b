/**
 * The webhooks resource of the API, request and answer side by side: the
 * component schemas of its answers (Webhook, Delivery, Attempt, the published
 * event) and the schemas of what its routes accept, written with TypeBox so
 * that the answers' types (views: ../views/webhooks.ts) and the inputs' types
 * (what the webhook service is handed) are derived from them (`Static`).
 */
import { DELIVERY_STATUSES } from '../deliveries/types.js';
import { BREAKER_STATES, DISABLED_REASONS, RECOVERABLE_STATUSES, RECOVERY_STATES, SECRET_OVERLAP_MAX_S, WEBHOOK_METHODS } from '../webhooks/types.js';
import {
  Type,
  anyObject,
  headerMap,
  instant,
  named,
  nullableInstant,
  nullableInteger,
  nullableString,
  refTo,
  stringEnum,
  type InputDefaults,
  type Static,
  type TSchema,
} from './kit.js';
import { projectField } from './common.js';

const string = () => Type.String();

/** A transformation's source at most (characters). */
export const TRANSFORMATION_MAX_CHARS = 64 * 1024;

export const DELIVERY_TRIGGERS = ['test', 'schedule', 'event', 'destination'] as const;

// Answers.

export const BreakerSettingsSchema = named(
  'BreakerSettings',
  Type.Object(
    {
      enabled: Type.Boolean({ description: 'False: never paused for failing (default true)' }),
      min_attempts: Type.Integer({ minimum: 1, maximum: 100_000, description: 'Attempts in the window before it may open (default 20)' }),
      failure_ratio: Type.Number({ minimum: 0.01, maximum: 1, description: 'Share of those that failed to open it (default 0.5)' }),
      window_s: Type.Integer({ minimum: 5, maximum: 3600, description: 'The sliding window, in seconds (default 60)' }),
    },
    { description: 'When the circuit breaker opens: pauses sending, holds deliveries, probes with one every 5 s, doubling up to 5 min' },
  ),
);

export const RateLimitSchema = named(
  'RateLimit',
  Type.Object(
    {
      per_second: Type.Number({ minimum: 0.01, maximum: 100_000, description: 'Sends per second, for the whole cluster' }),
      burst: Type.Integer({ minimum: 1, maximum: 100_000, description: 'Sends that may go at once after a pause (default a fiftieth of a second of the rate, at least 1)' }),
    },
    { additionalProperties: false },
  ),
);

export const AutoDisableSchema = named(
  'AutoDisable',
  Type.Object(
    {
      enabled: Type.Boolean({ description: 'False: never disabled for failing (a 410 Gone still disables it)' }),
      after_s: Type.Integer({ minimum: 60, maximum: 90 * 86_400, description: 'Disabled once every attempt has failed for this long (default 432000: 5 days)' }),
      min_span_s: Type.Integer({ minimum: 0, maximum: 90 * 86_400, description: 'and the failed attempts span at least this (default 43200: 12 h)' }),
    },
    { description: 'When a webhook whose every attempt fails is disabled; its deliveries after that are held, not dropped' },
  ),
);

export const SECRET_KINDS = ['hmac', 'ed25519'] as const;

export const SigningSecretSchema = named(
  'SigningSecret',
  Type.Object(
    {
      kind: stringEnum(SECRET_KINDS, { description: '`hmac` signs `v1,` (HMAC-SHA256, `whsec_`); `ed25519` signs `v1a,` (`whsk_`)' }),
      created_at: nullableInstant({ description: 'When it was set; null for one set before rotation was recorded' }),
      expires_at: nullableInstant({ description: 'When it stops signing (the end of its overlap); null for the current secret' }),
      public_key: nullableString({ description: 'ed25519: its `whpk_` public key' }),
    },
    { description: 'A secret that signs deliveries (its value is write-only and never shown)' },
  ),
);

export const WebhookSchema = named(
  'Webhook',
  Type.Object({
    id: string(),
    name: string(),
    target_url: string(),
    method: stringEnum(WEBHOOK_METHODS),
    headers: headerMap({ description: 'Sensitive values masked ("***")' }),
    payload_template: anyObject({ description: 'A JSON object (any values) with optional {{placeholders}}' }),
    cron: nullableString(),
    timezone: nullableString(),
    mock_endpoint: Type.Union([Type.Null(), Type.Object({ api_id: string(), path: string() })]),
    transformation: nullableString({
      description: 'JavaScript run on each attempt\'s request before it is signed (docs/webhooks.md, "Transformations"); null: none',
    }),
    events: Type.Unsafe<string[] | null>({ type: ['array', 'null'], items: { type: 'string' } }),
    enabled: Type.Boolean(),
    has_secret: Type.Boolean(),
    public_key: nullableString({
      description: 'The `whpk_` public key of an ed25519 secret, for receivers to verify `v1a` signatures with; null for an HMAC secret or none',
    }),
    secrets: Type.Array(refTo(SigningSecretSchema), {
      description: 'The secrets that sign its deliveries now, newest (current) first: metadata only, never the values',
    }),
    retry: Type.Object({ max_attempts: Type.Integer(), schedule_s: Type.Optional(Type.Array(Type.Integer())) }),
    timeout_ms: Type.Integer(),
    next_fire_at: nullableInstant(),
    paused: Type.Boolean({ description: 'Paused by an operator (`POST /api/webhooks/{id}/pause`): its deliveries are held until it is resumed' }),
    paused_at: nullableInstant(),
    disabled_reason: Type.Unsafe<(typeof DISABLED_REASONS)[number] | null>({
      type: ['string', 'null'],
      enum: [...DISABLED_REASONS, null],
      description: 'Why Switchyard disabled it: `gone` (its target answered 410), `failing` (every attempt failed for the auto-disable span); null when enabled or disabled by hand',
    }),
    breaker: refTo(BreakerSettingsSchema),
    rate_limit: Type.Union([Type.Null(), refTo(RateLimitSchema)], { description: 'Sends per second for the whole cluster; null: no limit' }),
    auto_disable: refTo(AutoDisableSchema),
    filter: Type.Unsafe<Record<string, unknown> | null>({
      type: ['object', 'null'],
      additionalProperties: true,
      description: "The payload filter of its event subscription (see docs/webhooks.md, Filters); null: every event it subscribes to",
    }),
    project: projectField(),
    application_id: nullableString({ description: 'The application that owns it; null: global' }),
    created_at: instant(),
    updated_at: instant(),
    secret: Type.Optional(Type.String({ description: 'Only in the answer that generated or set it' })),
    next_fires: Type.Optional(Type.Array(instant(), { description: 'Only in `GET /api/webhooks/{id}`: the next 5 fire times' })),
    health: Type.Optional(
      Type.Object(
        {
          last_outcome: Type.Unsafe<'succeeded' | 'failed' | null>({
            type: ['string', 'null'],
            enum: ['succeeded', 'failed', null],
            description: 'The latest outcome of the newest delivery tried: `failed` also for one still retrying; null when none was tried',
          }),
          failures_in_a_row: Type.Integer({
            description: 'Deliveries that failed since the newest that succeeded, counting those retrying (pending ones not tried yet are skipped)',
          }),
          pending: Type.Integer({ description: 'Deliveries still pending, those retrying included' }),
          retrying: Type.Integer({ description: 'Pending deliveries whose latest attempt failed: waiting for their next attempt' }),
          window: Type.Integer({ description: 'How many of the newest deliveries were counted' }),
          state: stringEnum(BREAKER_STATES, {
            description: 'The circuit breaker: `closed` sends; `open` holds every delivery until its next probe; `half_open` has one probe in flight',
          }),
          since: nullableInstant({ description: 'When the breaker entered its state; null before the first attempt' }),
          failure_ratio: Type.Number({ description: "Failed attempts over attempts in the breaker's sliding window (0 when none)" }),
          window_attempts: Type.Number({ description: "Attempts in the breaker's sliding window (the previous fixed window weighted)" }),
          held: Type.Integer({ description: 'Deliveries held now (not attempted while the webhook may not be sent to)' }),
          held_discarded: Type.Integer({ description: 'Held deliveries dropped by the held bound so far, oldest first' }),
          next_probe_at: nullableInstant({ description: 'Open: when the next probe may go' }),
          probe_delivery_id: nullableString({ description: 'Half open: the delivery sent as the probe' }),
          not_before: nullableInstant({ description: "A target's Retry-After: nothing is sent to it before this time" }),
          failing_since: nullableInstant({ description: 'The first failed attempt since the last one that succeeded (the auto-disable span counts from here)' }),
          last_success_at: nullableInstant(),
          last_failure_at: nullableInstant(),
        },
        {
          description:
            "In `GET /api/webhooks` and `GET /api/webhooks/{id}`: outcomes counted over the webhook's `window` (20) newest deliveries, and its endpoint health (breaker, held deliveries, Retry-After)",
        },
      ),
    ),
  }),
);

export const AttemptSchema = named(
  'Attempt',
  Type.Object({
    attempt: Type.Integer(),
    started_at: instant(),
    duration_ms: Type.Number(),
    response_status: nullableInteger(),
    error: nullableString(),
    outcome: nullableString({
      description:
        'What the webhook\'s transformation did: `transformed`, `cancelled`, or its error code (`transformation_error`, ' +
        '`transformation_cpu_limit`, `transformation_invalid_result`); null for a webhook without one',
    }),
  }),
);

const requestOf = (description: string) =>
  Type.Union([Type.Null(), Type.Object({ method: string(), url: string(), headers: headerMap(), body: nullableString() })], { description });

/** A target's answer: a delivery's last one, or one attempt's. */
const responseOf = (description: string) =>
  Type.Union([Type.Null(), Type.Object({ status: Type.Integer(), headers: headerMap(), body: string() })], { description });

/** An attempt as `GET /api/deliveries/{id}` answers it: with its own response (lists leave it out: a body each). */
export const AttemptDetailSchema = named(
  'AttemptDetail',
  Type.Object({
    ...AttemptSchema.properties,
    response: responseOf(
      "The target's answer to this attempt (sensitive header values masked, first 16 KiB of the body); " +
        'null when none came (a network error, a timeout) or the attempt predates migration 13, which began keeping them',
    ),
    sent: requestOf(
      'The request this attempt sent, as the webhook\'s transformation made it from the rendered `request` (sensitive header values masked); ' +
        'null for a webhook without one, or when nothing was sent',
    ),
  }),
);

const deliveryProperties = {
  id: string(),
  webhook_id: string(),
  trigger: stringEnum(DELIVERY_TRIGGERS, {
    description: "`destination`: a function's invocation record (its `async.on_success` / `on_failure`), sent as the payload",
  }),
  event: nullableString(),
  status: stringEnum(DELIVERY_STATUSES, {
    description:
      '`held`: kept without an attempt while its webhook may not be sent to; `discarded`: a held one dropped; ' +
      "`cancelled`: the webhook's transformation cancelled it, nothing was sent",
  }),
  error: nullableString(),
  scheduled_for: nullableInstant(),
  next_attempt_at: nullableInstant(),
  attempts: Type.Array(refTo(AttemptSchema)),
  request: requestOf('The rendered request (sensitive header values masked), before any transformation; null until rendered'),
  response: responseOf("The target's last answer (sensitive header values masked, first 16 KiB of the body)"),
  created_at: instant(),
  completed_at: nullableInstant(),
};

export const DeliverySchema = named('Delivery', Type.Object(deliveryProperties));

/** `GET /api/deliveries/{id}`: a delivery whose attempts each carry their response. */
export const DeliveryDetailSchema = named(
  'DeliveryDetail',
  Type.Object({ ...deliveryProperties, attempts: Type.Array(refTo(AttemptDetailSchema)) }),
);

export const PublishedEventSchema = named(
  'PublishedEvent',
  Type.Object({
    id: Type.String({ description: "The event's id: the one it was published with, or one Switchyard gave it (`evt_...`)" }),
    event: string(),
    deliveries: Type.Array(string(), { description: 'Ids of the deliveries created, one per matched webhook (in the order of `webhooks.matched`)' }),
    webhooks: Type.Object(
      {
        matched: Type.Array(string(), { description: 'Subscribed webhooks the event reached: no filter, or its filter matched; each got a delivery' }),
        filtered_out: Type.Array(string(), { description: 'Subscribed webhooks whose filter the event did not match: no delivery' }),
      },
      { description: 'The webhooks subscribed to the event, by whether their filter let it through' },
    ),
    functions: Type.Array(Type.Object({ name: string(), invocation_id: string() }), {
      description: 'The subscribed functions reached, each with the id of its invocation (none for an event published to an application)',
    }),
    application_id: Type.Optional(Type.String({ description: 'The application it was published to (only its webhooks were reached)' })),
    validation: Type.Optional(
      Type.Object(
        {
          type: string(),
          version: Type.Integer({ description: 'The schema version the data was checked against' }),
          mode: stringEnum(['warn', 'reject'] as const),
          valid: Type.Boolean(),
          path: Type.Optional(Type.String({ description: 'When not valid: the failing instance path in data (JSON Pointer)' })),
          message: Type.Optional(Type.String()),
        },
        { description: "Present when the event's type is catalogued with a schema and a mode other than off (docs/event-types.md); a warn-mode failure was published and recorded" },
      ),
    ),
  }),
);

export const RecoverySchema = named(
  'Recovery',
  Type.Object({
    id: string(),
    webhook_id: Type.Unsafe<string | null>({ type: ['string', 'null'], description: 'Null for a bulk retry across webhooks' }),
    status: stringEnum(RECOVERY_STATES, { description: '`running` until every selected delivery was resent (`done`), or it was cancelled' }),
    total: Type.Integer({ description: 'Deliveries the filter selected when the job was created' }),
    resent: Type.Integer({ description: 'Deliveries resent so far (each at most once)' }),
    progress: Type.Number({ description: 'Resent and passed-over deliveries over total, 0 to 1' }),
    filter: Type.Object({
      since: instant(),
      until: instant(),
      statuses: Type.Array(stringEnum(RECOVERABLE_STATUSES)),
      events: Type.Unsafe<string[] | null>({ type: ['array', 'null'], items: { type: 'string' } }),
      webhook_ids: Type.Unsafe<string[] | null>({ type: ['array', 'null'], items: { type: 'string' } }),
    }),
    created_at: instant(),
    updated_at: instant(),
    finished_at: nullableInstant(),
  }),
);

export type WebhookView = Static<typeof WebhookSchema>;
export type SigningSecretView = Static<typeof SigningSecretSchema>;
export type RecoveryView = Static<typeof RecoverySchema>;
export type AttemptView = Static<typeof AttemptSchema>;
export type AttemptDetailView = Static<typeof AttemptDetailSchema>;
export type DeliveryView = Static<typeof DeliverySchema>;
export type DeliveryDetailView = Static<typeof DeliveryDetailSchema>;
export type PublishedEventView = Static<typeof PublishedEventSchema>;

// Requests.

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
  transformation: Type.String({
    minLength: 1,
    maxLength: TRANSFORMATION_MAX_CHARS,
    description:
      'JavaScript declaring `function handler(webhook)`, run on each attempt\'s request (method, url, headers, payload) ' +
      'before it is signed; it may change it or set `cancel = true`. 10 ms of CPU, no network or host access',
  }),
  enabled: Type.Boolean(),
  secret: Type.String({
    maxLength: 200,
    description: '"generate" (HMAC), "generate_ed25519", whsec_<base64> (HMAC) or whsk_<base64> (ed25519 private key); write-only',
  }),
  retry: Type.Object(
    {
      max_attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 })),
      schedule_s: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 86400 }), { minItems: 1, maxItems: 30 })),
    },
    { additionalProperties: false },
  ),
  timeout_ms: Type.Integer({ minimum: 1000, maximum: 60000 }),
  breaker: Type.Object(
    {
      enabled: Type.Optional(Type.Boolean()),
      min_attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
      failure_ratio: Type.Optional(Type.Number({ minimum: 0.01, maximum: 1 })),
      window_s: Type.Optional(Type.Integer({ minimum: 5, maximum: 3600 })),
    },
    { additionalProperties: false, description: 'Circuit breaker thresholds; fields left out keep their defaults' },
  ),
  rate_limit: Type.Object(
    {
      per_second: Type.Number({ minimum: 0.01, maximum: 100_000 }),
      burst: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    },
    { additionalProperties: false, description: 'Sends per second for the whole cluster (all processes and nodes)' },
  ),
  auto_disable: Type.Object(
    {
      enabled: Type.Optional(Type.Boolean()),
      after_s: Type.Optional(Type.Integer({ minimum: 60, maximum: 90 * 86_400 })),
      min_span_s: Type.Optional(Type.Integer({ minimum: 0, maximum: 90 * 86_400 })),
    },
    { additionalProperties: false, description: 'Disable after sustained failure; fields left out keep their defaults' },
  ),
  filter: anyObject({
    description:
      'Only events matching this filter on their `event`, `data` and `headers` reach the webhook (operators $eq, $neq, $gt, $gte, $lt, ' +
      '$lte, $in, $nin, $exist, $regex, $and, $or; see docs/webhooks.md, Filters); checked when written (400 invalid_filter)',
  }),
};

/** Absent, or null: cleared or back to the default. */
const orNull = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

const headers = orNull(fields.headers);
const optionalFields = {
  cron: orNull(fields.cron),
  timezone: orNull(fields.timezone),
  mock_endpoint: orNull(fields.mock_endpoint),
  transformation: orNull(fields.transformation),
  events: orNull(fields.events),
  enabled: orNull(fields.enabled),
  secret: orNull(fields.secret),
  retry: orNull(fields.retry),
  timeout_ms: orNull(fields.timeout_ms),
  breaker: orNull(fields.breaker),
  rate_limit: orNull(fields.rate_limit),
  auto_disable: orNull(fields.auto_disable),
  filter: orNull(fields.filter),
  project: Type.Optional(projectField()),
  application_id: orNull(
    Type.String({
      maxLength: 200,
      description:
        'The application (customer) that owns it, by id or uid: it then receives only events published to that application ' +
        '(docs/applications.md); null or left out: a global webhook, which receives only events published without one',
    }),
  ),
};

export const createWebhookBody = Type.Object(
  {
    // In the document's order of fields (and so of the generated clients' types).
    name: fields.name,
    target_url: fields.target_url,
    method: fields.method,
    headers,
    payload_template: fields.payload_template,
    ...optionalFields,
  },
  { additionalProperties: false },
);

const overlapS = (description: string) =>
  Type.Integer({ minimum: 0, maximum: SECRET_OVERLAP_MAX_S, description });

export const updateWebhookBody = Type.Object(
  {
    name: orNull(fields.name),
    target_url: orNull(fields.target_url),
    method: orNull(fields.method),
    headers,
    payload_template: orNull(fields.payload_template),
    ...optionalFields,
    secret_overlap_s: orNull(
      overlapS('With a new `secret`: seconds the replaced one keeps signing (0 to 2592000, 30 days); left out or 0: replaced at once'),
    ),
  },
  // `required: []` as the document has always said it (TypeBox leaves an empty list out).
  { additionalProperties: false, required: [] },
);

/** Headers of a published event, seen by filters only (never stored or sent): names lowercased on arrival. */
const eventHeaders = headerMap(
  {
    maxProperties: 50,
    propertyNames: { pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$" },
    description:
      "Headers of the event, as Convoy and Outpost take them: a webhook's filter can match on them (`{\"headers\": {\"x-source\": \"checkout\"}}`); " +
      'not stored and not sent to the webhooks (a delivery carries its webhook\'s own headers)',
  },
  { maxLength: 1024 },
);

export const idParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

export const publishEventBody = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        pattern: '^[\\x20-\\x7e]+$',
        description:
          "The event's own id (1 to 255 printable ASCII characters): a second publish with the same id within the idempotency window " +
          'answers the first answer again and creates nothing, as an Idempotency-Key does',
      }),
    ),
    event: Type.String({ maxLength: 200 }),
    data: Type.Optional(Type.Unknown({ description: 'Any JSON value' })),
    version: Type.Optional(
      Type.Integer({ minimum: 1, description: "The schema version of the event's catalogued type to validate against (default: the latest)" }),
    ),
    headers: Type.Optional(eventHeaders),
    application: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          "The application (id or uid) to publish to: only its webhooks subscribed to the event (and whose filter matches) get a delivery; " +
          'left out: the global webhooks and the subscribed functions, as before applications (docs/applications.md)',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The filter as the tester takes it: the same schema as the webhook field's, refused the same way. */
export const filterTestBody = Type.Object(
  {
    filter: fields.filter,
    event: Type.Object(
      {
        event: Type.Optional(Type.String({ maxLength: 200, description: 'The event name (default `test.event`)' })),
        data: Type.Optional(Type.Unknown({ description: 'Any JSON value' })),
        headers: Type.Optional(eventHeaders),
      },
      { additionalProperties: false, description: 'An event as `POST /api/events` takes it' },
    ),
  },
  { additionalProperties: false },
);

export const FilterTestSchema = named(
  'FilterTest',
  Type.Object({
    matched: Type.Boolean({ description: 'Whether a webhook with this filter would get a delivery of the event' }),
    failed: Type.Union(
      [
        Type.Null(),
        Type.Object({
          path: Type.String({ description: 'The part of the filter that failed, e.g. `data.amount` or `$or`' }),
          operator: Type.String({ description: 'Its operator: `$gte`, `$eq` (a bare value), `contains` (a bare value against an array), `any element` ($ segments), `$or`' }),
          expected: Type.Optional(Type.Unknown({ description: "The filter's operand" })),
          actual: Type.Optional(Type.Unknown({ description: "The event's value there; absent: the event has no such field" })),
        }),
      ],
      { description: 'The first part of the filter the event failed; null when it matched' },
    ),
  }),
);
export type FilterTestView = Static<typeof FilterTestSchema>;

/** `POST /api/webhooks`: the body, snake_case, before defaults. */
export type WebhookInput = Static<typeof createWebhookBody>;
/** `PUT /api/webhooks/{id}`: fields present replace; null clears or resets. */
export type WebhookUpdate = Static<typeof updateWebhookBody>;

/** `POST /api/transformation-test`: code and a sample request to run it on. */
export const transformationTestBody = Type.Object(
  {
    transformation: fields.transformation,
    request: Type.Object(
      {
        method: Type.Optional(stringEnum(WEBHOOK_METHODS, { description: 'Default POST' })),
        url: Type.String({ maxLength: 2048, description: 'An absolute http(s) URL' }),
        headers: Type.Optional(headerMap({ description: 'Header names and values' }, { maxLength: 8192 })),
        payload: Type.Optional(Type.Unknown({ description: 'The rendered JSON body (any JSON value); null or absent: none' })),
      },
      { additionalProperties: false },
    ),
    event_type: Type.Optional(nullableString({ maxLength: 200, description: 'What the handler sees as `webhook.eventType`' })),
  },
  { additionalProperties: false },
);
export type TransformationTestInput = Static<typeof transformationTestBody>;

export const TransformationTestResultSchema = named(
  'TransformationTestResult',
  Type.Object({
    outcome: stringEnum(['transformed', 'cancelled', 'failed'] as const, {
      description: '`transformed`: `request` is what would be sent; `cancelled`: the handler set `cancel`; `failed`: see `error`',
    }),
    request: requestOf('The request that would be sent (before signing); null unless transformed'),
    error: Type.Union([Type.Null(), Type.Object({ code: string(), message: string() })], {
      description: 'Why it failed: `transformation_error`, `transformation_cpu_limit` or `transformation_invalid_result`, and the message',
    }),
    duration_ms: Type.Number(),
  }),
);
export type TransformationTestResultView = Static<typeof TransformationTestResultSchema>;

/**
 * What each optional field of `POST /api/webhooks` means when left out (and
 * what null resets it to): the webhook service fills these in, and project
 * files (src/project) compare and export against them.
 */
export const WEBHOOK_INPUT_DEFAULTS = {
  headers: {},
  cron: null,
  timezone: 'UTC',
  mock_endpoint: null,
  transformation: null,
  events: [],
  enabled: true,
  secret: null,
  retry: { max_attempts: 8 },
  timeout_ms: 15_000,
  breaker: { enabled: true, min_attempts: 20, failure_ratio: 0.5, window_s: 60 },
  rate_limit: null,
  auto_disable: { enabled: true, after_s: 432_000, min_span_s: 43_200 },
  filter: null,
  project: null,
  application_id: null,
} satisfies InputDefaults<WebhookInput>;

/** `POST /api/webhooks/{id}/rotate-secret`. */
export const rotateSecretBody = Type.Object(
  {
    secret: Type.Optional(
      Type.String({ maxLength: 200, description: 'The new secret, whsec_<base64> or whsk_<base64>; left out: one is generated and shown once in the answer' }),
    ),
    kind: Type.Optional(
      stringEnum(SECRET_KINDS, { description: 'The kind of secret to generate (default: the current one\'s, else hmac); with `secret`, must match it' }),
    ),
    overlap_s: Type.Optional(
      overlapS('Seconds the replaced secret keeps signing beside the new one (0 to 2592000, 30 days; default 86400, 24 h); 0: replaced at once'),
    ),
  },
  { additionalProperties: false },
);
export type RotateSecretInput = Static<typeof rotateSecretBody>;

/** `POST /api/webhooks/{id}/recover`: which of its finished deliveries to resend. */
export const recoverBody = Type.Object(
  {
    since: instant({ description: 'Deliveries created at or after this instant' }),
    until: Type.Optional(instant({ description: 'and at or before this one (default: now)' })),
    statuses: Type.Optional(
      Type.Array(stringEnum(RECOVERABLE_STATUSES), {
        minItems: 1,
        uniqueItems: true,
        description: 'Which finished deliveries (default `["failed"]`; `succeeded` replays, `discarded` undoes a discard, `cancelled` sends what a transformation cancelled, through it again)',
      }),
    ),
    events: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { minItems: 1, maxItems: 100, uniqueItems: true, description: 'Only deliveries of these events' })),
  },
  { additionalProperties: false },
);

/** `POST /api/recoveries`: a bulk retry across webhooks. */
export const bulkRetryBody = Type.Object(
  {
    ...recoverBody.properties,
    webhook_ids: Type.Optional(
      Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 1000, uniqueItems: true, description: 'Only these webhooks (default: every one)' }),
    ),
    application: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "Only this application's webhooks (its id or uid), as it owns them when the job is created" }),
    ),
  },
  { additionalProperties: false },
);

/** `POST /api/webhooks/{id}/held/discard`: which held deliveries to drop. */
export const discardHeldBody = Type.Object(
  {
    events: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { minItems: 1, maxItems: 100, uniqueItems: true, description: 'Only deliveries of these events' })),
    before: Type.Optional(instant({ description: 'Only deliveries created before this instant' })),
  },
  { additionalProperties: false },
);

export type RecoverInput = Static<typeof recoverBody>;
export type BulkRetryInput = Static<typeof bulkRetryBody>;
export type DiscardHeldInput = Static<typeof discardHeldBody>;
