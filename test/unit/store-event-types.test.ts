/**
 * The event-type catalogue on every backend: a taken name is a typed
 * conflict, versions are numbered one past the latest even under concurrent
 * writers (the (name, version) key), examples alone change only the latest
 * version, violations keep the newest per type, and deleting a type removes
 * its versions and violations.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/errors.js';
import type { NewEventType, Store } from '../../src/store/store.js';
import { backends, removeTempDatabases, withStore as withBackendStore } from '../helpers/store-backends.js';

afterAll(removeTempDatabases);

const typeOf = (over: Partial<NewEventType> = {}): NewEventType => ({
  name: 'order.created',
  description: 'An order',
  mode: 'off',
  deprecated: false,
  project: null,
  schema: { type: 'object' },
  examples: [{ id: 1 }],
  ...over,
});

for (const backend of backends()) {
  describe(`event types on ${backend.name}`, () => {
    const withStore = (fn: (store: Store) => Promise<void>) => withBackendStore(backend, fn);

    it('creates a type with version 1, refuses its name again, lists by name', () =>
      withStore(async (store) => {
        const t = await store.createEventType(typeOf());
        expect(t).toMatchObject({ name: 'order.created', mode: 'off', deprecated: false, project: null });
        expect(t.versions).toMatchObject([{ version: 1, schema: { type: 'object' }, examples: [{ id: 1 }] }]);
        const again = await store.createEventType(typeOf()).catch((e: unknown) => e);
        expect(again).toBeInstanceOf(ConflictError);
        expect((again as ConflictError).code).toBe('event_type_exists');
        await store.createEventType(typeOf({ name: 'a.first', schema: null, examples: [] }));
        const listed = await store.listEventTypes({ limit: 10 });
        expect(listed.map((x) => x.name)).toEqual(['a.first', 'order.created']);
        expect(listed[0].versions).toEqual([]);
        expect((await store.listEventTypes({ limit: 10, after: 'a.first' })).map((x) => x.name)).toEqual(['order.created']);
      }));

    it('numbers concurrent new versions without a gap or a shared number; examples alone change the latest', () =>
      withStore(async (store) => {
        await store.createEventType(typeOf());
        const writes = await Promise.allSettled(
          Array.from({ length: 8 }, (_, i) => store.updateEventType('order.created', { schema: { type: 'object', title: `v${i}` } })),
        );
        const ok = writes.filter((w) => w.status === 'fulfilled').length;
        const t = (await store.getEventType('order.created'))!;
        expect(t.versions.map((v) => v.version)).toEqual(Array.from({ length: 1 + ok }, (_, i) => i + 1));
        expect(ok).toBeGreaterThan(0);
        await store.updateEventType('order.created', { examples: [{ id: 9 }], mode: 'warn', deprecated: true });
        const after = (await store.getEventType('order.created'))!;
        expect(after).toMatchObject({ mode: 'warn', deprecated: true });
        expect(after.versions.at(-1)!.examples).toEqual([{ id: 9 }]);
        expect(after.versions[0].examples).toEqual([{ id: 1 }]);
        expect(await store.updateEventType('missing', { mode: 'off' })).toBeNull();
      }));

    it('keeps the newest violations per type and deletes them with the type', () =>
      withStore(async (store) => {
        await store.createEventType(typeOf());
        await store.createEventType(typeOf({ name: 'other' }));
        for (let i = 0; i < 7; i++) await store.recordEventViolation({ name: 'order.created', version: 1, path: `/p${i}`, message: 'bad', source: 'publish' }, 5);
        await store.recordEventViolation({ name: 'other', version: 1, path: '/x', message: 'bad', source: 'emit' }, 5);
        const kept = await store.listEventViolations('order.created', 100);
        expect(kept.map((v) => v.path)).toEqual(['/p6', '/p5', '/p4', '/p3', '/p2']);
        expect(await store.listEventViolations('other', 100)).toHaveLength(1);
        // A violation of a type deleted meanwhile is dropped, not an error.
        await store.recordEventViolation({ name: 'gone', version: 1, path: '', message: 'bad', source: 'publish' }, 5);
        expect(await store.deleteEventType('order.created')).toBe(true);
        expect(await store.deleteEventType('order.created')).toBe(false);
        expect(await store.getEventType('order.created')).toBeNull();
        expect(await store.listEventViolations('order.created', 100)).toEqual([]);
      }));
  });
}
