/**
 * The store's typed errors: which failed constraint of which write means what
 * to the caller (the errors of src/errors.ts), written once for both
 * databases. Each dialect only says which kind of constraint its driver's
 * error reports (sqlite/db.ts, postgres/db.ts).
 */
import {
  ConflictError,
  InvalidRequestError,
  UnknownFunctionError,
  applicationNotFound,
  functionExists,
  functionInUse as functionInUseError,
  functionNotFound,
  routeConflict as routeConflictError,
  slotTaken,
  webhookNotFound,
} from '../../errors.js';
import type { NewDelivery } from '../../deliveries/types.js';
import type { Webhook, WebhookPatch } from '../../webhooks/types.js';
import type { NewRoute } from '../store.js';
import type { RouteRow } from './rows.js';

/** The kind of integrity constraint a driver error reports, or null for any other error. */
export type Constraint = 'unique' | 'foreign_key' | null;

/** The `code` property drivers put on their errors (SQLITE_CONSTRAINT_UNIQUE, SQLSTATE 23505, ...). */
export function driverCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

/** createFunction: a duplicate name. */
export function functionWriteError(err: unknown, failed: Constraint, name: string): unknown {
  return failed === 'unique' ? functionExists(name) : err;
}

/** deleteFunction while routes bind it. */
export function functionInUse(name: string, routes: readonly RouteRow[]): ConflictError {
  return functionInUseError(name, routes.map((r) => ({ apiId: r.api_id, id: r.id, method: r.method, path: r.path })));
}

/**
 * A route insert. The API row exists in every caller's transaction, so the only
 * reference that can fail is the function (`field` names it in the request).
 */
export function routeWriteError(err: unknown, failed: Constraint, route: NewRoute, field: string): unknown {
  return failed === 'foreign_key' ? new UnknownFunctionError(route.function, field) : err;
}

/** A route whose method and path shape another route of the API already has (`other`, when it could be read). */
export function routeConflict(route: NewRoute, other: RouteRow | undefined): ConflictError {
  if (other) return routeConflictError(route, other);
  // PostgreSQL: the clashing route went (deleted meanwhile) before it could be read.
  return new ConflictError('route_conflict', `${route.method} ${route.path} conflicts with an existing route`);
}

/** deleteApi while webhooks render from one of its routes (their mock endpoint holds it). */
export function apiInUse(id: string, webhooks: readonly Webhook[]): ConflictError {
  return new ConflictError('api_in_use', `API '${id}' is used by ${webhooks.length} webhook(s) as mock_endpoint`, {
    webhooks: webhooks.map((w) => w.id),
  });
}

/**
 * A webhook write breaks one of two references: a mock endpoint naming a missing API, or an
 * application deleted since the service resolved it (the driver does not say which, so the
 * write's fields do: without a mock endpoint it can only be the application).
 */
export function webhookWriteError(err: unknown, failed: Constraint, webhook: WebhookPatch): unknown {
  if (failed !== 'foreign_key') return err;
  if (webhook.applicationId && !webhook.mockEndpoint) return applicationNotFound(webhook.applicationId, 'application_id');
  return new InvalidRequestError(`mock_endpoint.api_id: API '${webhook.mockEndpoint?.apiId}' does not exist`, {
    field: 'mock_endpoint.api_id',
  });
}

/** createDelivery: a missing webhook or function, or a schedule slot fired before. */
export function deliveryWriteError(err: unknown, failed: Constraint, d: NewDelivery): unknown {
  if (failed === 'foreign_key') return targetNotFound(d);
  if (failed === 'unique') return slotTaken(`${d.scheduledFor}`, `${d.webhookId ?? d.functionName}`);
  return err;
}

/** A delivery naming a missing webhook or function. */
export function targetNotFound(d: NewDelivery): Error {
  return d.functionName ? functionNotFound(d.functionName) : webhookNotFound(`${d.webhookId}`);
}
