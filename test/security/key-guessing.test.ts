/**
 * Guessing the admin key of a server other machines can reach (HOST=0.0.0.0),
 * over real HTTP: a key shorter than 16 characters is refused at start; after
 * 10 wrong keys from one address, keys from it are not checked (429 with
 * Retry-After), the right one included, while other addresses keep their own
 * budget and a right key from elsewhere refills nothing. Requests from a
 * second address use 127.0.0.2 (all of 127.0.0.0/8 is this machine).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';

const KEY = 'a-key-of-24-characters!!';

let svc: RunningService;
let port: number;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  json: any;
}

/** GET /api/functions from `from` (a local address) with `key` (none: no header). */
function call(key: string | null, from = '127.0.0.1', path = '/api/functions'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` };
    const req = http.request({ host: '127.0.0.1', port, path, localAddress: from, headers, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text ? JSON.parse(text) : undefined }));
    });
    req.end();
  });
}

describe('a server reachable from other machines', () => {
  it('refuses to start with an admin key shorter than 16 characters', async () => {
    const err = await startService({ env: { HOST: '0.0.0.0', SWITCHYARD_ADMIN_KEY: 'k' } }).then(
      (s) => {
        void s.stop();
        throw new Error('started with a one-letter key');
      },
      (e: Error) => e,
    );
    expect(err.message).toContain('SWITCHYARD_ADMIN_KEY must be at least 16 characters');
  });
});

describe('wrong keys from one address are slowed', () => {
  beforeAll(async () => {
    svc = await startService({ env: { HOST: '0.0.0.0', SWITCHYARD_ADMIN_KEY: KEY } });
    port = Number(new URL(svc.url).port);
  });

  afterAll(async () => {
    await svc?.stop();
  });

  it('answers 401 to the first 10 wrong keys, then 429 without checking any key from that address', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await call(`guess-${i}`);
      expect(res.status, `guess ${i}`).toBe(401);
      expect(res.json.code).toBe('unauthorized');
    }
    const slowed = await call('guess-10');
    expect(slowed.status).toBe(429);
    expect(slowed.json.code).toBe('too_many_failed_attempts');
    const wait = Number(slowed.headers['retry-after']);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(6);
    expect(slowed.json.details).toEqual({ retry_after_s: wait });
    // The right key from the spent address is not checked either: a 429 tells nothing about a guess.
    expect((await call(KEY)).status).toBe(429);
    // A request without a key guesses nothing: it is refused as before, and not counted.
    expect((await call(null)).status).toBe(401);
    // The public paths stay public.
    expect((await call(null, '127.0.0.1', '/healthz')).status).toBe(200);
  });

  it('keeps a budget per address, and a right key elsewhere refills none', async () => {
    const other = await call(KEY, '127.0.0.2');
    expect(other.status).toBe(200);
    // 127.0.0.1 stays slowed after that success.
    expect((await call(KEY, '127.0.0.1')).status).toBe(429);
    // 127.0.0.2 has its own 10 wrong keys.
    for (let i = 0; i < 10; i++) expect((await call(`other-${i}`, '127.0.0.2')).status).toBe(401);
    expect((await call(KEY, '127.0.0.2')).status).toBe(429);
    expect((await call(KEY, '127.0.0.3')).status).toBe(200);
  });
});
