/**
 * The host side of the code that runs inside every function isolate around
 * the user's handler (isolate/dispatcher.js says what it does and why it is
 * written as it is): its limits, the constants spliced into its text, and
 * that text, which scripts/build-sandbox.mjs writes to dist/sandbox/dispatcher.js.
 * prepare.ts evaluates it once per isolate with
 * `context.evalClosure(dispatcherSource(), [deliverRef, functionName, activity, userFile])`;
 * it returns `init(factory, setup)`, which runs the user's top level
 * (`factory` is the user code wrapped as `(function (exports, module) {...})`),
 * picks the export to call (handler-export.ts; `setup` is a DispatcherSetup
 * as JSON) and returns `dispatch(payload)`.
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
