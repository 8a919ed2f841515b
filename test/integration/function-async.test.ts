/**
 * Asynchronous invocations of functions over real HTTP: `x-invocation-type:
 * Event` answers 202 at once; the invocation is a function-target delivery of
 * the one pipeline (stored first, retried on Lambda's spacing, kept with its
 * attempts). The hand-moved test clock stands in for the minutes between retries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const ENV = { SWITCHYARD_TEST_HOOKS: '1', SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' };
const EVENT = { 'x-invocation-type': 'Event' };

/** Logs a line with the event's `tag`, then answers with it. */
const ECHO = `export const handler = async (event, context) => {
  console.log('ran ' + event.tag + ' ' + context.awsRequestId);
  return { tag: event.tag };
};`;
/** Fails unless its env says OK. */
const FLAKY = `export const handler = async (event) => {
  console.log('try ' + event.tag);
  if (process.env.OK !== '1') throw new Error('not yet');
  return 'fine';
};`;

let svc: RunningService;
let receiver: Receiver;

async function deploy(name: string, code: string, extra: Record<string, unknown> = {}) {
  const res = await svc.request('POST', '/api/functions', { name, code, ...extra });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

async function advance(ms: number, on: RunningService = svc) {
  const res = await on.request('PUT', '/api/_test/clock', { advance_ms: ms });
  expect(res.status).toBe(200);
}

async function invocation(name: string, id: string, on: RunningService = svc) {
  const res = await on.request('GET', `/api/functions/${name}/invocations/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.json;
}

function settled(name: string, id: string, status: string, on: RunningService = svc) {
  return until(async () => {
    const inv = await invocation(name, id, on);
    return inv.status === status ? inv : null;
  }, `invocation ${id} ${status}`);
}

async function logLines(name: string, on: RunningService = svc): Promise<string[]> {
  const res = await on.request('GET', `/api/functions/${name}/logs?limit=1000`);
  return res.json.map((l: { message: string }) => l.message);
}

beforeAll(async () => {
  svc = await startService({ env: ENV });
  receiver = await startReceiver();
});

afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
});

describe('asynchronous invocation', () => {
  it('answers 202 at once with an invocation id, runs the function once and keeps its result', async () => {
    await deploy('echo', ECHO);
    const res = await svc.request('POST', '/api/functions/echo/invoke', { tag: 'a1' }, EVENT);
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ invocation_id: expect.stringMatching(/^dlv_/), status: 'pending' });
    const id = res.json.invocation_id;

    const done = await settled('echo', id, 'succeeded');
    expect(done).toMatchObject({
      id,
      function: 'echo',
      trigger: { type: 'async' },
      status: 'succeeded',
      result: { tag: 'a1' },
      error: null,
      event: { tag: 'a1' },
    });
    expect(done.attempts).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'ok', error: null, request_id: id }),
    ]);
    expect(done.completed_at).not.toBeNull();
    // Once: one log line, carrying the invocation id as the request id.
    await until(async () => (await logLines('echo')).length > 0, 'log lines');
    expect((await logLines('echo')).filter((l) => l.startsWith('ran a1'))).toEqual([`ran a1 ${id}`]);
    // Counted as a function run, not as a webhook attempt.
    const metrics = await svc.request('GET', '/metrics');
    expect(metrics.text).toContain('switchyard_function_runs_total{function="echo",trigger="async",outcome="succeeded"} 1');
    expect(metrics.text).not.toMatch(/switchyard_webhook_attempts_total\{outcome="succeeded"\} [1-9]/);
  });

  it("accepts Lambda's X-Amz-Invocation-Type, and keeps the synchronous answer without the header", async () => {
    const res = await svc.request('POST', '/api/functions/echo/invoke', { tag: 'amz' }, { 'X-Amz-Invocation-Type': 'Event' });
    expect(res.status).toBe(202);
    await settled('echo', res.json.invocation_id, 'succeeded');

    const sync = await svc.request('POST', '/api/functions/echo/invoke', { tag: 'sync' });
    expect(sync.status).toBe(200);
    expect(sync.json.result).toEqual({ tag: 'sync' });
    const explicit = await svc.request('POST', '/api/functions/echo/invoke', { tag: 'rr' }, { 'x-invocation-type': 'RequestResponse' });
    expect(explicit.status).toBe(200);
  });

  it('refuses an unknown invocation type and an unknown function', async () => {
    const bad = await svc.request('POST', '/api/functions/echo/invoke', {}, { 'x-invocation-type': 'Later' });
    expect(bad.status).toBe(400);
    const missing = await svc.request('POST', '/api/functions/nope/invoke', {}, EVENT);
    expect(missing.status).toBe(404);
    expect(missing.json.code).toBe('function_not_found');
  });

  it('retries a throwing function exactly `retries` times on the retry schedule, then keeps it failed with its attempts', async () => {
    await deploy('thrower', FLAKY, { async: { retries: 2 } });
    const res = await svc.request('POST', '/api/functions/thrower/invoke', { tag: 't' }, EVENT);
    expect(res.status).toBe(202);
    const id = res.json.invocation_id;

    const first = await until(async () => {
      const inv = await invocation('thrower', id);
      return inv.attempts.length === 1 ? inv : null;
    }, 'first attempt');
    expect(first.status).toBe('pending');
    expect(first.attempts[0]).toMatchObject({ attempt: 1, outcome: 'function_error', error: expect.stringContaining('not yet') });
    const due = Date.parse(first.next_attempt_at) - Date.parse(first.attempts[0].started_at);
    expect(due).toBe(60_000);

    // Not before it is due.
    await advance(30_000);
    await new Promise((r) => setTimeout(r, 300));
    expect((await invocation('thrower', id)).attempts).toHaveLength(1);

    await advance(31_000);
    const second = await until(async () => {
      const inv = await invocation('thrower', id);
      return inv.attempts.length === 2 ? inv : null;
    }, 'second attempt');
    expect(second.status).toBe('pending');
    expect(Date.parse(second.next_attempt_at) - Date.parse(second.attempts[1].started_at)).toBe(120_000);

    await advance(121_000);
    const failed = await settled('thrower', id, 'failed');
    expect(failed.attempts.map((a: { attempt: number; outcome: string }) => [a.attempt, a.outcome])).toEqual([
      [1, 'function_error'],
      [2, 'function_error'],
      [3, 'function_error'],
    ]);
    expect(failed.error).toContain('not yet');
    expect(failed.next_attempt_at).toBeNull();

    // No fourth attempt, however long we wait.
    await advance(3_600_000);
    await new Promise((r) => setTimeout(r, 300));
    expect((await invocation('thrower', id)).attempts).toHaveLength(3);

    const list = await svc.request('GET', '/api/functions/thrower/invocations?status=failed');
    expect(list.status).toBe(200);
    expect(list.json.map((i: { id: string }) => i.id)).toEqual([id]);
    const none = await svc.request('GET', '/api/functions/thrower/invocations?status=succeeded');
    expect(none.json).toEqual([]);
  });

  it('retries a failed invocation by hand: 202, pending, then one more attempt', async () => {
    const listed = await svc.request('GET', '/api/functions/thrower/invocations?status=failed');
    const id = listed.json[0].id;
    const fixed = await svc.request('PUT', '/api/functions/thrower', { env: { OK: '1' } });
    expect(fixed.status).toBe(200);

    const retry = await svc.request('POST', `/api/functions/thrower/invocations/${id}/retry`);
    expect(retry.status).toBe(202);
    expect(retry.json).toMatchObject({ id, status: 'pending' });
    const done = await settled('thrower', id, 'succeeded');
    expect(done.attempts).toHaveLength(4);
    expect(done.attempts[3]).toMatchObject({ attempt: 4, outcome: 'ok' });
    expect(done.result).toBe('fine');

    const again = await svc.request('POST', `/api/functions/thrower/invocations/${id}/retry`);
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('invocation_not_failed');
    // An invocation is not a webhook delivery.
    expect((await svc.request('GET', `/api/deliveries/${id}`)).status).toBe(404);
    expect((await svc.request('POST', `/api/deliveries/${id}/retry`)).status).toBe(404);
    const unknown = await svc.request('POST', '/api/functions/thrower/invocations/dlv_nope/retry');
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('invocation_not_found');
  });

  it('with retries 0, a failure is final at once, and raises switchyard.function.invocation_failed', async () => {
    const hook = await svc.request('POST', '/api/webhooks', {
      name: 'failures',
      target_url: receiver.url + '/failures',
      method: 'POST',
      payload_template: { data: {} },
      events: ['switchyard.function.invocation_failed'],
    });
    expect(hook.status).toBe(201);
    await deploy('once', FLAKY, { async: { retries: 0 } });
    const got = await svc.request('GET', '/api/functions/once');
    expect(got.json.async).toEqual({ retries: 0, on_success: null, on_failure: null });
    const res = await svc.request('POST', '/api/functions/once/invoke', { tag: 'o' }, EVENT);
    const failed = await settled('once', res.json.invocation_id, 'failed');
    expect(failed.attempts).toHaveLength(1);
    const notice = await until(() => receiver.requests.find((r) => r.url === '/failures'), 'the operational event');
    expect(JSON.parse(notice.body).data).toEqual({
      function: 'once',
      invocation_id: failed.id,
      trigger: 'async',
      error: failed.error,
      attempts: 1,
    });
  });

  it('validates async, and defaults it', async () => {
    const defaults = await deploy('plain', ECHO);
    expect(defaults).toMatchObject({ schedules: [], events: [], async: { retries: 2, on_success: null, on_failure: null } });
    const tooMany = await svc.request('POST', '/api/functions', { name: 'bad1', code: ECHO, async: { retries: 6 } });
    expect(tooMany.status).toBe(400);
    const ghost = await svc.request('POST', '/api/functions', {
      name: 'bad2',
      code: ECHO,
      async: { on_failure: { type: 'webhook', id: 'wh_missing' } },
    });
    expect(ghost.status).toBe(400);
    expect(ghost.json.details).toEqual({ field: 'async.on_failure' });
  });
});

describe('destinations', () => {
  it("sends a success record to a webhook as the payload, in Lambda's invocation record shape", async () => {
    const hook = await svc.request('POST', '/api/webhooks', {
      name: 'records',
      target_url: receiver.url + '/records',
      method: 'POST',
      payload_template: { ignored: true },
    });
    expect(hook.status).toBe(201);
    await deploy('good', ECHO, { async: { on_success: { type: 'webhook', id: hook.json.id } } });
    const res = await svc.request('POST', '/api/functions/good/invoke', { tag: 'g' }, EVENT);
    const id = res.json.invocation_id;
    const done = await settled('good', id, 'succeeded');

    const got = await until(() => receiver.requests.find((r) => r.url === '/records'), 'the record at the webhook');
    const record = JSON.parse(got.body);
    expect(record).toEqual({
      version: '1.0',
      timestamp: done.completed_at,
      requestContext: {
        requestId: id,
        functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:good:$LATEST',
        condition: 'Success',
        approximateInvokeCount: 1,
      },
      requestPayload: { tag: 'g' },
      responseContext: { statusCode: 200, executedVersion: '$LATEST' },
      responsePayload: { tag: 'g' },
    });
    // The receiver has the request before the sender records the attempt: wait for the record.
    const deliveries = await until(async () => {
      const list = await svc.request('GET', `/api/webhooks/${hook.json.id}/deliveries`);
      return list.json.some((d: { status: string }) => d.status !== 'pending') ? list : null;
    }, 'the destination delivery recorded');
    expect(deliveries.json.map((d: { trigger: string; status: string }) => [d.trigger, d.status])).toEqual([['destination', 'succeeded']]);

    // No record on a failure when only on_success is set.
    await deploy('good-but-failing', FLAKY, { async: { retries: 0, on_success: { type: 'webhook', id: hook.json.id } } });
    const failing = await svc.request('POST', '/api/functions/good-but-failing/invoke', { tag: 'x' }, EVENT);
    await settled('good-but-failing', failing.json.invocation_id, 'failed');
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests.filter((r) => r.url === '/records')).toHaveLength(1);
  });

  it('runs the on-failure function with the record once the retries are spent', async () => {
    await deploy('sink', ECHO);
    await deploy('doomed', FLAKY, { async: { retries: 1, on_failure: { type: 'function', name: 'sink' } } });
    const res = await svc.request('POST', '/api/functions/doomed/invoke', { tag: 'd' }, EVENT);
    const id = res.json.invocation_id;
    await until(async () => (await invocation('doomed', id)).attempts.length === 1, 'first attempt');
    // Nothing reaches the destination while retries are left.
    expect((await svc.request('GET', '/api/functions/sink/invocations')).json).toEqual([]);
    await advance(61_000);
    await settled('doomed', id, 'failed');

    const sinkRun = await until(async () => {
      const list = await svc.request('GET', '/api/functions/sink/invocations?status=succeeded');
      return list.json[0];
    }, 'the destination run');
    expect(sinkRun.trigger).toEqual({
      type: 'destination',
      source_function: 'doomed',
      source_invocation_id: id,
      condition: 'RetriesExhausted',
      depth: 1,
    });
    expect(sinkRun.event).toMatchObject({
      version: '1.0',
      requestContext: { requestId: id, condition: 'RetriesExhausted', approximateInvokeCount: 2 },
      requestPayload: { tag: 'd' },
      responseContext: { statusCode: 200, functionError: 'Unhandled' },
      responsePayload: { errorMessage: expect.stringContaining('not yet'), errorType: 'function_error' },
    });
  });
});

describe('destination chains', () => {
  it('stop after 16 hops: a function that is its own on-success destination runs 17 times', async () => {
    await deploy('selfish', ECHO);
    const set = await svc.request('PUT', '/api/functions/selfish', { async: { on_success: { type: 'function', name: 'selfish' } } });
    expect(set.status, set.text).toBe(200);
    expect(set.json.async.on_success).toEqual({ type: 'function', name: 'selfish' });
    await svc.request('POST', '/api/functions/selfish/invoke', { tag: 's' }, EVENT);
    const list = async () => (await svc.request('GET', '/api/functions/selfish/invocations?limit=100')).json as Array<{ status: string; trigger: { depth?: number } }>;
    await until(async () => {
      const all = await list();
      return all.length === 17 && all.every((i) => i.status === 'succeeded');
    }, '17 runs', 20_000);
    await new Promise((r) => setTimeout(r, 500));
    const all = await list();
    expect(all).toHaveLength(17);
    expect(Math.max(...all.map((i) => i.trigger.depth ?? 0))).toBe(16);
  });
});

describe('restart', () => {
  it('keeps a pending invocation across a restart on the same database, and runs it', async () => {
    const first = await startService({ env: ENV });
    let second: RunningService | undefined;
    try {
      const res = await first.request('POST', '/api/functions', { name: 'later', code: FLAKY, async: { retries: 1 } });
      expect(res.status).toBe(201);
      const queued = await first.request('POST', '/api/functions/later/invoke', { tag: 'r' }, EVENT);
      const id = queued.json.invocation_id;
      await until(async () => (await invocation('later', id, first)).attempts.length === 1, 'first attempt');
      expect(await first.stop()).toBe(0);

      second = await startService({ env: ENV, dbUrl: first.dbUrl });
      const kept = await invocation('later', id, second);
      expect(kept.status).toBe('pending');
      expect(kept.attempts).toHaveLength(1);
      expect((await second.request('PUT', '/api/functions/later', { env: { OK: '1' } })).status).toBe(200);
      await advance(61_000, second);
      const done = await settled('later', id, 'succeeded', second);
      expect(done.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['function_error', 'ok']);
    } finally {
      await first.stop();
      await second?.stop();
    }
  });
});
