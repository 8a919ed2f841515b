/**
 * The worker's reading of what an isolate hands back, which is untrusted
 * input: user code shares the isolate with the dispatcher (isolate/dispatcher.js).
 * The output is one JSON ResultItem per line. Each line is parsed here and
 * checked: an id this isolate has in flight (once), the shape of a
 * ResultItem with exactly its keys, a failure code the isolate may report,
 * bounded messages and console lines that carry no other invocation's
 * request id. One line that fails makes the whole output malformed: the
 * caller then discards that isolate and fails its own calls.
 *
 * A line that passes goes into the result frame as it is, not written again:
 * it is exactly one JSON value (JSON.parse accepted it alone, and it holds no
 * newline, which the frames reserve), and JSON.parse is deterministic, so the
 * main process reads exactly the value checked here. Writing it again would
 * cost a JSON.stringify per result (about a third of this check) for the same
 * bytes' meaning.
 *
 * Results nested deeper than MAX_JSON_DEPTH become `invalid_result` items
 * written here (the dispatcher only catches those JSON.stringify itself
 * cannot write).
 */
import { MAX_JSON_DEPTH, jsonTextTooDeep } from '../json-limits.js';
import type { InvocationErrorCode } from '../errors.js';
import { LOG_LEVELS, MAX_ERROR_CHARS, MAX_ITEM_LOG_LINES, MAX_LOG_LINE_CHARS, TRUNCATION_NOTE_CHARS } from './dispatcher.js';

/**
 * `text`: the accepted items, comma-joined for the frame's `r` array; `ids`:
 * their invocations; `late`: ids the host had already answered (dropped).
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

/** True when `l` holds only console lines the dispatcher writes for the invocation with request id `rid`. */
function validLogs(l: unknown, rid: string): boolean {
  if (!Array.isArray(l) || l.length > MAX_ITEM_LOG_LINES) return false;
  for (let k = 0; k < l.length; k++) {
    const line: unknown = l[k];
    if (!isRecord(line) || !hasKeys(line, 4)) return false;
    const { time, level, message, requestId } = line;
    if (typeof time !== 'string' || time.length > MAX_TIME_CHARS) return false;
    if (typeof level !== 'string' || !LEVELS.has(level)) return false;
    if (typeof message !== 'string' || message.length > MAX_LOG_LINE_CHARS + TRUNCATION_NOTE_CHARS) return false;
    if (requestId !== null && requestId !== rid) return false;
  }
  return true;
}

/** Exactly `n` own keys (their names are checked by the caller reading them). */
function hasKeys(o: object, n: number): boolean {
  let count = 0;
  for (const _ in o) if (++count > n) return false;
  return count === n;
}

/** Checks one line; returns null when it may go on as it is, else why not. */
function checkItem(item: Record<string, unknown>, id: number, rid: string): string | null {
  if (!validLogs(item.l, rid)) return `malformed console lines for invocation ${id}`;
  if (item.ok === 1) {
    // i, ok, l and, unless the handler returned undefined, r.
    return hasKeys(item, Object.hasOwn(item, 'r') ? 4 : 3) ? null : `unexpected fields in the answer for invocation ${id}`;
  }
  if (item.ok !== 0) return `invocation ${id} is neither ok nor failed`;
  const { c, m } = item;
  if (typeof c !== 'string' || !ISOLATE_CODES.has(c)) return `invocation ${id} failed with a code the isolate may not report`;
  if (typeof m !== 'string' || m.length > MAX_ERROR_CHARS + TRUNCATION_NOTE_CHARS) return `invocation ${id} failed without a bounded message`;
  return hasKeys(item, 5) ? null : `unexpected fields in the failure of invocation ${id}`;
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
  const ids: number[] = [];
  let late: number[] | null = null;
  let out = '';
  if (text === '') return { ok: true, text, ids, late };
  const lines = text.split('\n');
  const seen = lines.length > 1 ? new Set<number>() : null;
  for (const line of lines) {
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch {
      return malformed('a line is not JSON');
    }
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
    const wrong = checkItem(item, id, rid);
    if (wrong !== null) return malformed(wrong);
    let piece = line;
    // The item is one level; a result nested deeper than the bound makes the line deeper than bound + 1.
    if (line.length > MAX_JSON_DEPTH && item.ok === 1 && jsonTextTooDeep(line, MAX_JSON_DEPTH + 1)) {
      piece = '{"i":' + id + ',"ok":0,"c":"invalid_result","m":' + JSON.stringify(deepMessage) + ',"l":' + JSON.stringify(item.l) + '}';
    }
    out += out === '' ? piece : ',' + piece;
    ids.push(id);
  }
  return { ok: true, text: out, ids, late };
}
