/**
 * The API's fields of a webhook and a function, read from its schema
 * (src/schema/): their names in the document's order (the order a plan lists
 * changed fields and an export writes them) and what each optional one means
 * when left out. Load, plan, apply and export go through these lists, so a
 * field the API gains needs no edit in src/project unless the file writes it
 * differently from the API (a webhook's `target`, a function's `file`).
 */
import { canonicalJson } from '../canonical-json.js';
import { createFunctionBody, FUNCTION_INPUT_DEFAULTS, type FunctionInput } from '../schema/functions.js';
import { createWebhookBody, WEBHOOK_INPUT_DEFAULTS, type WebhookInput } from '../schema/webhooks.js';

/**
 * `application_id` is the server's id, not portable: the file writes `application: <uid or name>`
 * instead (plan.ts compares it through the application, apply.ts sends the id), and a file that
 * leaves it out neither sets nor clears a webhook's owner.
 */
const NOT_IN_PROJECT_FILES: ReadonlyArray<keyof WebhookInput> = ['application_id'];
export const WEBHOOK_FIELDS = (Object.keys(createWebhookBody.properties) as Array<keyof WebhookInput>).filter((k) => !NOT_IN_PROJECT_FILES.includes(k));

/** Where plans and exports have always put them: first, before the rest in the schema's order. */
const FUNCTION_LISTED_FIRST: Array<keyof FunctionInput> = ['name', 'code', 'runtime', 'handler', 'event_format'];
export const FUNCTION_FIELDS: Array<keyof FunctionInput> = [
  ...FUNCTION_LISTED_FIRST,
  ...(Object.keys(createFunctionBody.properties) as Array<keyof FunctionInput>).filter((k) => !FUNCTION_LISTED_FIRST.includes(k)),
];

export const WEBHOOK_FIELD_DEFAULTS: Readonly<Record<string, unknown>> = WEBHOOK_INPUT_DEFAULTS;
export const FUNCTION_FIELD_DEFAULTS: Readonly<Record<string, unknown>> = FUNCTION_INPUT_DEFAULTS;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A field as given, or its default where left out (or null); an object
 * default (a webhook's `retry`) is filled key by key. Defaults are copied:
 * every project gets its own.
 */
export function withDefault(value: unknown, fallback: unknown): unknown {
  if (value === undefined || value === null) return fallback === undefined ? value : structuredClone(fallback);
  if (isPlainObject(fallback) && isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fallback)) out[k] = value[k] ?? v;
    for (const [k, v] of Object.entries(value)) if (!(k in out) && v !== undefined && v !== null) out[k] = v;
    return out;
  }
  return value;
}

/** Whether a value is what the field means when left out (so an export leaves it out). A required field has no default. */
export function isDefault(value: unknown, fallback: unknown): boolean {
  return fallback !== undefined && canonicalJson(value) === canonicalJson(fallback);
}
