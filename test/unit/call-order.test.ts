/**
 * The order `switchyard dev` and `logs -f` print the log stream in
 * (src/cli/call-order.ts): each call after its own console lines, calls in
 * the order they finished, a call whose lines never come released after the
 * hold, and on Ctrl-C the lines still on their way waited for. Timers are a
 * hand-run fake: nothing here waits for real time.
 */
import { describe, expect, it } from 'vitest';
import { createCallOrder } from '../../src/cli/call-order.js';
import type { FunctionStreamEvent } from '../../src/cli/server-api.js';

function fakeTimers() {
  const timers: Array<{ fn: () => void; ms: number; cancelled: boolean }> = [];
  return {
    later(fn: () => void, ms: number) {
      const t = { fn, ms, cancelled: false };
      timers.push(t);
      return () => void (t.cancelled = true);
    },
    /** Runs every timer due within `ms` (all started "now"). */
    run(ms: number) {
      for (const t of timers.splice(0)) {
        if (t.cancelled) continue;
        if (t.ms <= ms) t.fn();
        else timers.push(t);
      }
    },
    pending: () => timers.filter((t) => !t.cancelled).length,
  };
}

const line = (requestId: string | null, message: string): FunctionStreamEvent => ({
  type: 'log',
  id: undefined,
  line: { request_id: requestId, level: 'log', message, ts: '2026-11-23T12:00:00.000Z', function: 'f' },
});
const call = (requestId: string, logLines?: number): FunctionStreamEvent => ({
  type: 'invocation',
  invocation: { request_id: requestId, method: 'GET', path: `/${requestId}`, status: 200, ...(logLines === undefined ? {} : { log_lines: logLines }) },
});

function setup(holdMs = 1500) {
  const printed: string[] = [];
  const timers = fakeTimers();
  const order = createCallOrder({
    holdMs,
    later: timers.later,
    print: (e) => printed.push(e.type === 'log' ? `log ${e.line.message}` : `call ${(e.invocation as { request_id: string }).request_id}`),
  });
  return { order, printed, timers };
}

describe('call order', () => {
  it('prints a call after its own lines, though the call arrives first', () => {
    const { order, printed } = setup();
    order.push(call('a', 2));
    expect(printed).toEqual([]);
    order.push(line('a', 'one'));
    expect(printed).toEqual([]);
    order.push(line('a', 'two'));
    expect(printed).toEqual(['log one', 'log two', 'call a']);
  });

  it('keeps calls in the order they finished, each with its lines, whatever order the lines come in', () => {
    const { order, printed } = setup();
    order.push(call('a', 1));
    order.push(call('b', 1));
    order.push(call('c', 0));
    order.push(line('b', 'from b'));
    // b is complete but waits for a; c, with no lines, too.
    expect(printed).toEqual([]);
    order.push(line('a', 'from a'));
    expect(printed).toEqual(['log from a', 'call a', 'log from b', 'call b', 'call c']);
  });

  it('a call with no lines prints at once; lines of no held call print at once', () => {
    const { order, printed } = setup();
    order.push(call('a', 0));
    order.push(line(null, 'no request'));
    order.push(line('zz', 'of a call not seen'));
    expect(printed).toEqual(['call a', 'log no request', 'log of a call not seen']);
  });

  it('lines that came before their call count toward it', () => {
    const { order, printed, timers } = setup();
    order.push(line('a', 'early'));
    order.push(call('a', 1));
    expect(printed).toEqual(['log early', 'call a']);
    expect(timers.pending()).toBe(0);
  });

  it('a call whose lines never come is printed after the hold, and the calls behind it with it', () => {
    const { order, printed, timers } = setup(1500);
    order.push(call('a', 3));
    order.push(line('a', 'only one'));
    order.push(call('b', 0));
    timers.run(1000);
    expect(printed).toEqual([]);
    timers.run(1500);
    expect(printed).toEqual(['log only one', 'call a', 'call b']);
  });

  it('a server without log_lines: calls print as they come', () => {
    const { order, printed } = setup();
    order.push(call('a'));
    order.push(line('a', 'later'));
    expect(printed).toEqual(['call a', 'log later']);
  });

  it('settle (Ctrl-C) waits its grace for a call still on its way, then for the lines of the held ones, at most its time; flush prints what is left', async () => {
    const { order, printed, timers } = setup(10_000);
    let settled = false;
    const waiting = order.settle(500, 2000).then(() => (settled = true));
    // A call that ended just before Ctrl-C arrives during the grace, its line after.
    order.push(call('a', 1));
    timers.run(500);
    await Promise.resolve();
    expect(settled).toBe(false);
    order.push(line('a', 'last words'));
    await waiting;
    expect(printed).toEqual(['log last words', 'call a']);

    // Nothing held: over when the grace is.
    const idle = order.settle(500, 2000);
    timers.run(500);
    await idle;

    // Lines that never come: over at the most, and flush prints the call.
    order.push(call('b', 1));
    const gaveUp = order.settle(500, 2000);
    timers.run(500);
    timers.run(2000);
    await gaveUp;
    expect(printed).toEqual(['log last words', 'call a']);
    order.flush();
    expect(printed).toEqual(['log last words', 'call a', 'call b']);
  });
});
