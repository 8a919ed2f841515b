/**
 * A function's version history in the store, on every backend: each create and
 * update adds its version in the same write, the newest FUNCTION_VERSIONS_KEPT
 * are kept, a delete takes them along, env values never reach them, and
 * migration 12 gives functions that existed before it their current version.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { FUNCTION_VERSIONS_KEPT, type NewFunction, type Store } from '../../src/store/store.js';
import { backends, removeTempDatabases } from '../helpers/store-backends.js';

function fn(name: string, extra: Partial<NewFunction> = {}): NewFunction {
  return {
    name,
    runtime: 'javascript',
    code: `export const handler = () => 'v1 é';`,
    compiled: `exports.handler = () => 'v1 é';`,
    env: { SECRET: 'hunter2' },
    timeoutMs: 10000,
    memoryMb: 128,
    handler: null,
    eventFormat: 'switchyard',
    codeSha256: '1'.repeat(64),
    ...extra,
  };
}

/** One second per reading, so each write gets its own known time. */
function fakeClock() {
  let t = Date.parse('2024-01-01T00:00:00.000Z');
  return () => new Date((t += 1000));
}

afterAll(() => removeTempDatabases());

for (const b of backends()) {
  describe(`function versions on ${b.name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await b.open({ now: fakeClock() });
    });
    afterEach(async () => {
      await store.close();
    });

    it('keeps each deployed version with what it ran, newest first, and the code of each', async () => {
      const created = await store.createFunction(fn('hist'));
      const updated = await store.updateFunction('hist', {
        code: 'export const handler = () => 2;',
        compiled: 'exports.handler = () => 2;',
        codeSha256: '2'.repeat(64),
        handler: 'handler',
        eventFormat: 'aws-v2',
        timeoutMs: 500,
        memoryMb: 64,
        runtime: 'typescript',
        env: { SECRET: 'changed' },
      });
      expect(updated!.version).toBe(2);

      const list = await store.listFunctionVersions('hist');
      expect(list).toEqual([
        {
          version: 2,
          runtime: 'typescript',
          handler: 'handler',
          eventFormat: 'aws-v2',
          timeoutMs: 500,
          memoryMb: 64,
          codeSha256: '2'.repeat(64),
          codeBytes: 'export const handler = () => 2;'.length,
          createdAt: updated!.updatedAt,
        },
        {
          version: 1,
          runtime: 'javascript',
          handler: null,
          eventFormat: 'switchyard',
          timeoutMs: 10000,
          memoryMb: 128,
          codeSha256: '1'.repeat(64),
          // Bytes, not characters: é is two bytes in UTF-8.
          codeBytes: Buffer.byteLength(fn('x').code),
          createdAt: created.createdAt,
        },
      ]);
      expect(list![0]).not.toHaveProperty('code');
      expect(await store.getFunctionVersion('hist', 1)).toEqual({ ...list![1], code: fn('x').code });
      expect((await store.getFunctionVersion('hist', 2))!.code).toBe('export const handler = () => 2;');
      expect(await store.getFunctionVersion('hist', 3)).toBeNull();
      expect(await store.getFunctionVersion('ghost', 1)).toBeNull();
      expect(await store.listFunctionVersions('ghost')).toBeNull();
      // Env values are write-only: no version row holds them.
      expect(JSON.stringify(await store.getFunctionVersion('hist', 1))).not.toContain('hunter2');
    });

    it(`keeps only the newest ${FUNCTION_VERSIONS_KEPT} versions, and a delete takes them all`, async () => {
      await store.createFunction(fn('many'));
      for (let i = 2; i <= FUNCTION_VERSIONS_KEPT + 3; i++) {
        await store.updateFunction('many', { code: `export const handler = () => ${i};` });
      }
      const list = await store.listFunctionVersions('many');
      expect(list!.map((v) => v.version)).toEqual(
        Array.from({ length: FUNCTION_VERSIONS_KEPT }, (_, i) => FUNCTION_VERSIONS_KEPT + 3 - i),
      );
      expect(await store.getFunctionVersion('many', 3)).toBeNull();
      expect((await store.getFunctionVersion('many', 4))!.code).toBe('export const handler = () => 4;');

      expect(await store.deleteFunction('many')).toBe(true);
      expect(await store.listFunctionVersions('many')).toBeNull();
      // A new function of the same name starts its own history.
      await store.createFunction(fn('many'));
      expect((await store.listFunctionVersions('many'))!.map((v) => v.version)).toEqual([1]);
    });

    it('writes no version for an update of a function that does not exist', async () => {
      expect(await store.updateFunction('nobody', { code: 'x' })).toBeNull();
      expect(await store.listFunctionVersions('nobody')).toBeNull();
    });

    it('migration 12 gives every existing function its current version, without env values', async () => {
      const url = await b.freshUrl();
      const first = await openStore(url);
      try {
        await first.createFunction(fn('old'));
        await first.updateFunction('old', { code: 'export const handler = () => "current";', codeSha256: 'c'.repeat(64) });
      } finally {
        await first.close();
      }
      // Back to the schema before migration 12, with the function as it was then.
      await b.exec(url, 'DROP TABLE function_versions');
      await b.exec(url, 'DELETE FROM schema_migrations WHERE version = 12');
      const again = await openStore(url);
      try {
        const list = await again.listFunctionVersions('old');
        expect(list!.map((v) => [v.version, v.codeSha256])).toEqual([[2, 'c'.repeat(64)]]);
        expect((await again.getFunctionVersion('old', 2))!.code).toBe('export const handler = () => "current";');
        const rows = await b.query(url, 'SELECT * FROM function_versions');
        expect(JSON.stringify(rows)).not.toContain('hunter2');
        // And the history goes on from there.
        await again.updateFunction('old', { code: 'export const handler = () => 3;' });
        expect((await again.listFunctionVersions('old'))!.map((v) => v.version)).toEqual([3, 2]);
      } finally {
        await again.close();
      }
    });
  });
}
