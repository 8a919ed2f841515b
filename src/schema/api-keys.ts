/**
 * API keys and usage plans, request and answer side by side (TypeBox; the
 * views, ../http/views/api-keys.ts, are typed from these). A key's secret is
 * in the answer of its creation only (`value`); afterwards only `prefix`.
 */
import { QUOTA_PERIODS } from '../types.js';
import { ThrottleSchema, throttleInput } from './apis.js';
import { Type, instant, named, nullableString, refTo, stringEnum, type Static } from './kit.js';

/** Bounds on a plan (API Gateway's quota limit is an integer; a plan covers a bounded list of APIs). */
export const USAGE_PLAN_LIMITS = { apis: 100, quota: 1_000_000_000 } as const;

const nameSchema = Type.String({ minLength: 1, maxLength: 200 });
const idSchema = Type.String({ minLength: 1, maxLength: 100 });

const quotaObject = () =>
  Type.Object(
    {
      limit: Type.Integer({ minimum: 1, maximum: USAGE_PLAN_LIMITS.quota, description: 'Requests per key in one period' }),
      period: stringEnum(QUOTA_PERIODS, { description: 'UTC calendar periods: DAY, WEEK (from Monday) or MONTH' }),
    },
    { additionalProperties: false, description: "Requests each key may make per period; past it 429 quota_exceeded with Retry-After to the period's end" },
  );
export const QuotaSchema = named('Quota', quotaObject());

export const UsagePlanSchema = named(
  'UsagePlan',
  Type.Object({
    id: Type.String(),
    name: Type.String(),
    apiIds: Type.Array(Type.String(), { description: "The APIs the plan's keys may call (routes with apiKeyRequired)" }),
    throttle: Type.Union([Type.Null(), refTo(ThrottleSchema)], { description: 'A token bucket per key; null: none' }),
    quota: Type.Union([Type.Null(), refTo(QuotaSchema)], { description: 'A count per key and period; null: none' }),
    createdAt: instant(),
    updatedAt: instant(),
  }),
);

export const ApiKeySchema = named(
  'ApiKey',
  Type.Object({
    id: Type.String(),
    name: Type.String(),
    prefix: Type.String({ description: 'The first characters of the secret, to tell keys apart (the secret itself is never shown again)' }),
    enabled: Type.Boolean(),
    usagePlanId: nullableString({ description: 'The usage plan of the key; null: none (the key is refused everywhere)' }),
    createdAt: instant(),
    updatedAt: instant(),
    value: Type.Optional(Type.String({ description: 'The secret, to send in x-api-key: in the answer of POST /api/api-keys only' })),
  }),
);

export const ApiKeyUsageSchema = named(
  'ApiKeyUsage',
  Type.Object({
    id: Type.String(),
    from: Type.String({ description: 'First day (UTC, YYYY-MM-DD)' }),
    to: Type.String({ description: 'Last day (UTC, YYYY-MM-DD)' }),
    days: Type.Array(Type.Object({ day: Type.String(), used: Type.Integer({ description: 'Requests admitted with the key that day' }) })),
  }),
);

export type UsagePlanView = Static<typeof UsagePlanSchema>;
export type ApiKeyView = Static<typeof ApiKeySchema>;

// Requests.

const apiIdsSchema = Type.Array(idSchema, { maxItems: USAGE_PLAN_LIMITS.apis, uniqueItems: true, description: 'Ids of existing APIs' });
const throttleField = Type.Optional(Type.Union([throttleInput, Type.Null()], { description: 'A token bucket per key; null or absent: none' }));
const quotaField = Type.Optional(Type.Union([quotaObject(), Type.Null()], { description: 'A count per key and period; null or absent: none' }));

export const createUsagePlanBody = Type.Object(
  { name: nameSchema, apiIds: apiIdsSchema, throttle: throttleField, quota: quotaField },
  { additionalProperties: false },
);
export const updateUsagePlanBody = Type.Object(
  { name: Type.Optional(nameSchema), apiIds: Type.Optional(apiIdsSchema), throttle: throttleField, quota: quotaField },
  { additionalProperties: false },
);
const planIdField = Type.Optional(Type.Union([idSchema, Type.Null()], { description: 'An existing usage plan; null: none' }));
export const createApiKeyBody = Type.Object(
  { name: nameSchema, enabled: Type.Optional(Type.Boolean({ description: 'Default true' })), usagePlanId: planIdField },
  { additionalProperties: false },
);
export const updateApiKeyBody = Type.Object(
  { name: Type.Optional(nameSchema), enabled: Type.Optional(Type.Boolean()), usagePlanId: planIdField },
  { additionalProperties: false },
);
export const usageQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ maxLength: 10, description: 'First day (UTC, YYYY-MM-DD); default 29 days before `to`' })),
    to: Type.Optional(Type.String({ maxLength: 10, description: 'Last day (UTC, YYYY-MM-DD); default today' })),
  },
  { additionalProperties: false },
);
export const keyIdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
