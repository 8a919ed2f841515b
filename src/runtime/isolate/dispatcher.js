// @ts-check
/**
 * The code that runs inside every function isolate, around the user's handler
 * (its limits and how the host loads it: ../dispatcher.ts).
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
 * `dispatch(payload, mode)` receives one batch as a string `headerJson\neventsJson`, calls
 * every handler, then waits a few microtask turns and returns, as one string,
 * the results that settled by then: one line per result, each the JSON of a
 * `ResultItem` (protocol.ts). Invocations still pending (awaiting
 * fetch, timers) are delivered later through `deliver` (an ivm Reference to a
 * host function), coalescing those that settle together. The worker parses
 * and checks every item before anything leaves it (isolate-output.ts).
 *
 * The host's synchronous fast path (isolate-host.ts) calls it with mode 1
 * through `applySync`: a batch not completed by the handlers' own synchronous
 * code returns null instead of waiting, and is kept open while isolated-vm
 * drains the microtask queue as that same call ends (inside its time limit),
 * so async handlers that await only settled values finish; the host then calls
 * mode 2, which closes that batch and returns what settled. Mode 0 is the
 * asynchronous path above.
 *
 * User code runs in this same context and may replace any global or builtin
 * method. So everything this code uses is captured before user code runs
 * and called through `apply` (the captured Reflect.apply); results and log lines are
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
 *
 * This file is never imported: the text between the two `isolate source`
 * marker lines is the closure body that ../dispatcher.ts evaluates with
 * `$0`..`$3` bound, after
 * `__NAME__` placeholders are replaced by the host's constants and the lines
 * that only give tsc a type are dropped (scripts/build-sandbox.mjs), so the
 * evaluated text is the code as written. The wrapping function only gives tsc
 * (tsconfig.isolate.json) the closure's parameters to check the body against.
 *
 * @param {DeliverRef} $0 the host's `deliver(text)`, as an ivm Reference
 * @param {string} $1 the function's name
 * @param {(what: 'activity', busy: 0 | 1) => void} $2 the sandbox's activity hook
 * @param {string} $3 the user's file as stack frames name it
 */
function dispatcherClosure($0, $1, $2, $3) {
// isolate source begins
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
const MAX_LINES = __MAX_LOG_LINES__;
const MAX_CHARS = __MAX_LOG_LINE_CHARS__;
const MAX_ERROR = __MAX_ERROR_CHARS__;
const MAX_DEPTH = __MAX_JSON_DEPTH__;
// The user's file as stack frames name it (prepare.ts; mapped to the user's positions by the sandbox).
const userFile = $3;
const LINE_RE = /^(\d+):(\d+)/;

// Invocations in flight, by id (no prototype: nothing user code defines is ever consulted).
/** @type {Record<number, Rec>} */
let live = create(null);
let liveCount = 0;
/** @type {Rec | null} */
let current = null;
/** @type {List<string>} */
let orphans = newList();
/** @type {Function | null} */
let handler = null;
let arity = 0;
/** @type {string | null} */
let late = null;
// The invocation-independent part of the Lambda context, set by init.
let functionVersion = '';
let invokedFunctionArn = '';
let memoryLimitInMB = '';
let logGroupName = '';
let logStreamName = '';

/** An append-only list without a prototype: { n, 0: ..., 1: ... }. */
/** @returns {List<any>} */
function newList() {
  const l = create(null);
  l.n = 0;
  return l;
}
/** @type {<T>(l: List<T>, v: T) => void} */
function listPush(l, v) {
  l[l.n] = v;
  l.n++;
}

/** @type {(text: string, max: number) => string} */
function cut(text, max) {
  if (text.length <= max) return text;
  return apply(sliceString, text, [0, max]) + ' [truncated: ' + text.length + ' characters]';
}

/** @type {(v: unknown) => string} */
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
/** @type {(level: string, message: string, rid: string | null) => string} */
function lineText(level, message, rid) {
  const time = apply(toISOString, new DateCtor(now()), []);
  return '{"time":"' + time + '","level":"' + level + '","message":' + stringify(message) +
    ',"requestId":' + (rid === null ? 'null' : stringify(rid)) + '}';
}
// '{"time":"' is 9 characters; an ISO time of this era is 24.
/** @type {(text: string) => string} */
function timeOf(text) {
  return apply(sliceString, text, [9, 33]);
}

function onlyLive() {
  for (const id in live) return live[id];
  return null;
}

/** @type {(level: string, args: unknown[]) => void} */
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

/** @type {Record<string, (...a: unknown[]) => void>} */
const con = {
  log: (...a) => log('log', a),
  info: (...a) => log('info', a),
  warn: (...a) => log('warn', a),
  error: (...a) => log('error', a),
  debug: (...a) => log('debug', a),
};
defineProperty(globalThis, 'console', { value: con, writable: true, configurable: true, enumerable: false });

/** @type {(e: any) => string} */
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
/** @type {(rec: Rec) => string} */
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
/** @type {(rec: Rec, head: string) => void} */
function finish(rec, head) {
  if (current === rec) {
    rec.head = head;
    return;
  }
  deliverItem(rec, head + ',"l":' + logsOf(rec) + '}');
}

/** @type {(rec: Rec) => void} */
function finishDeferred(rec) {
  const head = rec.head;
  rec.head = null;
  deliverItem(rec, head + ',"l":' + logsOf(rec) + '}');
}

/** @type {(rec: Rec, text: string) => void} */
function deliverItem(rec, text) {
  const batch = rec.batch;
  if (batch.open) {
    batch.out += (batch.out === '' ? '' : '\n') + text;
    batch.remaining--;
    return;
  }
  if (late === null) {
    late = text;
    flushLate();
  } else {
    late += '\n' + text;
  }
}

/** @type {(rec: Rec) => boolean} */
function forget(rec) {
  if (live[rec.id] !== rec) return false;
  delete live[rec.id];
  if (--liveCount === 0) activity('activity', 0);
  return true;
}

/** @type {(rec: Rec, code: string, message: string) => void} */
function fail(rec, code, message) {
  if (!forget(rec)) return;
  finish(rec, '{"i":' + rec.id + ',"ok":0,"c":"' + code + '","m":' + stringify(message));
}

/** Mirrors json-limits valueTooDeep: iterative, so it never overflows itself. */
/** @type {(value: object) => boolean} */
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

/** @type {(rec: Rec, value: unknown, e: string) => void} */
function unserialisable(rec, value, e) {
  let deep = false;
  try { deep = value !== null && typeof value === 'object' && tooDeep(value); } catch {}
  if (deep) {
    fail(rec, 'invalid_result', "Function '" + functionName + "' returned a result nested deeper than " + MAX_DEPTH + ' levels of arrays and objects');
  } else {
    fail(rec, 'invalid_result', "Function '" + functionName + "' returned a result that cannot be serialised as JSON: " + e);
  }
}

/** @type {(rec: Rec, value: unknown) => void} */
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

/** @type {(rec: Rec, pending: unknown) => Promise<void>} */
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
/** @type {(err: any) => string} */
function reasonText(err) {
  try {
    if (typeof err === 'object' && typeof err.message === 'string') return errorText(err);
    return cut(StringCtor(err), MAX_ERROR);
  } catch {
    return 'the callback was given an error whose message, name or string form cannot be read';
  }
}

/** The callback and context.done: the first completion of an invocation wins, as on Lambda. */
/** @type {(rec: Rec, err: unknown, result: unknown) => void} */
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
/** @type {(rec: Rec, remaining: () => number) => LambdaContext} */
function contextFor(rec, remaining) {
  /** @type {(err: unknown, result: unknown) => void} */
  const done = (err, result) => complete(rec, err, result);
  rec.callback = done;
  return {
    functionName,
    functionVersion,
    invokedFunctionArn,
    memoryLimitInMB,
    awsRequestId: rec.rid,
    requestId: rec.rid,
    traceparent: rec.tp,
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

/** @type {(batch: Batch) => Promise<string>} */
async function settleTurns(batch) {
  for (let n = 0; n < __SETTLE_TURNS__ && batch.remaining > 0; n++) await undefined;
  batch.open = false;
  return batch.out;
}

/** The batch a mode 1 call left open for mode 2 to close. */
/** @type {Batch | null} */
let held = null;

/** @type {(payload: string, mode: number) => string | null | Promise<string>} */
function dispatch(payload, mode) {
  if (mode === 2) {
    const open = held;
    held = null;
    if (open === null) return '';
    open.open = false;
    return open.out;
  }
  const nl = apply(indexOfString, payload, ['\n']);
  const head = parse(apply(sliceString, payload, [0, nl]));
  let events = null;
  try { events = parse(apply(sliceString, payload, [nl + 1])); } catch {}
  const ids = head.ids, rids = head.rids, deadline = head.dl, tps = head.tps;
  const remainingTime = () => { const r = deadline - now(); return r > 0 ? r : 0; };
  const batch = { open: true, remaining: ids.length, out: '' };
  for (let i = 0; i < ids.length; i++) {
    const tp = tps === undefined || tps[i] === null ? undefined : apply(sliceString, tps[i], [0, 55]);
    const rec = { id: ids[i], rid: rids[i], tp, logs: newList(), dropped: 0, batch, head: null, callback: null };
    live[rec.id] = rec;
    if (liveCount++ === 0) activity('activity', 1);
    if (events === null) { fail(rec, 'function_error', 'event is not valid JSON'); continue; }
    const ctx = contextFor(rec, remainingTime);
    let out;
    current = rec;
    try {
      // @ts-expect-error init sets the handler before the first dispatch
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
  if (mode === 1) {
    held = batch;
    return null;
  }
  return settleTurns(batch);
}


/** @type {(v: unknown) => v is Record<string, any>} */
function isObjectLike(v) {
  return v !== null && (typeof v === 'object' || typeof v === 'function');
}
/** @type {(v: unknown) => string} */
function kindOf(v) {
  if (v === null) return 'null';
  if (isArray(v)) return 'an array';
  const t = typeof v;
  return (t === 'object' || t === 'undefined' ? 'an ' : 'a ') + t;
}
/** The exports as the user sees them: a function module.exports counts as the default. */
/** @type {(exp: unknown) => { names: string[], text: string }} */
function exportNames(exp) {
  /** @type {string[]} */
  let names = [];
  try { if (isObjectLike(exp)) names = keys(exp); } catch {}
  let list = typeof exp === 'function' ? 'default (module.exports)' : '';
  const shown = names.length < __LISTED_EXPORTS__ ? names.length : __LISTED_EXPORTS__;
  for (let i = 0; i < shown; i++) list += (list === '' ? '' : ', ') + cut(StringCtor(names[i]), 64);
  if (names.length > shown) list += ', and ' + (names.length - shown) + ' more';
  return { names, text: list === '' ? 'none' : list };
}
/** @type {(obj: unknown, key: string) => any} */
function read(obj, key) {
  try { return isObjectLike(obj) ? obj[key] : undefined; } catch { return undefined; }
}
/** @type {(exp: unknown, setup: DispatcherSetup) => Function} */
function chooseExport(exp, setup) {
  const found = exportNames(exp);
  const listed = '; exports found: ' + found.text;
  if (setup.path !== null) {
    let v = exp;
    for (let i = 0; i < setup.path.length; i++) v = read(v, setup.path[i]);
    if (v === undefined && setup.path.length === 1 && setup.path[0] === 'default' && typeof exp === 'function') v = exp;
    if (typeof v === 'function') return v;
    const name = apply(joinList, setup.path, ['.']);
    const from = setup.handler === name ? '' : " (handler '" + setup.handler + "')";
    if (v === undefined) throw new ErrorCtor("no export named '" + name + "'" + from + listed);
    throw new ErrorCtor("export '" + name + "'" + from + ' is ' + kindOf(v) + ', not a function' + listed);
  }
  const named = read(exp, 'handler');
  if (typeof named === 'function') return named;
  if (named !== undefined) throw new ErrorCtor("export 'handler' is " + kindOf(named) + ', not a function' + listed);
  if (typeof exp === 'function') return exp;
  const def = read(exp, 'default');
  if (typeof def === 'function') return def;
  let only = null;
  let count = 0;
  for (let i = 0; i < found.names.length; i++) {
    const v = read(exp, found.names[i]);
    if (typeof v === 'function') { only = v; count++; }
  }
  if (count === 1) return only;
  if (count > 1) {
    throw new ErrorCtor("no export named 'handler' or 'default' and " + count +
      ' exported functions: set the handler field to the one to call' + listed);
  }
  throw new ErrorCtor("no function to call: export one named 'handler' or a default export" + listed);
}


/** @type {(n: number) => string} */
function hex(n) {
  let out = '';
  for (let i = 0; i < n; i++) out += '0123456789abcdef'[floor(random() * 16)];
  return out;
}

/** @type {(factory: Function, setupJson: string) => typeof dispatch} */
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
  invokedFunctionArn = 'arn:aws:lambda:__AWS_REGION__:__AWS_ACCOUNT_ID__:function:' + functionName;
  memoryLimitInMB = StringCtor(setup.memoryMb);
  logGroupName = '/aws/lambda/' + functionName;
  const day = apply(toISOString, new DateCtor(now()), []);
  logStreamName = apply(sliceString, day, [0, 4]) + '/' + apply(sliceString, day, [5, 7]) + '/' +
    apply(sliceString, day, [8, 10]) + '/[' + functionVersion + ']' + hex(32);
  return dispatch;
};
// isolate source ends
}
