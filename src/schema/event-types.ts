/**
 * The event-type catalogue, request and answer side by side (TypeBox; the
 * views, ../http/views/event-types.ts, are typed from these).
 */
import { VALIDATION_MODES } from '../events/types.js';
import { REQUEST_MODEL_LIMITS } from './apis.js';
import { Type, anyObject, instant, named, nullableInteger, nullableString, refTo, stringEnum, type Static } from './kit.js';

const nameSchema = Type.String({ minLength: 1, maxLength: 200, description: 'The event name publishes use: letters, digits and _ . : - (not switchyard.*)' });
const modeSchema = stringEnum(VALIDATION_MODES, {
  description: 'What a publish whose data fails the schema does: off (not checked), warn (published, violation recorded), reject (400 event_invalid)',
});
const schemaField = anyObject({
  description: `A JSON Schema of the event's data (2020-12; draft-07 or draft-04 when its $schema names them); at most ${REQUEST_MODEL_LIMITS.schemaBytes} bytes, nested at most ${REQUEST_MODEL_LIMITS.schemaDepth} deep; only references inside it`,
});
const examplesField = Type.Array(Type.Unknown(), { maxItems: 10, description: "Example data values, each valid by the schema; test-fires use the first of the latest version's" });

export const EventTypeVersionSchema = named(
  'EventTypeVersion',
  Type.Object({
    version: Type.Integer({ minimum: 1, description: 'Numbered from 1 per type; a new schema makes the next' }),
    schema: anyObject(),
    examples: Type.Array(Type.Unknown()),
    createdAt: instant(),
  }),
);

export const EventTypeSchema = named(
  'EventType',
  Type.Object({
    name: Type.String(),
    description: Type.String(),
    mode: modeSchema,
    deprecated: Type.Boolean({ description: 'Still published and validated; marked deprecated in the OpenAPI webhooks section' }),
    project: nullableString({ description: 'The project (switchyard.yaml) that made it; null: made by hand' }),
    latestVersion: nullableInteger({ description: 'The version validation uses unless a publish names one; null: no schema yet' }),
    versions: Type.Array(refTo(EventTypeVersionSchema), { description: 'Oldest first' }),
    createdAt: instant(),
    updatedAt: instant(),
  }),
);

export const EventViolationSchema = named(
  'EventViolation',
  Type.Object({
    id: Type.String(),
    version: Type.Integer(),
    path: Type.String({ description: 'The failing instance path in data (JSON Pointer; empty: data itself)' }),
    message: Type.String(),
    source: stringEnum(['publish', 'emit', 'test'] as const, { description: "Where the event came from: POST /api/events, a function's emit(), a test-fire" }),
    at: instant(),
  }),
);

export const EventTypeImportSchema = named(
  'EventTypeImport',
  Type.Object({
    created: Type.Array(Type.String(), { description: 'Types the document added' }),
    updated: Type.Array(Type.String(), { description: 'Types that existed (a new version when their schema differed)' }),
  }),
);

export type EventTypeView = Static<typeof EventTypeSchema>;
export type EventViolationView = Static<typeof EventViolationSchema>;

// Requests.

export const createEventTypeBody = Type.Object(
  {
    name: nameSchema,
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    mode: Type.Optional(modeSchema),
    deprecated: Type.Optional(Type.Boolean()),
    schema: Type.Optional(schemaField),
    examples: Type.Optional(examplesField),
    project: Type.Optional(nullableString({ maxLength: 200, description: 'The project (switchyard.yaml) that owns it; null or left out: none' })),
  },
  { additionalProperties: false },
);

export const updateEventTypeBody = Type.Object(
  {
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    mode: Type.Optional(modeSchema),
    deprecated: Type.Optional(Type.Boolean()),
    schema: Type.Optional(schemaField),
    examples: Type.Optional(examplesField),
    project: Type.Optional(nullableString({ maxLength: 200, description: 'The project that owns it; null: none' })),
  },
  { additionalProperties: false },
);

export const importEventTypesBody = Type.Object(
  {
    document: anyObject({ description: 'An OpenAPI 3.1 document (JSON); its `webhooks` are read, each key an event name' }),
    mode: Type.Optional(modeSchema),
  },
  { additionalProperties: false },
);

export const eventTypeParams = Type.Object({ name: Type.String({ maxLength: 200 }) });
export const violationsQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'At most this many, newest first (default 100)' })) },
  { additionalProperties: false },
);

export type CreateEventTypeInput = Static<typeof createEventTypeBody>;
export type UpdateEventTypeInput = Static<typeof updateEventTypeBody>;
