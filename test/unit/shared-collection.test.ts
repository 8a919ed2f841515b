/**
 * One collection at a time shared by its callers (src/shared-collection.ts):
 * callers that arrive while one runs share it, a run starts at most once per
 * interval (sooner callers wait for the next run, never get an older one),
 * and past the bound of waiting callers the next is refused at once.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SharedCollection } from '../../src/shared-collection.js';

class Refused extends Error {}

/** A collection whose runs the test finishes by hand. */
function controlled(minIntervalMs: number, maxWaiting: number) {
  const pending: Array<(value: string) => void> = [];
  let running = 0;
  let mostAtOnce = 0;
  const shared = new SharedCollection<string>({
    collect: () => {
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      return new Promise<string>((resolve) => pending.push(resolve)).finally(() => running--);
    },
    minIntervalMs,
    maxWaiting,
    refuse: () => new Refused('full'),
  });
  const finish = (value: string) => pending.shift()!(value);
  return { shared, finish, pending, mostAtOnce: () => mostAtOnce };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('SharedCollection', () => {
  it('shares one run between the callers that arrive while it runs, and refuses past the bound', async () => {
    const { shared, finish, pending, mostAtOnce } = controlled(0, 4);
    const callers = [shared.get(), shared.get(), shared.get(), shared.get()];
    const fifth = shared.get();
    await expect(fifth).rejects.toBeInstanceOf(Refused);
    await Promise.resolve();
    expect(pending).toHaveLength(1);
    finish('one');
    expect(await Promise.all(callers)).toEqual(['one', 'one', 'one', 'one']);
    expect(shared.collections).toBe(1);
    expect(mostAtOnce()).toBe(1);
    // Room again once they are answered; a new caller gets a new run.
    const next = shared.get();
    await Promise.resolve();
    finish('two');
    expect(await next).toBe('two');
    expect(shared.collections).toBe(2);
  });

  it('starts a run at most once per interval: a caller that comes sooner waits for the next run', async () => {
    vi.useFakeTimers();
    const { shared, finish, pending } = controlled(1000, 4);
    const first = shared.get();
    await Promise.resolve();
    finish('first');
    expect(await first).toBe('first');
    const soon = shared.get();
    const alsoSoon = shared.get();
    await vi.advanceTimersByTimeAsync(999);
    expect(pending).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(pending).toHaveLength(1);
    finish('second');
    expect(await Promise.all([soon, alsoSoon])).toEqual(['second', 'second']);
    expect(shared.collections).toBe(2);
  });

  it('hands a failed run to all its callers and starts afresh for the next', async () => {
    const shared = new SharedCollection<string>({
      collect: vi.fn().mockRejectedValueOnce(new Error('down')).mockResolvedValueOnce('up'),
      minIntervalMs: 0,
      maxWaiting: Infinity,
      refuse: () => new Refused(),
    });
    const [a, b] = [shared.get(), shared.get()];
    await expect(a).rejects.toThrow('down');
    await expect(b).rejects.toThrow('down');
    expect(await shared.get()).toBe('up');
  });
});
