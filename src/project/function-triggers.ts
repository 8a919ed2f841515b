/**
 * A function's triggers as the project file holds them (`schedules`, `events`,
 * `async`) against what the server answers: defaults filled so that a value
 * left out equals the default, stable comparison (order of schedules and
 * events does not matter), and `async` destinations turned from names of the
 * file (`{webhook: name}`, `{function: name}`) into the API's
 * `{type: 'webhook', id}` / `{type: 'function', name}` and back. plan.ts,
 * apply.ts and export.ts share these so the three agree.
 */
import type { RemoteAsync, RemoteDestination, RemoteFunction, RemoteSchedule } from './api.js';
import { canonicalJson as canonical } from '../canonical-json.js';
import { PROJECT_DEFAULTS } from './defaults.js';
import type { ProjectAsync, ProjectDestination, ProjectFunction, ProjectSchedule } from './types.js';

export const TRIGGER_FIELDS = ['schedules', 'events', 'async'] as const;
export type TriggerField = (typeof TRIGGER_FIELDS)[number];

export function defaultAsync(): ProjectAsync {
  return { retries: PROJECT_DEFAULTS.async.retries, on_success: null, on_failure: null };
}

const isEmptyObject = (v: unknown) => v === null || v === undefined || (typeof v === 'object' && Object.keys(v as object).length === 0);

/** `timezone` filled, an empty or null `payload` left out: how both sides compare. */
export function normalizeSchedule(s: { cron: string; timezone?: string | null; payload?: Record<string, unknown> | null }): ProjectSchedule {
  const out: ProjectSchedule = { cron: s.cron.trim(), timezone: s.timezone ?? PROJECT_DEFAULTS.schedule.timezone };
  if (!isEmptyObject(s.payload)) out.payload = s.payload!;
  return out;
}


const sortedCanonical = (items: unknown[]) => items.map(canonical).sort().join('\n');

/** A server destination by name; a webhook id the server does not list stays as `{webhook: <id>}` (it differs from every name). */
export function destinationName(d: RemoteDestination | null | undefined, webhookNameOf: (id: string) => string | undefined): ProjectDestination | null {
  if (!d) return null;
  if (d.type === 'function') return { function: d.name };
  return { webhook: webhookNameOf(d.id) ?? d.id };
}

/** The server's `async`, destinations by name, defaults where a server older than async invocation answers nothing. */
export function remoteAsync(current: RemoteAsync | undefined, webhookNameOf: (id: string) => string | undefined): ProjectAsync {
  if (!current) return defaultAsync();
  return {
    retries: current.retries ?? PROJECT_DEFAULTS.async.retries,
    on_success: destinationName(current.on_success, webhookNameOf),
    on_failure: destinationName(current.on_failure, webhookNameOf),
  };
}

/** Which of schedules, events and async differ between the file and the server. */
export function triggerChanges(fn: ProjectFunction, current: RemoteFunction, webhookNameOf: (id: string) => string | undefined): TriggerField[] {
  const fields: TriggerField[] = [];
  if (sortedCanonical(fn.schedules.map(normalizeSchedule)) !== sortedCanonical((current.schedules ?? []).map(normalizeSchedule))) fields.push('schedules');
  if ([...fn.events].sort().join('\n') !== [...(current.events ?? [])].sort().join('\n')) fields.push('events');
  if (canonical(fn.async) !== canonical(remoteAsync(current.async, webhookNameOf))) fields.push('async');
  return fields;
}

export const isDefaultAsync = (a: ProjectAsync) => canonical(a) === canonical(defaultAsync());

/** What a destination names, to look up: does it exist on the server yet? */
export interface DestinationLookup {
  /** The id of the server's webhook of this name, once it exists. */
  webhookId(name: string): string | undefined;
  /** Whether the server holds a function of this name. */
  hasFunction(name: string): boolean;
}

/** A destination as the API takes it, or undefined while its webhook or function does not exist on the server. */
export function resolveDestination(d: ProjectDestination | null, lookup: DestinationLookup): RemoteDestination | null | undefined {
  if (d === null) return null;
  if ('webhook' in d) {
    const id = lookup.webhookId(d.webhook);
    return id === undefined ? undefined : { type: 'webhook', id };
  }
  return lookup.hasFunction(d.function) ? { type: 'function', name: d.function } : undefined;
}

/** The destinations (`on_success`, `on_failure`) that name what the server does not hold yet. */
export function pendingDestinations(a: ProjectAsync, lookup: DestinationLookup): Array<'on_success' | 'on_failure'> {
  return (['on_success', 'on_failure'] as const).filter((k) => resolveDestination(a[k], lookup) === undefined);
}

/** `async` for the API; a destination whose target does not exist yet is sent as null (a later update sets it). */
export function resolveAsync(a: ProjectAsync, lookup: DestinationLookup): RemoteAsync {
  return {
    retries: a.retries,
    on_success: resolveDestination(a.on_success, lookup) ?? null,
    on_failure: resolveDestination(a.on_failure, lookup) ?? null,
  };
}

/** `async` with the pending destinations left out: what the first write of a function sets. */
export function asyncWithout(a: ProjectAsync, pending: Array<'on_success' | 'on_failure'>): ProjectAsync {
  const out = { ...a };
  for (const k of pending) out[k] = null;
  return out;
}

/** Schedules as the API takes them (`timezone` always given, `payload` only when set). */
export function remoteSchedules(schedules: ProjectSchedule[]): RemoteSchedule[] {
  return schedules.map((s) => ({ ...s }));
}

/** The file's entries for a server function's triggers: only what differs from the defaults, destinations by name. */
export function exportTriggers(
  fn: RemoteFunction,
  webhookNameOf: (id: string) => string | undefined,
  notes: string[],
): Record<string, unknown> {
  const entry: Record<string, unknown> = {};
  if (fn.schedules && fn.schedules.length > 0) {
    entry.schedules = fn.schedules.map((s) => {
      const n = normalizeSchedule(s);
      const out: Record<string, unknown> = { cron: n.cron };
      if (n.timezone !== PROJECT_DEFAULTS.schedule.timezone) out.timezone = n.timezone;
      if (n.payload) out.payload = n.payload;
      return out;
    });
  }
  if (fn.events && fn.events.length > 0) entry.events = [...fn.events];
  if (fn.async) {
    const a = remoteAsync(fn.async, webhookNameOf);
    for (const k of ['on_success', 'on_failure'] as const) {
      const d = fn.async[k];
      if (d?.type === 'webhook' && webhookNameOf(d.id) === undefined) {
        notes.push(`functions.${fn.name}.async.${k}: webhook ${d.id} is not exported (no webhook of that id is listed); left out`);
        a[k] = null;
      }
    }
    if (!isDefaultAsync(a)) {
      const out: Record<string, unknown> = {};
      if (a.retries !== PROJECT_DEFAULTS.async.retries) out.retries = a.retries;
      if (a.on_success) out.on_success = a.on_success;
      if (a.on_failure) out.on_failure = a.on_failure;
      if (Object.keys(out).length > 0) entry.async = out;
    }
  }
  return entry;
}
