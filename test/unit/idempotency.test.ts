/**
 * The rules of src/events/idempotency.ts on a real store (each backend): a
 * 5xx frees the key so a retry runs, a 4xx is kept and answered again, a key
 * in progress is a 409, and nested scopes (a key and an event id) pass a
 * replay on.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { functionExists, StoreUnavailableError } from '../../src/errors.js';
import { Idempotency, requestHash } from '../../src/events/idempotency.js';
import type { Store } from '../../src/store/store.js';
import { backends, removeTempDatabases } from '../helpers/store-backends.js';

afterAll(removeTempDatabases);

const log = { debug() {}, info() {}, warn() {}, error() {} } as never;
const where = { scope: 'events', key: 'k', field: 'Idempotency-Key' };
const hash = requestHash({ event: 'a' });

for (const backend of backends()) {
  describe(`idempotent operations on ${backend.name}`, () => {
    const withIdempotency = async (fn: (idem: Idempotency, clock: ManualClock) => Promise<void>) => {
      const store: Store = await backend.open();
      const clock = new ManualClock(1_000_000);
      try {
        await fn(new Idempotency({ store, clock, windowMs: 60_000, log }), clock);
      } finally {
        await store.close();
      }
    };

    it('frees the key after a 5xx, so the retry runs the operation', () =>
      withIdempotency(async (idem) => {
        let runs = 0;
        await expect(idem.run(where, hash, async () => (runs++, Promise.reject(new StoreUnavailableError('The database is not answering'))))).rejects.toThrow(StoreUnavailableError);
        const answer = await idem.run(where, hash, async () => (runs++, { status: 202, body: { n: runs } }));
        expect(answer).toEqual({ status: 202, body: { n: 2 }, replayed: false });
        expect(runs).toBe(2);
      }));

    it('keeps a 4xx and answers it again without running', () =>
      withIdempotency(async (idem) => {
        let runs = 0;
        await expect(idem.run(where, hash, async () => (runs++, Promise.reject(functionExists('f'))))).rejects.toThrow();
        const again = await idem.run(where, hash, async () => (runs++, { status: 202, body: {} }));
        expect(again).toEqual({ status: 409, body: { error: "Function 'f' already exists", code: 'function_exists' }, replayed: true });
        expect(runs).toBe(1);
      }));

    it('answers 409 in progress while the first runs, and the first answer once it is done', () =>
      withIdempotency(async (idem) => {
        let finish!: () => void;
        let started!: () => void;
        const running = new Promise<void>((r) => (started = r));
        const first = idem.run(where, hash, () => {
          started();
          return new Promise((done) => (finish = () => done({ status: 202, body: { id: 'e1' } })));
        });
        // The operation runs only once the claim is stored.
        await running;
        await expect(idem.run(where, hash, async () => ({ status: 202, body: {} }))).rejects.toMatchObject({
          code: 'idempotency_key_in_progress',
          retryAfterS: 1,
        });
        // In progress is transient: an outer scope does not keep it as its answer.
        const outer = { scope: 'outer', key: 'o', field: 'Idempotency-Key' };
        await expect(idem.run(outer, hash, () => idem.run(where, hash, async () => ({ status: 202, body: {} })))).rejects.toMatchObject({
          code: 'idempotency_key_in_progress',
        });
        finish();
        expect(await first).toEqual({ status: 202, body: { id: 'e1' }, replayed: false });
        // The outer key runs again, and its inner id's replay is passed on.
        expect(await idem.run(outer, hash, () => idem.run(where, hash, async () => ({ status: 202, body: {} })))).toEqual({
          status: 202,
          body: { id: 'e1' },
          replayed: true,
        });
      }));

    it('sweeps the keys whose window ended', () =>
      withIdempotency(async (idem, clock) => {
        await idem.run(where, hash, async () => ({ status: 202, body: {} }));
        expect(await idem.sweep()).toBe(0);
        clock.advance(60_000);
        expect(await idem.sweep()).toBe(1);
      }));
  });
}
