/**
 * Opaque, prefixed ids that sort by creation time (`api_`, `rt_`, `wh_`, `dlv_`).
 * 12 hex digits of milliseconds, then a per-process counter and randomness, so
 * keyset pagination (`?after=<id>`) can order by id alone.
 */
import { randomBytes } from 'node:crypto';

let lastMs = 0;
let counter = 0;

export function newId(prefix: string, now = Date.now()): string {
  if (now <= lastMs) {
    now = lastMs;
    counter++;
  } else {
    lastMs = now;
    counter = 0;
  }
  const time = now.toString(16).padStart(12, '0');
  const seq = counter.toString(16).padStart(4, '0');
  return `${prefix}_${time}${seq}${randomBytes(6).toString('hex')}`;
}

const requestPrefix = randomBytes(6).toString('hex');
let requestCounter = 0;

/**
 * Request ids are made on the hot path, so no randomness per call: a random
 * per-process prefix plus a counter is unique enough and costs nothing.
 */
export function nextRequestId(): string {
  requestCounter = (requestCounter + 1) % 0x1000000000000;
  return requestPrefix + requestCounter.toString(16).padStart(12, '0');
}
