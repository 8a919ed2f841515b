/**
 * `switchyard invocations` and `invoke --async` without a server: the table
 * (one row per invocation, one per attempt, aligned), the trigger and error
 * texts, and the requests the CLI sends (x-invocation-type: Event, the list
 * query, the retry) with a fetch that answers as the documented API does,
 * including what an older server answers. The real server: test/integration/cli.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { errorText, INVOCATION_HEADERS, invocationRows, triggerText } from '../../src/cli/invocations.js';
import { createOutput, formatTable } from '../../src/cli/output.js';
import { createServerApi, type InvocationRecord } from '../../src/cli/server-api.js';
import { CommandFailedError, ServerError } from '../../src/cli/errors.js';

const plain = createOutput({ stdout: { write: () => true }, stderr: { write: () => true }, env: {}, json: false, color: false });

const FAILED: InvocationRecord = {
  id: 'inv_2',
  function: 'report',
  trigger: { type: 'async' },
  status: 'failed',
  attempts: [
    { attempt: 1, started_at: '2026-11-23T09:00:00.000Z', duration_ms: 12, outcome: 'error', error: { code: 'function_error', message: 'boom' } },
    { attempt: 2, started_at: '2026-11-23T09:00:01.000Z', duration_ms: 10000, outcome: 'timeout', error: 'timed out after 10000 ms' },
  ],
  event: {},
  result: null,
  error: { code: 'function_timeout', message: 'timed out after 10000 ms' },
  created_at: '2026-11-23T09:00:00.000Z',
  completed_at: '2026-11-23T09:00:11.000Z',
};
const OK: InvocationRecord = {
  id: 'inv_1',
  function: 'report',
  trigger: { type: 'schedule', cron: '0 9 * * 1-5', timezone: 'America/New_York' },
  status: 'succeeded',
  attempts: [{ attempt: 1, started_at: '2026-11-23T14:00:00.000Z', duration_ms: 3, outcome: 'success', error: null }],
  event: {},
  result: { ok: true },
  error: null,
  created_at: '2026-11-23T14:00:00.000Z',
  completed_at: '2026-11-23T14:00:00.010Z',
};

describe('invocations table', () => {
  it('one row per invocation and one dim row per attempt, columns aligned', () => {
    const lines = formatTable(INVOCATION_HEADERS, invocationRows(plain, [FAILED, OK])).trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    const [header, failed, a1, a2, ok, b1] = lines;
    expect(header).toMatch(/^INVOCATION\s+CREATED\s+TRIGGER\s+STATUS\s+ATTEMPTS\s+RESULT$/);
    expect(failed).toMatch(/^inv_2\s+2026-11-23T09:00:00.000Z\s+async\s+failed\s+2\s+function_timeout: timed out after 10000 ms$/);
    expect(a1).toMatch(/^\s+#1\s+2026-11-23T09:00:00.000Z\s+error, 12 ms \(function_error: boom\)$/);
    expect(a2).toMatch(/^\s+#2\s+\S+\s+timeout, 10000 ms \(timed out after 10000 ms\)$/);
    expect(ok).toMatch(/^inv_1\s+\S+\s+schedule 0 9 \* \* 1-5 \(America\/New_York\)\s+succeeded\s+1\s+done 2026-11-23T14:00:00.010Z$/);
    expect(b1).toMatch(/^\s+#1\s+\S+\s+success, 3 ms$/);
    expect(failed.indexOf('failed')).toBe(header.indexOf('STATUS'));
    expect(ok.indexOf('succeeded')).toBe(header.indexOf('STATUS'));
  });

  it('says what fired a run and what went wrong in one line', () => {
    expect(triggerText({ type: 'event', event: 'order.created' })).toBe('event order.created');
    expect(triggerText({ type: 'schedule', cron: '*/5 * * * *', timezone: 'UTC' })).toBe('schedule */5 * * * *');
    expect(triggerText({ type: 'destination' })).toBe('destination');
    expect(triggerText({ type: 'async' })).toBe('async');
    expect(errorText({ code: 'function_error', message: 'boom' })).toBe('function_error: boom');
    expect(errorText('plain')).toBe('plain');
    expect(errorText(null)).toBe('');
  });

  it('a pending invocation has no result yet', () => {
    const pending: InvocationRecord = { ...OK, id: 'inv_3', status: 'pending', attempts: [], completed_at: null };
    const [row] = invocationRows(plain, [pending]);
    expect(row).toEqual(['inv_3', OK.created_at, 'schedule 0 9 * * 1-5 (America/New_York)', 'pending', '0', '']);
  });
});

/** A fetch that records each request and answers with `answer(request)`. */
function fakeFetch(answer: (req: Request) => Response) {
  const seen: Request[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const req = input instanceof Request ? input : new Request(input, init);
    seen.push(req.clone());
    return answer(req);
  }) as typeof globalThis.fetch;
  return { fetch, seen };
}
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('server calls', () => {
  it('invoke --async sends x-invocation-type: Event with the event and reads the 202', async () => {
    const { fetch, seen } = fakeFetch(() => json(202, { invocation_id: 'inv_9', status: 'pending' }));
    const api = createServerApi({ url: 'http://sy.test', adminKey: 'k', fetch });
    expect(await api.invokeFunctionAsync('report', { a: 1 })).toEqual({ invocation_id: 'inv_9', status: 'pending' });
    expect(seen[0].method).toBe('POST');
    expect(new URL(seen[0].url).pathname).toBe('/api/functions/report/invoke');
    expect(seen[0].headers.get('x-invocation-type')).toBe('Event');
    expect(seen[0].headers.get('authorization')).toBe('Bearer k');
    expect(await seen[0].json()).toEqual({ a: 1 });
  });

  it('invoke --async against a server that ran the function at once (200) says the server is older', async () => {
    const { fetch } = fakeFetch(() => json(200, { status: 200, result: 1, error: null, logs: [], duration_ms: 1 }));
    const api = createServerApi({ url: 'http://sy.test', adminKey: null, fetch });
    const err = await api.invokeFunctionAsync('report', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommandFailedError);
    expect((err as CommandFailedError).code).toBe('no_async_invoke');
  });

  it('lists with status and limit, retries by id, names an unknown function as the server does', async () => {
    const { fetch, seen } = fakeFetch((req) => {
      const url = new URL(req.url);
      if (url.pathname === '/api/functions/report/invocations') return json(200, [FAILED]);
      if (url.pathname === '/api/functions/report/invocations/inv_2/retry') return json(202, { ...FAILED, status: 'pending' });
      return json(404, { error: "Function 'ghost' does not exist", code: 'function_not_found' });
    });
    const api = createServerApi({ url: 'http://sy.test', adminKey: 'k', fetch });
    expect(await api.listInvocations('report', { status: 'failed', limit: 5 })).toEqual([FAILED]);
    expect(new URL(seen[0].url).search).toBe('?status=failed&limit=5');
    expect(seen[0].headers.get('authorization')).toBe('Bearer k');
    expect(await api.retryInvocation('report', 'inv_2')).toMatchObject({ id: 'inv_2', status: 'pending' });
    expect(seen[1].method).toBe('POST');
    const err = await api.listInvocations('ghost', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect((err as ServerError).code).toBe('function_not_found');
  });

  it('a server without invocation records (no such route) is named as older', async () => {
    const { fetch } = fakeFetch(() => json(404, { error: 'Route GET:/api/functions/report/invocations not found', code: 'not_found' }));
    const api = createServerApi({ url: 'http://sy.test', adminKey: null, fetch });
    const err = await api.listInvocations('report', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommandFailedError);
    expect((err as Error).message).toMatch(/keeps no invocation records .* older than this CLI/);
  });
});
