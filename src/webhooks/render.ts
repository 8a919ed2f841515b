/**
 * Payload templates: `{{var}}` placeholders in string values of a JSON
 * template. A string that is exactly one placeholder becomes the variable's
 * JSON value (objects stay objects); inside a longer string the value is
 * interpolated as text. Keys are never templated. A placeholder naming no
 * known variable, or a path that leads nowhere, stays as written, so a
 * typo shows up in the receiver's payload rather than vanishing.
 * `buildRequest` turns a webhook and a delivery into the request every
 * attempt of that delivery sends.
 */
import { DEPTH_HEADER, depthOf } from '../hops.js';
import type { Webhook } from './types.js';
import type { Delivery, DeliveryRequest } from '../deliveries/types.js';

export const USER_AGENT = 'Switchyard-Webhooks/0.1';
/** Set per delivery and per attempt by the engine, never taken from the webhook's headers. */
const SIGNATURE_HEADERS = new Set(['webhook-id', 'webhook-timestamp', 'webhook-signature']);

export interface RenderVars {
  /** ISO instant: the delivery's creation, or its slot for a schedule. */
  timestamp: string;
  webhook: { id: string; name: string };
  delivery: { id: string };
  trigger: string;
  event: string | null;
  /** Event data, or the mock endpoint's body; undefined leaves `{{data}}` as is. */
  data: unknown;
  /** The mock endpoint's body; undefined (no mock endpoint) leaves `{{mock}}` as is. */
  mock?: unknown;
}

const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;
const EXACT = /^\{\{\s*([^{}\s]+)\s*\}\}$/;

const NOT_FOUND = Symbol('not found');

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** Own properties only: `{{data.constructor}}` must not reach into prototypes. */
function walk(value: unknown, path: string[]): unknown {
  let cur = value;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || !hasOwn(cur, key)) return NOT_FOUND;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur === undefined ? NOT_FOUND : cur;
}

function lookup(name: string, vars: RenderVars): unknown {
  const [root, ...rest] = name.split('.');
  switch (root) {
    case 'timestamp':
    case 'trigger':
    case 'event':
      return rest.length === 0 ? vars[root] : NOT_FOUND;
    case 'webhook':
      return rest.length === 1 && (rest[0] === 'id' || rest[0] === 'name') ? vars.webhook[rest[0]] : NOT_FOUND;
    case 'delivery':
      return rest.length === 1 && rest[0] === 'id' ? vars.delivery.id : NOT_FOUND;
    case 'data':
    case 'mock':
      return walk(vars[root], rest);
    default:
      return NOT_FOUND;
  }
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function renderString(s: string, vars: RenderVars): unknown {
  if (!s.includes('{{')) return s;
  const exact = EXACT.exec(s);
  if (exact) {
    const value = lookup(exact[1], vars);
    return value === NOT_FOUND ? s : value;
  }
  return s.replace(PLACEHOLDER, (whole, name: string) => {
    const value = lookup(name, vars);
    return value === NOT_FOUND ? whole : asText(value);
  });
}

function renderValue(value: unknown, vars: RenderVars): unknown {
  if (typeof value === 'string') return renderString(value, vars);
  if (Array.isArray(value)) return value.map((v) => renderValue(v, vars));
  if (value !== null && typeof value === 'object') {
    // fromEntries defines own properties, so a `__proto__` key stays a plain key.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderValue(v, vars)]));
  }
  return value;
}

/** The template with its placeholders replaced; the template itself is not modified. */
export function renderPayload(template: Record<string, unknown>, vars: RenderVars): unknown {
  return renderValue(template, vars);
}

function mentions(value: unknown, root: string): boolean {
  if (typeof value === 'string') {
    if (!value.includes('{{')) return false;
    for (const m of value.matchAll(PLACEHOLDER)) {
      const name = m[1];
      if (name === root || name.startsWith(`${root}.`)) return true;
    }
    return false;
  }
  if (Array.isArray(value)) return value.some((v) => mentions(v, root));
  if (value !== null && typeof value === 'object') return Object.values(value).some((v) => mentions(v, root));
  return false;
}

/** True when some placeholder in the template names `root` or a path under it (`{{data.user.id}}`). */
export function templateMentions(template: unknown, root: string): boolean {
  return mentions(template, root);
}

/**
 * The mock endpoint rule: a template that places neither `data` nor `mock`
 * itself gets the mock body as its top-level `data` field (added, or
 * replacing a literal one). The engine applies it to the mock body when the
 * webhook has a mock endpoint, and to an event's data for event deliveries.
 */
export function applyMockRule(template: Record<string, unknown>, rendered: unknown, mockBody: unknown): unknown {
  if (templateMentions(template, 'data') || templateMentions(template, 'mock')) return rendered;
  if (rendered === null || typeof rendered !== 'object' || Array.isArray(rendered)) return rendered;
  return { ...(rendered as Record<string, unknown>), data: mockBody };
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name) return true;
  return false;
}

/**
 * The request of a delivery, rendered once: method, URL, the webhook's
 * headers plus `content-type` (when there is a body) and `user-agent` unless
 * set, `webhook-id`, and `switchyard-depth` when the delivery is part of a
 * chain of runs (src/hops.ts); the payload as JSON (no body for GET). `mock` is the mock
 * endpoint's body when the webhook has one. A `destination` delivery (a
 * function's invocation record) sends the record as the payload. The data rule: a template that
 * places neither `data` nor `mock` carries the mock body, or else
 * an event's data, as its top-level `data` field.
 */
export function buildRequest(webhook: Webhook, delivery: Delivery, mock: unknown, userAgent = USER_AGENT): DeliveryRequest {
  const hasMock = webhook.mockEndpoint !== null;
  const vars: RenderVars = {
    timestamp: delivery.trigger === 'schedule' && delivery.scheduledFor ? delivery.scheduledFor : delivery.createdAt,
    webhook: { id: webhook.id, name: webhook.name },
    delivery: { id: delivery.id },
    trigger: delivery.trigger,
    event: delivery.event,
    // An event brings its own data; otherwise the mock body is the data.
    data: delivery.trigger === 'event' || !hasMock ? (delivery.eventData ?? null) : mock,
    mock: hasMock ? mock : undefined,
  };
  let payload = renderPayload(webhook.payloadTemplate, vars);
  // A function's destination record is the payload itself, as Lambda sends it (no template).
  if (delivery.trigger === 'destination') payload = delivery.eventData ?? null;
  else if (hasMock) payload = applyMockRule(webhook.payloadTemplate, payload, mock);
  // A test-fire with a catalogued type's example is shaped as that event's delivery would be.
  else if (delivery.trigger === 'event' || (delivery.trigger === 'test' && delivery.event !== null)) {
    payload = applyMockRule(webhook.payloadTemplate, payload, vars.data);
  }

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(webhook.headers)) {
    // The hop count is the service's to set: a configured one could restart a loop's count.
    const lower = name.toLowerCase();
    if (!SIGNATURE_HEADERS.has(lower) && lower !== DEPTH_HEADER) headers[name] = value;
  }
  const depth = depthOf(delivery.triggerDetail);
  if (depth > 0) headers[DEPTH_HEADER] = String(depth);
  const body = webhook.method === 'GET' ? null : JSON.stringify(payload);
  if (body !== null && !hasHeader(headers, 'content-type')) headers['content-type'] = 'application/json';
  if (!hasHeader(headers, 'user-agent')) headers['user-agent'] = userAgent;
  headers['webhook-id'] = delivery.id;
  return { method: webhook.method, url: webhook.targetUrl, headers, body };
}
