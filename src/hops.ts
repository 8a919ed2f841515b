/**
 * One hop count for every way a run of a function can cause another: an
 * `emit()` that reaches a subscribed function or webhook, a destination that
 * receives a run's record, a webhook delivery or an asynchronous invoke that
 * reaches one of this server's own routes. Each is a hop; a chain that would
 * go past MAX_HOPS is stopped, whatever mix of kinds it is made of (a guard
 * per kind can be walked around by alternating kinds).
 *
 * Where the depth travels: in a run's record (a function-target delivery's
 * `depth`, a webhook delivery's trigger detail), and over HTTP in the
 * `Switchyard-Depth` header, which webhook deliveries send and the gateway,
 * the invoke endpoint and `POST /api/events` read.
 *
 * The runtime does not say which run made an emit (one isolate serves many
 * calls at once), so an emit takes the deepest depth among the function's
 * runs in progress on this process, plus one: a chain may be cut short when
 * runs of one function overlap at different depths, never let past the bound.
 * Runs at depth 0 (started from outside) are the default and not tracked.
 */
import { InvalidRequestError } from './errors.js';

/** A chain of runs stops after this many hops. */
export const MAX_HOPS = 16;

/** The HTTP header that carries a request's depth (lower case, as node reads it). */
export const DEPTH_HEADER = 'switchyard-depth';

/** The header's value as a depth; a 400 naming it when it is not one. */
export function parseDepth(value: string): number {
  if (!/^[0-9]{1,3}$/.test(value)) {
    throw new InvalidRequestError('Switchyard-Depth must be a hop count (0 to 999)', { field: 'Switchyard-Depth' });
  }
  return Number(value);
}

/** The depth of a management request (`Switchyard-Depth`, as Fastify's headers hold it): 0 when absent. */
export function requestDepth(headers: Record<string, string | string[] | undefined>): number {
  const given = headers[DEPTH_HEADER];
  if (given === undefined) return 0;
  if (Array.isArray(given)) throw new InvalidRequestError('Switchyard-Depth was sent more than once', { field: 'Switchyard-Depth' });
  return parseDepth(given);
}

/** The OpenAPI description of the header, for the endpoints that read it. */
export const DEPTH_HEADER_SCHEMA = {
  type: 'string',
  description:
    'The hop count of a request made by a chain of runs (webhook deliveries send it); past 16 the request is refused with 508 `loop_stopped`',
} as const;

/** The depth a run's record carries (0 when it has none). */
export function depthOf(detail: Record<string, unknown> | null | undefined): number {
  const depth = detail?.depth;
  return typeof depth === 'number' && Number.isInteger(depth) && depth > 0 ? depth : 0;
}

/** A run in progress above depth 0; `stopped` says why an emit of it was refused. */
export interface TrackedRun {
  depth: number;
  stopped: string | null;
}

/** What an emit of a function would be: its depth, and the runs it is counted from. */
export interface NextHop {
  depth: number;
  /** The deepest runs of the function in progress, by id (invocation or request id). */
  from: Map<string, TrackedRun>;
}

/** The runs in progress on this process that are part of a chain, per function. */
export class RunDepths {
  private readonly runs = new Map<string, Map<string, TrackedRun>>();

  /** Notes a run of `fn` at `depth`; null (nothing to undo) at depth 0. */
  enter(fn: string, id: string, depth: number): TrackedRun | null {
    if (depth <= 0) return null;
    const run: TrackedRun = { depth, stopped: null };
    let runs = this.runs.get(fn);
    if (!runs) this.runs.set(fn, (runs = new Map()));
    runs.set(id, run);
    return run;
  }

  leave(fn: string, id: string): void {
    const runs = this.runs.get(fn);
    runs?.delete(id);
    if (runs?.size === 0) this.runs.delete(fn);
  }

  /** The depth of what a run of `fn` causes now: one more than its deepest run in progress (1 when none is tracked). */
  next(fn: string): NextHop {
    const from = new Map<string, TrackedRun>();
    let deepest = 0;
    for (const [id, run] of this.runs.get(fn) ?? []) {
      if (run.depth > deepest) {
        deepest = run.depth;
        from.clear();
      }
      if (run.depth === deepest) from.set(id, run);
    }
    return { depth: deepest + 1, from };
  }
}
