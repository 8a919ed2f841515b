/**
 * Opaque, prefixed ids that sort by creation time (`api_`, `rt_`, `wh_`, `dlv_`).
 * 12 hex digits of milliseconds, then a per-process counter and randomness, so
 * keyset pagination (`?after=<id>`) can order by id alone.
 */
import { randomBytes, randomFillSync } from 'node:crypto';

let lastMs = 0;
let counter = 0;

/**
 * Random bytes drawn 4 KiB at a time: one randomBytes(6) call costs about 5 µs
 * (a trip into the C++ binding per call), as much as the rest of a claimed
 * slot's row; a burst of 100,000 slots made ids for half a second. (Node's own
 * randomUUID keeps a cache of random bytes for the same reason.)
 */
const RANDOM_POOL = Buffer.alloc(4096);
let poolOffset = RANDOM_POOL.length;

function randomHex(bytes: number): string {
  if (poolOffset + bytes > RANDOM_POOL.length) {
    randomFillSync(RANDOM_POOL);
    poolOffset = 0;
  }
  const hex = RANDOM_POOL.toString('hex', poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return hex;
}

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
  return `${prefix}_${time}${seq}${randomHex(6)}`;
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
