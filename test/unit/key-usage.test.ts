/**
 * KeyUseCounter: the daily use of keys without a quota, counted in the process
 * and written in one batch; a failed write keeps its counts for the next.
 */
import { describe, expect, it } from 'vitest';
import { KeyUseCounter } from '../../src/gateway/policy/key-usage.js';
import type { KeyUse } from '../../src/store/store.js';

describe('KeyUseCounter', () => {
  it('adds up the uses of each key and day and writes them in one sorted batch', async () => {
    const batches: KeyUse[][] = [];
    const counter = new KeyUseCounter({ limits: { addKeyUses: async (uses) => void batches.push([...uses]) }, flushMs: 60_000 });
    counter.add('key_b', '2026-11-27');
    counter.add('key_a', '2026-11-27');
    counter.add('key_b', '2026-11-27');
    counter.add('key_b', '2026-11-26');
    await counter.flush();
    expect(batches).toEqual([
      [
        { keyId: 'key_a', day: '2026-11-27', count: 1 },
        { keyId: 'key_b', day: '2026-11-26', count: 1 },
        { keyId: 'key_b', day: '2026-11-27', count: 2 },
      ],
    ]);
    await counter.flush();
    expect(batches).toHaveLength(1);
  });

  it('keeps the counts of a failed write for the next one', async () => {
    const written: KeyUse[][] = [];
    let fail = true;
    const counter = new KeyUseCounter({
      limits: {
        addKeyUses: async (uses) => {
          if (fail) throw new Error('database away');
          written.push([...uses]);
        },
      },
      flushMs: 60_000,
    });
    counter.add('key_a', '2026-11-27', 3);
    await counter.flush();
    fail = false;
    counter.add('key_a', '2026-11-27');
    await counter.flush();
    expect(written).toEqual([[{ keyId: 'key_a', day: '2026-11-27', count: 4 }]]);
  });
});
