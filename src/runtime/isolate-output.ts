/**
 * The worker's reading of what an isolate hands back (the `item,item,...`
 * text of dispatcher.ts), which is untrusted input: user code shares the
 * isolate with the dispatcher. The text is parsed here, every item checked
 * (an id this isolate has in flight, the shape of a ResultItem, bounded log
 * lines carrying no other invocation's request id), and what passes is
 * serialised again by the worker, so nothing the isolate wrote goes to the
 * main process as is. One item the isolate should never produce makes the
 * whole output malformed: the caller then discards that isolate.
 *
 * Results nested deeper than MAX_JSON_DEPTH become `invalid_result` items
 * here (the dispatcher only catches those JSON.stringify itself cannot write).
 */
import { MAX_JSON_DEPTH, jsonTextTooDeep, valueTooDeep } from '../json-limits.js';
import type { InvocationErrorCode } from '../errors.js';
import { LOG_LEVELS, MAX_ERROR_CHARS, MAX_ITEM_LOG_LINES, MAX_LOG_LINE_CHARS, TRUNCATION_NOTE_CHARS } from './dispatcher.js';

/**
 * `text`: the accepted items, serialised here, comma-joined; `ids`: their
 * invocations; `late`: ids the host had already answered (dropped).
 */
export type OutputVerdict =
  | { ok: true; text: string; ids: number[]; late: number[] | null }
  | { ok: false; reason: string };

/** The only failure codes an isolate may report; timeouts, memory and crashes are the host's to decide. */
const ISOLATE_CODES: ReadonlySet<string> = new Set<InvocationErrorCode>(['function_error', 'invalid_result']);
const LEVELS: ReadonlySet<string> = new Set(LOG_LEVELS);
/** `2026-01-01T00:00:00.000Z`, with room for an expanded year. */
const MAX_TIME_CHARS = 32;

const malformed = (reason: string): OutputVerdict => ({ ok: false, reason });

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The log lines of one item as JSON text, or null when they are not lines the dispatcher writes. */
function logsText(l: unknown, rid: string): string | null {
  if (!Array.isArray(l) || l.length > MAX_ITEM_LOG_LINES) return null;
  if (l.length === 0) return '[]';
  let out = '';
  for (const line of l) {
    if (!isRecord(line)) return null;
    const { time, level, message, requestId } = line;
    if (typeof time !== 'string' || time.length > MAX_TIME_CHARS) return null;
    if (typeof level !== 'string' || !LEVELS.has(level)) return null;
    if (typeof message !== 'string' || message.length > MAX_LOG_LINE_CHARS + TRUNCATION_NOTE_CHARS) return null;
    if (requestId !== null && requestId !== rid) return null;
    out += (out ? ',' : '') + JSON.stringify({ time, level, message, requestId });
  }
  return '[' + out + ']';
}

/**
 * Reads one output of the isolate that has `inflight` (id -> request id) in
 * flight. `answered` holds ids of that isolate the host already failed (a
 * deadline): their late results are dropped, not an error. `deepMessage` is
 * the error text for a result nested too deep.
 */
export function readIsolateOutput(
  text: unknown,
  inflight: ReadonlyMap<number, string>,
  answered: ReadonlySet<number>,
  deepMessage: string,
): OutputVerdict {
  if (typeof text !== 'string') return malformed(`output is a ${typeof text}, not text`);
  if (text === '') return { ok: true, text: '', ids: [], late: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse('[' + text + ']');
  } catch {
    return malformed('output is not a list of JSON items');
  }
  if (!Array.isArray(parsed)) return malformed('output is not a list of JSON items');
  // Items sit one level below the text's top; a result's own depth starts there.
  const deep = text.length > MAX_JSON_DEPTH && jsonTextTooDeep(text, MAX_JSON_DEPTH + 1);
  const seen = parsed.length > 1 ? new Set<number>() : null;
  const ids: number[] = [];
  let late: number[] | null = null;
  let out = '';
  for (let k = 0; k < parsed.length; k++) {
    const item: unknown = parsed[k];
    if (!isRecord(item)) return malformed('an item is not an object');
    const id = item.i;
    if (typeof id !== 'number' || !Number.isInteger(id)) return malformed('an item has no integer id');
    if (seen !== null) {
      if (seen.has(id)) return malformed(`two answers for invocation ${id}`);
      seen.add(id);
    }
    const rid = inflight.get(id);
    if (rid === undefined) {
      if (!answered.has(id)) return malformed(`an answer for invocation ${id}, which this isolate does not have`);
      (late ??= []).push(id);
      continue;
    }
    const logs = logsText(item.l, rid);
    if (logs === null) return malformed(`malformed console lines for invocation ${id}`);
    let piece: string;
    if (item.ok === 1) {
      if (!Object.hasOwn(item, 'r')) piece = '{"i":' + id + ',"ok":1,"l":' + logs + '}';
      else if (deep && valueTooDeep(item.r)) {
        piece = '{"i":' + id + ',"ok":0,"c":"invalid_result","m":' + JSON.stringify(deepMessage) + ',"l":' + logs + '}';
      } else piece = '{"i":' + id + ',"ok":1,"r":' + JSON.stringify(item.r) + ',"l":' + logs + '}';
    } else if (item.ok === 0) {
      const { c, m } = item;
      if (typeof c !== 'string' || !ISOLATE_CODES.has(c)) return malformed(`invocation ${id} failed with a code the isolate may not report`);
      if (typeof m !== 'string' || m.length > MAX_ERROR_CHARS + TRUNCATION_NOTE_CHARS) {
        return malformed(`invocation ${id} failed without a bounded message`);
      }
      piece = '{"i":' + id + ',"ok":0,"c":"' + c + '","m":' + JSON.stringify(m) + ',"l":' + logs + '}';
    } else {
      return malformed(`invocation ${id} is neither ok nor failed`);
    }
    out += out === '' ? piece : ',' + piece;
    ids.push(id);
  }
  return { ok: true, text: out, ids, late };
}
