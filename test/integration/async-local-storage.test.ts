/**
 * AsyncLocalStorage inside functions: one isolate serves every concurrent
 * invocation of a function version, so a store must follow its own
 * invocation across awaits (of fetch, timers, plain promises), timers,
 * immediates and microtasks, and never leak into another invocation running
 * at the same time or after it. The service runs one worker, so both
 * invocations share an isolate (the function reports a module-scope id to
 * show it); a holding receiver keeps both in flight at once until it has
 * seen the two fetches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHoldingReceiver, waitFor, type HoldingReceiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';

let svc: RunningService;
let receiver: HoldingReceiver;
let apiId = '';

const code = (target: string) => `const { AsyncLocalStorage, AsyncResource } = require('node:async_hooks');
const { setTimeout: sleep } = require('node:timers/promises');
const als = new AsyncLocalStorage();
const isolate = Math.random().toString(36).slice(2);
const idNow = () => { const s = als.getStore(); return s ? s.id : null; };

async function deeper() {
  await sleep(5);
  return idNow();
}

exports.handler = async (event) => {
  const id = event.queryStringParameters.id;
  const before = idNow();
  const seen = await als.run({ id }, async () => {
    const out = { start: idNow() };
    const res = await fetch(${JSON.stringify(target)} + '/hold?id=' + id);
    await res.text();
    out.afterFetch = idNow();
    out.afterTimer = await new Promise((resolve) => setTimeout(() => resolve(idNow()), 10));
    out.afterImmediate = await new Promise((resolve) => setImmediate(() => resolve(idNow())));
    out.inMicrotask = await new Promise((resolve) => queueMicrotask(() => resolve(idNow())));
    out.inThen = await Promise.resolve().then(() => idNow());
    out.deeper = await deeper();
    const resource = new AsyncResource('job');
    out.resource = await als.run({ id: 'other' }, () => resource.runInAsyncScope(() => idNow()));
    out.afterAwaitAll = (await Promise.all([deeper(), deeper()])).join(',');
    return out;
  });
  return { statusCode: 200, body: JSON.stringify({ id, isolate, before, after: idNow(), seen }) };
};`;

beforeAll(async () => {
  receiver = await startHoldingReceiver();
  svc = await startService({ env: { SWITCHYARD_WORKERS: '1', SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
  const fn = await svc.request('POST', '/api/functions', { name: 'als', code: code(receiver.url), event_format: 'aws-v2' });
  expect(fn.status, fn.text).toBe(201);
  const api = await svc.request('POST', '/api/apis', { name: 'als', basePath: '/', routes: [{ method: 'GET', path: '/als', function: 'als' }], exposeErrors: true });
  expect(api.status, api.text).toBe(201);
  apiId = api.json.id;
}, 60000);

afterAll(async () => {
  await Promise.all([svc?.stop(), receiver?.close()]);
});

describe('AsyncLocalStorage', () => {
  it('keeps each of two overlapping invocations of one isolate in its own store, across awaits, timers and microtasks', async () => {
    const a = svc.request('GET', `/api/invoke/fn/${apiId}/als?id=alpha`);
    const b = svc.request('GET', `/api/invoke/fn/${apiId}/als?id=beta`);
    // Both are in flight at once: each waits on its fetch until the receiver has both.
    await waitFor(() => receiver.requests.length >= 2, 20000);
    receiver.release();
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra.status, ra.text).toBe(200);
    expect(rb.status, rb.text).toBe(200);
    expect(ra.json.isolate).toBe(rb.json.isolate);
    for (const [res, id] of [
      [ra, 'alpha'],
      [rb, 'beta'],
    ] as const) {
      expect(res.json).toEqual({
        id,
        isolate: expect.any(String),
        before: null,
        after: null,
        seen: {
          start: id,
          afterFetch: id,
          afterTimer: id,
          afterImmediate: id,
          inMicrotask: id,
          inThen: id,
          deeper: id,
          resource: id,
          afterAwaitAll: `${id},${id}`,
        },
      });
    }
  }, 60000);

  it('starts a later invocation with no store: nothing is left from the ones before', async () => {
    receiver.release();
    const res = await svc.request('GET', `/api/invoke/fn/${apiId}/als?id=gamma`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.before).toBeNull();
    expect(res.json.after).toBeNull();
    expect(res.json.seen.afterTimer).toBe('gamma');
  }, 30000);
});
