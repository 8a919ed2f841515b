/**
 * Functions' console lines in the server's own log (SWITCHYARD_FUNCTION_LOGS_STDOUT,
 * on by default): a real server's stdout carries each line as one JSON object
 * at the line's level with `source: "function"`, the function, its version
 * and the request id its invocation answered with; turned off, only the store
 * has them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flushedOutput, startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let on: RunningService;
let off: RunningService;

const CODE = `exports.handler = async (e) => { console.log('order', e.n, 'placed'); console.error('card declined'); return { ok: true }; };`;

beforeAll(async () => {
  [on, off] = await Promise.all([startService({ env: { LOG_FORMAT: 'json' } }), startService({ env: { LOG_FORMAT: 'json', SWITCHYARD_FUNCTION_LOGS_STDOUT: '0' } })]);
  for (const svc of [on, off]) expect((await svc.request('POST', '/api/functions', { name: 'talker', code: CODE })).status).toBe(201);
});

afterAll(async () => {
  await Promise.all([on?.stop(), off?.stop()]);
});

/** The server's JSON log lines that came from functions. */
function functionLines(svc: RunningService): Array<Record<string, unknown>> {
  return svc.output
    .join('')
    .split('\n')
    .filter((l) => l.startsWith('{') && l.includes('"source":"function"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('function console lines on stdout', () => {
  it('writes each line at its level, with the function, version and request id', async () => {
    const res = await on.request('POST', '/api/functions/talker/invoke', { n: 42 });
    expect(res.status, res.text).toBe(200);
    // One id for the HTTP request, the run and its lines.
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    expect(res.json.logs.map((l: { request_id: string }) => l.request_id)).toEqual([requestId, requestId]);
    const lines = await until(() => {
      const mine = functionLines(on).filter((l) => l.requestId === requestId);
      return mine.length === 2 ? mine : null;
    }, 'both console lines on stdout');
    // pino's numeric levels: 30 info (console.log), 50 error.
    expect(lines[0]).toMatchObject({ level: 30, source: 'function', function: 'talker', version: 1, fnLevel: 'log', msg: 'order 42 placed' });
    expect(lines[1]).toMatchObject({ level: 50, source: 'function', function: 'talker', fnLevel: 'error', msg: 'card declined' });
    // The store has them too, as before.
    const stored = await until(async () => {
      const logs = (await on.request('GET', '/api/functions/talker/logs')).json as Array<{ message: string; request_id: string }>;
      return logs.filter((l) => l.request_id === requestId).length === 2 ? logs : null;
    }, 'the lines in the store');
    expect(stored.map((l) => l.message)).toContain('order 42 placed');
  });

  it('writes nothing to stdout with SWITCHYARD_FUNCTION_LOGS_STDOUT=0, and still stores the lines', async () => {
    const res = await off.request('POST', '/api/functions/talker/invoke', { n: 7 });
    expect(res.status, res.text).toBe(200);
    const requestId = res.headers.get('x-request-id');
    await until(async () => {
      const logs = (await off.request('GET', '/api/functions/talker/logs')).json as Array<{ request_id: string }>;
      return logs.some((l) => l.request_id === requestId);
    }, 'the lines in the store');
    expect(await flushedOutput(off)).not.toContain('card declined');
    expect(functionLines(off)).toEqual([]);
  });
});
