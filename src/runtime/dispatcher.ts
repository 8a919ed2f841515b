/**
 * The code that runs inside every function isolate, around the user's handler.
 * Evaluated once per isolate with `context.evalClosure(DISPATCHER_SOURCE,
 * [deliverRef, functionName])`; it returns `init(factory)`, which runs the user's
 * top level (`factory` is the user code wrapped as
 * `(function (exports, module) {...})`) and returns `dispatch(payload)`.
 *
 * Concurrency model (as on Cloudflare Workers): one isolate serves every
 * concurrent invocation of one function version, so module scope is shared
 * between them.
 *
 * `dispatch` receives one batch as a string `headerJson\neventsJson`, calls
 * every handler, then waits a few microtask turns and returns, as one string,
 * the results that settled by then: `"id,id,...\n" + "item,item,..."`.
 * Invocations still pending (awaiting fetch, timers) are delivered later
 * through `deliver` (an ivm Reference to a host function), coalescing those that
 * settle together. Items are the JSON of `ResultItem` (protocol.ts).
 *
 * console lines are attributed to the invocation whose code runs
 * synchronously; after an `await`, to the only invocation in flight if there
 * is exactly one, else to none (requestId null; such lines ride along with
 * the next result this isolate delivers).
 */
import { USER_FILENAME } from './protocol.js';

export const MAX_LOG_LINES = 100;
export const MAX_LOG_LINE_CHARS = 8192;
/** Microtask turns `dispatch` waits for handlers to settle before answering. */
const SETTLE_TURNS = 8;

export const DISPATCHER_SOURCE = `
'use strict';
const deliver = $0;
const functionName = $1;
const stringify = JSON.stringify;
const parse = JSON.parse;
const now = Date.now;
const resolved = Promise.resolve();
const then = Promise.prototype.then;
const PromiseCtor = Promise;
const ErrorCtor = Error;
const MAX_LINES = ${MAX_LOG_LINES};
const MAX_CHARS = ${MAX_LOG_LINE_CHARS};
const LINE_RE = /${USER_FILENAME.replace('.', '\\.')}:(\\d+):(\\d+)/;

const live = new Map();
let current = null;
let orphans = [];
let handler = null;
let late = null;

function show(v) {
  if (typeof v === 'string') return v;
  if (v instanceof ErrorCtor) return v.stack ? String(v.stack) : v.name + ': ' + v.message;
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') return String(v);
  try {
    const s = stringify(v);
    return s === undefined ? String(v) : s;
  } catch {
    return String(v);
  }
}

function line(level, args, requestId) {
  let message = '';
  for (let i = 0; i < args.length; i++) message += (i ? ' ' : '') + show(args[i]);
  if (message.length > MAX_CHARS) message = message.slice(0, MAX_CHARS) + ' [truncated: ' + message.length + ' characters]';
  return { time: new Date(now()).toISOString(), level, message, requestId };
}

function log(level, args) {
  let rec = current;
  if (rec === null && live.size === 1) rec = live.values().next().value;
  if (rec === null) {
    if (orphans.length < MAX_LINES) orphans.push(line(level, args, null));
    return;
  }
  if (rec.logs.length < MAX_LINES) rec.logs.push(line(level, args, rec.rid));
  else rec.dropped++;
}

const con = {
  log: (...a) => log('log', a),
  info: (...a) => log('info', a),
  warn: (...a) => log('warn', a),
  error: (...a) => log('error', a),
  debug: (...a) => log('debug', a),
};
Object.defineProperty(globalThis, 'console', { value: con, writable: true, configurable: true, enumerable: false });

function errorText(e) {
  if (e !== null && typeof e === 'object' && typeof e.message === 'string') {
    let text = (typeof e.name === 'string' && e.name ? e.name : 'Error') + ': ' + e.message;
    const m = typeof e.stack === 'string' ? LINE_RE.exec(e.stack) : null;
    if (m) text += ' (line ' + m[1] + ', column ' + m[2] + ')';
    return text;
  }
  return 'non-Error thrown: ' + show(e);
}

function logsOf(rec) {
  let logs = rec.logs;
  if (orphans.length) {
    logs = orphans.concat(logs).sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
    orphans = [];
  }
  if (rec.dropped) {
    logs.push({ time: new Date(now()).toISOString(), level: 'warn', requestId: rec.rid,
      message: '[' + rec.dropped + ' more console lines dropped: at most ' + MAX_LINES + ' per invocation]' });
  }
  return stringify(logs);
}

function finish(rec, text) {
  const batch = rec.batch;
  if (batch.open) {
    batch.ids.push(rec.id);
    batch.items.push(text);
    batch.remaining--;
    return;
  }
  if (late === null) {
    late = { ids: [rec.id], items: [text] };
    let n = 0;
    const tick = () => {
      if (++n < 3) { then.call(resolved, tick); return; }
      const out = late;
      late = null;
      deliver.applyIgnored(undefined, [out.ids.join(',') + '\\n' + out.items.join(',')]);
    };
    then.call(resolved, tick);
  } else {
    late.ids.push(rec.id);
    late.items.push(text);
  }
}

function fail(rec, code, message) {
  if (!live.delete(rec.id)) return;
  finish(rec, '{"i":' + rec.id + ',"ok":0,"c":"' + code + '","m":' + stringify(message) + ',"l":' + logsOf(rec) + '}');
}

function succeed(rec, value) {
  if (!live.has(rec.id)) return;
  let json;
  try {
    json = value === undefined ? undefined : stringify(value);
  } catch (e) {
    fail(rec, 'function_error', 'handler result is not JSON-serialisable: ' + errorText(e));
    return;
  }
  live.delete(rec.id);
  finish(rec, '{"i":' + rec.id + ',"ok":1' + (json === undefined ? '' : ',"r":' + json) + ',"l":' + logsOf(rec) + '}');
}

function closeBatch(batch) {
  batch.open = false;
  return batch.ids.join(',') + '\\n' + batch.items.join(',');
}

function dispatch(payload) {
  const nl = payload.indexOf('\\n');
  const head = parse(payload.slice(0, nl));
  let events = null;
  try { events = parse(payload.slice(nl + 1)); } catch {}
  const ids = head.ids, rids = head.rids, deadline = head.dl;
  const remainingTime = () => { const r = deadline - now(); return r > 0 ? r : 0; };
  const batch = { open: true, remaining: ids.length, ids: [], items: [] };
  for (let i = 0; i < ids.length; i++) {
    const rec = { id: ids[i], rid: rids[i], logs: [], dropped: 0, batch };
    live.set(rec.id, rec);
    if (events === null) { fail(rec, 'function_error', 'event is not valid JSON'); continue; }
    const ctx = { functionName, requestId: rec.rid, getRemainingTimeInMillis: remainingTime };
    let out;
    current = rec;
    try {
      out = handler(events[i], ctx);
    } catch (e) {
      current = null;
      fail(rec, 'function_error', errorText(e));
      continue;
    }
    current = null;
    if (out !== null && (typeof out === 'object' || typeof out === 'function') && typeof out.then === 'function') {
      const p = out instanceof PromiseCtor ? out : PromiseCtor.resolve(out);
      then.call(p, (v) => succeed(rec, v), (e) => fail(rec, 'function_error', errorText(e)));
    } else {
      succeed(rec, out);
    }
  }
  if (batch.remaining === 0) return closeBatch(batch);
  return new PromiseCtor((resolve) => {
    let n = 0;
    const tick = () => {
      if (batch.remaining === 0 || ++n > ${SETTLE_TURNS}) resolve(closeBatch(batch));
      else then.call(resolved, tick);
    };
    then.call(resolved, tick);
  });
}

return function init(factory) {
  const module = { exports: {} };
  try {
    factory.call(module.exports, module.exports, module);
  } catch (e) {
    throw new ErrorCtor('top-level code threw ' + errorText(e));
  }
  const exp = module.exports;
  const h = exp !== null && (typeof exp === 'object' || typeof exp === 'function') ? exp.handler : undefined;
  if (typeof h !== 'function') throw new ErrorCtor('no handler export: export a function named handler');
  handler = h;
  return dispatch;
};
`;
