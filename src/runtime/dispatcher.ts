/**
 * The code that runs inside every function isolate, around the user's handler.
 * Its source is isolate/dispatcher.js (type-checked by tsconfig.isolate.json,
 * spliced with DISPATCHER_PLACEHOLDERS by scripts/build-sandbox.mjs into
 * dist/sandbox/dispatcher.js). Evaluated once per isolate with
 * `context.evalClosure(dispatcherSource(), [deliverRef, functionName, activity, userFile])`; it returns `init(factory, setup)`,
 * which runs the user's top level (`factory` is the user code wrapped as
 * `(function (exports, module) {...})`), picks the export to call
 * (handler-export.ts; `setup` is a DispatcherSetup as JSON) and returns
 * `dispatch(payload)`.
 *
 * Calling conventions are those of Lambda's Node.js runtime (up to Node.js
 * 22): the handler gets `(event, context, callback)`; the first of the
 * callback, `context.succeed/fail/done`, a synchronous throw and the settling
 * of a returned promise answers, later ones are ignored. A handler declaring
 * fewer than three parameters that returns something other than a promise
 * answers with that value (Switchyard's synchronous form); one declaring the
 * callback answers only through it or the context methods, as on Lambda.
 * An invocation completed by its own synchronous code is written out when
 * that code returns, so its console lines up to then stay its own.
 *
 * Concurrency model (as on Cloudflare Workers): one isolate serves every
 * concurrent invocation of one function version, so module scope is shared
 * between them.
 *
 * `dispatch` receives one batch as a string `headerJson\neventsJson`, calls
 * every handler, then waits a few microtask turns and returns, as one string,
 * the results that settled by then: one line per result, each the JSON of a
 * `ResultItem` (protocol.ts). Invocations still pending (awaiting
 * fetch, timers) are delivered later through `deliver` (an ivm Reference to a
 * host function), coalescing those that settle together. The worker parses
 * and checks every item before anything leaves it (isolate-output.ts).
 *
 * User code runs in this same context and may replace any global or builtin
 * method. So everything below is captured before user code runs and called
 * through `apply` (the captured Reflect.apply); results and log lines are
 * framed by string concatenation and JSON.stringify of primitives only (which
 * consults no prototype); the records kept here are object literals read
 * only through their own properties, or objects without a prototype. A
 * function can therefore break its own results (by throwing from a getter,
 * say), never the framing.
 *
 * `activity(busy)` tells the sandbox (sandbox/bootstrap.ts) when the first
 * invocation starts and the last one ends: outside invocations its timers
 * and fetches are dropped.
 *
 * console lines are attributed to the invocation whose code runs
 * synchronously; after an `await`, to the only invocation in flight if there
 * is exactly one, else to none (requestId null; such lines ride along with
 * the next result this isolate delivers).
 */
import { readFileSync } from 'node:fs';
import { AWS_ACCOUNT_ID, AWS_REGION } from '../aws-placeholders.js';
import { MAX_JSON_DEPTH } from '../json-limits.js';
import { LISTED_EXPORTS } from './handler-export.js';

export const MAX_LOG_LINES = 100;
export const MAX_LOG_LINE_CHARS = 8192;
/** Error messages of a failed invocation are cut to this many characters. */
export const MAX_ERROR_CHARS = 8192;
/** Room for the `[truncated: N characters]` note after a cut line or message. */
export const TRUNCATION_NOTE_CHARS = 64;
/** Lines one item may carry: its own, the orphans it picked up, and the "dropped" note. */
export const MAX_ITEM_LOG_LINES = 2 * MAX_LOG_LINES + 1;
export const LOG_LEVELS = ['log', 'info', 'warn', 'error', 'debug'] as const;
/** Microtask turns `dispatch` waits for handlers to settle before answering. */
const SETTLE_TURNS = 8;

/**
 * The host's values the dispatcher's text takes, by placeholder (`__NAME__`
 * in isolate/dispatcher.js): scripts/build-sandbox.mjs splices them in.
 */
export const DISPATCHER_PLACEHOLDERS: Record<string, string | number> = {
  MAX_LOG_LINES,
  MAX_LOG_LINE_CHARS,
  MAX_ERROR_CHARS,
  MAX_JSON_DEPTH,
  SETTLE_TURNS,
  LISTED_EXPORTS,
  AWS_REGION,
  AWS_ACCOUNT_ID,
};

/** Written by the sandbox build; the same path from src/ (vitest) and dist/. */
const DISPATCHER_FILE = new URL('../../dist/sandbox/dispatcher.js', import.meta.url);
let source: string | null = null;

/** The dispatcher's closure body, read once per process. */
export function dispatcherSource(): string {
  source ??= readFileSync(DISPATCHER_FILE, 'utf8');
  return source;
}
