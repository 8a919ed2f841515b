/**
 * The code that runs inside every function isolate, around the user's handler.
 * Evaluated once per isolate with `context.evalClosure(DISPATCHER_SOURCE,
 * [deliverRef, functionName, activity, userFile])`; it returns `init(factory, setup)`,
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
import { AWS_ACCOUNT_ID, AWS_REGION } from '../aws-placeholders.js';
import { MAX_JSON_DEPTH } from '../json-limits.js';
import { CHOOSE_EXPORT_SOURCE } from './handler-export.js';

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

export const DISPATCHER_SOURCE = `
'use strict';
const deliver = $0;
const functionName = $1;
const activity = $2;
const apply = Reflect.apply;
const deliverApply = deliver.applyIgnored;
const stringify = JSON.stringify;
const parse = JSON.parse;
const now = Date.now;
const DateCtor = Date;
const toISOString = Date.prototype.toISOString;
const sliceString = String.prototype.slice;
const indexOfString = String.prototype.indexOf;
const execRegExp = RegExp.prototype.exec;
const isArray = Array.isArray;
const objectValues = Object.values;
const keys = Object.keys;
const joinList = Array.prototype.join;
const random = Math.random;
const floor = Math.floor;
const create = Object.create;
const defineProperty = Object.defineProperty;
const StringCtor = String;
const ErrorCtor = Error;
const MAX_LINES = ${MAX_LOG_LINES};
const MAX_CHARS = ${MAX_LOG_LINE_CHARS};
const MAX_ERROR = ${MAX_ERROR_CHARS};
const MAX_DEPTH = ${MAX_JSON_DEPTH};
// The user's file as stack frames name it (prepare.ts; mapped to the user's positions by the sandbox).
const userFile = $3;
const LINE_RE = /^(\\d+):(\\d+)/;

// Invocations in flight, by id (no prototype: nothing user code defines is ever consulted).
let live = create(null);
let liveCount = 0;
let current = null;
let orphans = newList();
let handler = null;
let arity = 0;
let late = null;
// The invocation-independent part of the Lambda context, set by init.
let functionVersion = '';
let invokedFunctionArn = '';
let memoryLimitInMB = '';
let logGroupName = '';
let logStreamName = '';

/** An append-only list without a prototype: { n, 0: ..., 1: ... }. */
function newList() {
  const l = create(null);
  l.n = 0;
  return l;
}
function listPush(l, v) {
  l[l.n] = v;
  l.n++;
}

function cut(text, max) {
  if (text.length <= max) return text;
  return apply(sliceString, text, [0, max]) + ' [truncated: ' + text.length + ' characters]';
}

function show(v) {
  if (typeof v === 'string') return v;
  if (v instanceof ErrorCtor) return v.stack ? StringCtor(v.stack) : v.name + ': ' + v.message;
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') return StringCtor(v);
  try {
    const s = stringify(v);
    return s === undefined ? StringCtor(v) : s;
  } catch {
    return StringCtor(v);
  }
}

/** One console line as JSON text; the time comes first, so texts sort by time. */
function lineText(level, message, rid) {
  const time = apply(toISOString, new DateCtor(now()), []);
  return '{"time":"' + time + '","level":"' + level + '","message":' + stringify(message) +
    ',"requestId":' + (rid === null ? 'null' : stringify(rid)) + '}';
}
// '{"time":"' is 9 characters; an ISO time of this era is 24.
function timeOf(text) {
  return apply(sliceString, text, [9, 33]);
}

function onlyLive() {
  for (const id in live) return live[id];
  return null;
}

function log(level, args) {
  let message = '';
  for (let i = 0; i < args.length; i++) message += (i ? ' ' : '') + show(args[i]);
  message = cut(message, MAX_CHARS);
  let rec = current;
  if (rec === null && liveCount === 1) rec = onlyLive();
  if (rec === null) {
    if (orphans.n < MAX_LINES) listPush(orphans, lineText(level, message, null));
    return;
  }
  if (rec.logs.n < MAX_LINES) listPush(rec.logs, lineText(level, message, rec.rid));
  else rec.dropped++;
}

const con = {
  log: (...a) => log('log', a),
  info: (...a) => log('info', a),
  warn: (...a) => log('warn', a),
  error: (...a) => log('error', a),
  debug: (...a) => log('debug', a),
};
defineProperty(globalThis, 'console', { value: con, writable: true, configurable: true, enumerable: false });

function errorText(e) {
  let text;
  if (e !== null && typeof e === 'object' && typeof e.message === 'string') {
    text = (typeof e.name === 'string' && e.name ? e.name : 'Error') + ': ' + e.message;
    const stack = e.stack;
    const at = typeof stack === 'string' ? apply(indexOfString, stack, [userFile + ':']) : -1;
    const m = at < 0 ? null : apply(execRegExp, LINE_RE, [apply(sliceString, stack, [at + userFile.length + 1])]);
    if (m) text += ' (' + userFile + ', line ' + m[1] + ', column ' + m[2] + ')';
  } else {
    text = 'non-Error thrown: ' + show(e);
  }
  return cut(text, MAX_ERROR);
}

/** The JSON array of a record's lines, merged in time order with the orphans it picks up. */
function logsOf(rec) {
  const own = rec.logs;
  let out = '';
  let a = 0;
  let b = 0;
  const o = orphans;
  if (o.n > 0) orphans = newList();
  while (a < o.n || b < own.n) {
    let next;
    if (b >= own.n || (a < o.n && timeOf(o[a]) <= timeOf(own[b]))) next = o[a++];
    else next = own[b++];
    out += (out === '' ? '' : ',') + next;
  }
  if (rec.dropped) {
    const note = lineText('warn', '[' + rec.dropped + ' more console lines dropped: at most ' + MAX_LINES + ' per invocation]', rec.rid);
    out += (out === '' ? '' : ',') + note;
  }
  return '[' + out + ']';
}

async function flushLate() {
  for (let n = 0; n < 3; n++) await undefined;
  const text = late;
  late = null;
  try {
    apply(deliverApply, deliver, [undefined, [text]]);
  } catch {
    // The isolate is being disposed: nobody is waiting any more.
  }
}

/** Writes out a completed invocation, unless its own synchronous code is still running (dispatch writes it then). */
function finish(rec, head) {
  if (current === rec) {
    rec.head = head;
    return;
  }
  deliverItem(rec, head + ',"l":' + logsOf(rec) + '}');
}

function finishDeferred(rec) {
  const head = rec.head;
  rec.head = null;
  deliverItem(rec, head + ',"l":' + logsOf(rec) + '}');
}

function deliverItem(rec, text) {
  const batch = rec.batch;
  if (batch.open) {
    batch.out += (batch.out === '' ? '' : '\\n') + text;
    batch.remaining--;
    return;
  }
  if (late === null) {
    late = text;
    flushLate();
  } else {
    late += '\\n' + text;
  }
}

function forget(rec) {
  if (live[rec.id] !== rec) return false;
  delete live[rec.id];
  if (--liveCount === 0) activity('activity', 0);
  return true;
}

function fail(rec, code, message) {
  if (!forget(rec)) return;
  finish(rec, '{"i":' + rec.id + ',"ok":0,"c":"' + code + '","m":' + stringify(message));
}

/** Mirrors json-limits valueTooDeep: iterative, so it never overflows itself. */
function tooDeep(value) {
  const stack = newList();
  listPush(stack, value);
  listPush(stack, 1);
  let visited = 0;
  while (stack.n > 0) {
    const depth = stack[--stack.n];
    const node = stack[--stack.n];
    if (depth > MAX_DEPTH || ++visited > 1000000) return true;
    const children = isArray(node) ? node : objectValues(node);
    for (let i = 0; i < children.length; i++) {
      const c = children[i];
      if (c !== null && typeof c === 'object') { listPush(stack, c); listPush(stack, depth + 1); }
    }
  }
  return false;
}

function unserialisable(rec, value, e) {
  let deep = false;
  try { deep = value !== null && typeof value === 'object' && tooDeep(value); } catch {}
  if (deep) {
    fail(rec, 'invalid_result', "Function '" + functionName + "' returned a result nested deeper than " + MAX_DEPTH + ' levels of arrays and objects');
  } else {
    fail(rec, 'invalid_result', "Function '" + functionName + "' returned a result that cannot be serialised as JSON: " + e);
  }
}

function succeed(rec, value) {
  if (live[rec.id] !== rec) return;
  let json;
  if (value !== undefined) {
    const t = typeof value;
    if (t === 'function' || t === 'symbol') return unserialisable(rec, value, 'it is a ' + t);
    try {
      json = stringify(value);
    } catch (e) {
      return unserialisable(rec, value, errorText(e));
    }
    if (typeof json !== 'string') return unserialisable(rec, value, 'it serialises to nothing');
  }
  forget(rec);
  finish(rec, '{"i":' + rec.id + ',"ok":1' + (json === undefined ? '' : ',"r":' + json));
}

async function settleLater(rec, pending) {
  let value;
  try {
    value = await pending;
  } catch (e) {
    fail(rec, 'function_error', errorText(e));
    return;
  }
  succeed(rec, value);
}

/** An error given to the callback or context.fail/done: an Error as thrown, anything else stringified as Lambda does. */
function reasonText(err) {
  try {
    if (typeof err === 'object' && typeof err.message === 'string') return errorText(err);
    return cut(StringCtor(err), MAX_ERROR);
  } catch {
    return 'the callback was given an error whose message, name or string form cannot be read';
  }
}

/** The callback and context.done: the first completion of an invocation wins, as on Lambda. */
function complete(rec, err, result) {
  if (live[rec.id] !== rec) return;
  if (err !== undefined && err !== null) fail(rec, 'function_error', reasonText(err));
  else succeed(rec, result);
}

/**
 * Lambda's context (docs/functions.md). callbackWaitsForEmptyEventLoop is
 * kept but changes nothing: the callback answers at once, and what the
 * invocation left pending dies with it (see the sandbox's activity hook).
 */
function contextFor(rec, remaining) {
  const done = (err, result) => complete(rec, err, result);
  rec.callback = done;
  return {
    functionName,
    functionVersion,
    invokedFunctionArn,
    memoryLimitInMB,
    awsRequestId: rec.rid,
    requestId: rec.rid,
    logGroupName,
    logStreamName,
    clientContext: undefined,
    identity: undefined,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: remaining,
    succeed: (result) => complete(rec, null, result),
    fail: (err) => complete(rec, err === undefined || err === null ? 'handled' : err, undefined),
    done,
  };
}

async function settleTurns(batch) {
  for (let n = 0; n < ${SETTLE_TURNS} && batch.remaining > 0; n++) await undefined;
  batch.open = false;
  return batch.out;
}

function dispatch(payload) {
  const nl = apply(indexOfString, payload, ['\\n']);
  const head = parse(apply(sliceString, payload, [0, nl]));
  let events = null;
  try { events = parse(apply(sliceString, payload, [nl + 1])); } catch {}
  const ids = head.ids, rids = head.rids, deadline = head.dl;
  const remainingTime = () => { const r = deadline - now(); return r > 0 ? r : 0; };
  const batch = { open: true, remaining: ids.length, out: '' };
  for (let i = 0; i < ids.length; i++) {
    const rec = { id: ids[i], rid: rids[i], logs: newList(), dropped: 0, batch, head: null, callback: null };
    live[rec.id] = rec;
    if (liveCount++ === 0) activity('activity', 1);
    if (events === null) { fail(rec, 'function_error', 'event is not valid JSON'); continue; }
    const ctx = contextFor(rec, remainingTime);
    let out;
    current = rec;
    try {
      out = handler(events[i], ctx, rec.callback);
    } catch (e) {
      current = null;
      // Completed through the callback before the throw: that answer stands.
      if (rec.head !== null) finishDeferred(rec);
      else fail(rec, 'function_error', errorText(e));
      continue;
    }
    current = null;
    if (rec.head !== null) finishDeferred(rec);
    let thenable = false;
    try {
      thenable = out !== null && (typeof out === 'object' || typeof out === 'function') && typeof out.then === 'function';
    } catch (e) {
      fail(rec, 'function_error', errorText(e));
      continue;
    }
    // Each is a no-op once the invocation has completed (first wins).
    if (thenable) settleLater(rec, out);
    else if (arity < 3) succeed(rec, out);
    // else: a callback-style handler's return value is ignored, as on Lambda.
  }
  if (batch.remaining === 0) {
    batch.open = false;
    return batch.out;
  }
  return settleTurns(batch);
}

${CHOOSE_EXPORT_SOURCE}

function hex(n) {
  let out = '';
  for (let i = 0; i < n; i++) out += '0123456789abcdef'[floor(random() * 16)];
  return out;
}

return function init(factory, setupJson) {
  const setup = parse(setupJson);
  const module = { exports: {} };
  try {
    apply(factory, module.exports, [module.exports, module]);
  } catch (e) {
    throw new ErrorCtor('top-level code threw ' + errorText(e));
  }
  handler = chooseExport(module.exports, setup);
  let declared = 0;
  try { declared = handler.length; } catch {}
  arity = typeof declared === 'number' ? declared : 0;
  functionVersion = StringCtor(setup.version);
  invokedFunctionArn = 'arn:aws:lambda:${AWS_REGION}:${AWS_ACCOUNT_ID}:function:' + functionName;
  memoryLimitInMB = StringCtor(setup.memoryMb);
  logGroupName = '/aws/lambda/' + functionName;
  const day = apply(toISOString, new DateCtor(now()), []);
  logStreamName = apply(sliceString, day, [0, 4]) + '/' + apply(sliceString, day, [5, 7]) + '/' +
    apply(sliceString, day, [8, 10]) + '/[' + functionVersion + ']' + hex(32);
  return dispatch;
};
`;
