/**
 * The idempotency claim on every backend: one winner per (scope, key), losers
 * see its row, an expired row is taken over, release and sweep delete only
 * what they should.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { IdempotencyClaim, Store } from '../../src/store/store.js';
import { backends, removeTempDatabases, withStore as withBackendStore } from '../helpers/store-backends.js';

afterAll(removeTempDatabases);

const claimOf = (over: Partial<IdempotencyClaim> = {}): IdempotencyClaim => ({
  scope: 'events',
  key: 'k-1',
  requestHash: 'h1',
  token: 't1',
  now: 1_000,
  expiresAt: 2_000,
  staleBefore: 0,
  ...over,
});

for (const backend of backends()) {
  describe(`idempotency keys on ${backend.name}`, () => {
    const withStore = (fn: (store: Store) => Promise<void>) => withBackendStore(backend, fn);

    it('lets exactly one of many concurrent claims win; the others read its row', () =>
      withStore(async (store) => {
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, i) => store.claimIdempotencyKey(claimOf({ token: `t${i}` }))),
        );
        expect(results.filter((r) => r.claimed)).toHaveLength(1);
        for (const r of results) if (!r.claimed) expect(r.record).toEqual({ requestHash: 'h1', status: null, response: null, expiresAt: 2_000 });
      }));

    it('keeps the answer of the claim that holds the key, and scopes keys apart', () =>
      withStore(async (store) => {
        expect(await store.claimIdempotencyKey(claimOf())).toEqual({ claimed: true });
        // Another token cannot complete or release it.
        await store.completeIdempotencyKey('events', 'k-1', 'other', 500, '{}');
        await store.releaseIdempotencyKey('events', 'k-1', 'other');
        await store.completeIdempotencyKey('events', 'k-1', 't1', 202, '{"id":"e1"}');
        const again = await store.claimIdempotencyKey(claimOf({ token: 't2', requestHash: 'h2', now: 1_500 }));
        expect(again).toEqual({ claimed: false, record: { requestHash: 'h1', status: 202, response: '{"id":"e1"}', expiresAt: 2_000 } });
        expect(await store.claimIdempotencyKey(claimOf({ scope: 'invoke:f', token: 't3' }))).toEqual({ claimed: true });
      }));

    it('takes over a row whose window ended, and frees a released one', () =>
      withStore(async (store) => {
        await store.claimIdempotencyKey(claimOf());
        await store.completeIdempotencyKey('events', 'k-1', 't1', 202, '{}');
        expect(await store.claimIdempotencyKey(claimOf({ token: 't2', now: 2_000, expiresAt: 3_000 }))).toEqual({ claimed: true });
        await store.releaseIdempotencyKey('events', 'k-1', 't2');
        expect(await store.claimIdempotencyKey(claimOf({ token: 't3', now: 2_100, expiresAt: 3_100 }))).toEqual({ claimed: true });
      }));

    it('takes over an unanswered claim made before staleBefore (its holder died), never an answered one', () =>
      withStore(async (store) => {
        await store.claimIdempotencyKey(claimOf());
        expect((await store.claimIdempotencyKey(claimOf({ token: 't2', now: 1_200, staleBefore: 1_000 }))).claimed).toBe(false);
        expect(await store.claimIdempotencyKey(claimOf({ token: 't2', now: 1_200, staleBefore: 1_001 }))).toEqual({ claimed: true });
        await store.completeIdempotencyKey('events', 'k-1', 't2', 202, '{}');
        expect((await store.claimIdempotencyKey(claimOf({ token: 't3', now: 1_300, staleBefore: 1_250 }))).claimed).toBe(false);
      }));

    it('sweeps expired rows in batches and leaves live ones', () =>
      withStore(async (store) => {
        for (let i = 0; i < 5; i++) await store.claimIdempotencyKey(claimOf({ key: `old-${i}`, expiresAt: 1_500 }));
        await store.claimIdempotencyKey(claimOf({ key: 'live', expiresAt: 5_000 }));
        expect(await store.sweepIdempotencyKeys(2_000, 3)).toBe(3);
        expect(await store.sweepIdempotencyKeys(2_000, 3)).toBe(2);
        expect(await store.sweepIdempotencyKeys(2_000, 3)).toBe(0);
        const live = await store.claimIdempotencyKey(claimOf({ key: 'live', token: 'x' }));
        expect(live.claimed).toBe(false);
      }));
  });
}
