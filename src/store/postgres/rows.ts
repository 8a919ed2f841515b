/**
 * Row shapes as PostgreSQL returns them, and their mapping to domain objects.
 * The columns match SQLite's (see migrations/postgres.ts), so the SQLite row
 * mappers are reused; what differs is bridged here: `enabled` is a boolean, and
 * child rows (routes of an API, attempts of a delivery) arrive aggregated as a
 * JSON column so a read is one statement, hence one snapshot.
 */
import type { Api } from '../../types.js';
import type { Webhook } from '../../webhooks/types.js';
import type { Delivery } from '../../deliveries/types.js';
import { toApi as apiFromRows, type ApiRow, type RouteRow } from '../sqlite/rows.js';
import {
  toDelivery as deliveryFromRows,
  toWebhook as webhookFromRow,
  type AttemptRow,
  type DeliveryRow,
  type WebhookRow,
} from '../sqlite/webhook-rows.js';

export { ATTEMPT_COLUMNS, jsonOrNull, webhookParams } from '../sqlite/webhook-rows.js';
export { toFunction, toLogLine, toRoute, type FunctionRow, type LogRow, type RouteRow } from '../sqlite/rows.js';

export type PgWebhookRow = Omit<WebhookRow, 'enabled'> & { enabled: boolean };
export type PgApiRow = ApiRow & { routes: RouteRow[] };
export type PgDeliveryRow = DeliveryRow & { attempts: AttemptRow[] };

/** An instant as the ISO text the type parser produces for plain columns (UTC, milliseconds, `Z`). */
export const isoSql = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The JSON object of one attempt row `a`, keyed like AttemptRow; `withResponse`
 * (the single-delivery read only) adds its response_json, kept as text.
 */
export const attemptJsonSql = (a: string, withResponse = false) =>
  `json_build_object('delivery_id', ${a}.delivery_id, 'attempt', ${a}.attempt, 'started_at', ${isoSql(`${a}.started_at`)},
    'duration_ms', ${a}.duration_ms, 'response_status', ${a}.response_status, 'error', ${a}.error,
    'outcome', ${a}.outcome, 'request_id', ${a}.request_id${withResponse ? `, 'response_json', ${a}.response_json` : ''})`;

/** The `attempts` column for delivery alias `d`: its attempts in order, as of the statement's snapshot. */
export const attemptsOfSql = (d: string, withResponses = false) =>
  `COALESCE((SELECT json_agg(${attemptJsonSql('a', withResponses)} ORDER BY a.attempt) FROM delivery_attempts a
    WHERE a.delivery_id = ${d}.id), '[]'::json) AS attempts`;

/** The `routes` column for API alias `x`: its routes in position order. */
export const routesOfSql = (x: string) =>
  `COALESCE((SELECT json_agg(json_build_object('id', r.id, 'api_id', r.api_id, 'method', r.method, 'path', r.path,
      'shape', r.shape, 'function_name', r.function_name, 'position', r.position) ORDER BY r.position)
    FROM routes r WHERE r.api_id = ${x}.id), '[]'::json) AS routes`;

export function toWebhook(r: PgWebhookRow): Webhook {
  return webhookFromRow({ ...r, enabled: r.enabled ? 1 : 0 });
}

export function toApi(r: PgApiRow): Api {
  return apiFromRows(r, r.routes);
}

export function toDelivery(r: PgDeliveryRow): Delivery {
  return deliveryFromRows(r, r.attempts);
}
