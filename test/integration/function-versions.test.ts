/**
 * A function's version history over real HTTP (SQLite, or PostgreSQL with
 * TEST_STORE=postgres): `GET /api/functions/{name}/versions` lists what each
 * deploy and update ran, newest first, without code or env values;
 * `.../versions/{version}` answers one with its code; restoring is a PUT of
 * its fields, which makes a new version.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';

const V1 = `export const handler = async () => ({ statusCode: 200, body: { v: 1 } });`;
const V2 = `export const handler = async () => ({ statusCode: 200, body: { v: 2, note: 'héllo' } });`;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

describe('function versions', () => {
  it('lists each version newest first with its settings, size and hash, but no code or env', async () => {
    const created = await svc.request('POST', '/api/functions', { name: 'vh', code: V1, env: { SECRET: 'hunter2' } });
    expect(created.status, created.text).toBe(201);
    const updated = await svc.request('PUT', '/api/functions/vh', {
      code: V2,
      handler: 'handler',
      event_format: 'aws-v2',
      timeout_ms: 2000,
      memory_mb: 64,
      env: { SECRET: 'hunter3' },
    });
    expect(updated.status, updated.text).toBe(200);

    const res = await svc.request('GET', '/api/functions/vh/versions');
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual([
      {
        version: 2,
        runtime: 'javascript',
        handler: 'handler',
        event_format: 'aws-v2',
        timeout_ms: 2000,
        memory_mb: 64,
        code_sha256: sha(V2),
        code_bytes: Buffer.byteLength(V2),
        created_at: updated.json.updated_at,
      },
      {
        version: 1,
        runtime: 'javascript',
        handler: null,
        event_format: 'switchyard',
        timeout_ms: 10000,
        memory_mb: 128,
        code_sha256: sha(V1),
        code_bytes: Buffer.byteLength(V1),
        created_at: created.json.created_at,
      },
    ]);
    expect(res.json[0].code_bytes).toBeGreaterThan(V2.length); // bytes, not characters
    expect(res.text).not.toContain('hunter');

    const one = await svc.request('GET', '/api/functions/vh/versions/1');
    expect(one.status, one.text).toBe(200);
    expect(one.json).toEqual({ ...res.json[1], code: V1 });
    expect(one.text).not.toContain('hunter');
  });

  it('restores an old version as a new one by sending its fields with PUT', async () => {
    const old = (await svc.request('GET', '/api/functions/vh/versions/1')).json;
    const restored = await svc.request('PUT', '/api/functions/vh', {
      code: old.code,
      runtime: old.runtime,
      handler: old.handler,
      event_format: old.event_format,
      timeout_ms: old.timeout_ms,
      memory_mb: old.memory_mb,
    });
    expect(restored.status, restored.text).toBe(200);
    expect(restored.json).toMatchObject({ version: 3, code_sha256: sha(V1), handler: null, event_format: 'switchyard' });
    // The env is not part of a version: the current variables stay.
    expect(restored.json.env_keys).toEqual(['SECRET']);
    const list = await svc.request('GET', '/api/functions/vh/versions');
    expect(list.json.map((v: { version: number; code_sha256: string }) => [v.version, v.code_sha256])).toEqual([
      [3, sha(V1)],
      [2, sha(V2)],
      [1, sha(V1)],
    ]);
    expect((await svc.request('GET', '/api/functions/vh')).json.code).toBe(V1);
  });

  it('answers 404 with a stable code for an unknown function or version, and 400 naming a bad version', async () => {
    const noFn = await svc.request('GET', '/api/functions/ghost/versions');
    expect(noFn.status).toBe(404);
    expect(noFn.json.code).toBe('function_not_found');
    const noFnVersion = await svc.request('GET', '/api/functions/ghost/versions/1');
    expect(noFnVersion.status).toBe(404);
    expect(noFnVersion.json.code).toBe('function_not_found');
    const noVersion = await svc.request('GET', '/api/functions/vh/versions/99');
    expect(noVersion.status).toBe(404);
    expect(noVersion.json).toMatchObject({ code: 'function_version_not_found' });
    expect(noVersion.json.error).toContain('99');
    for (const bad of ['0', 'abc', '-1', '1.5', '9999999999']) {
      const res = await svc.request('GET', `/api/functions/vh/versions/${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.json).toMatchObject({ code: 'invalid_request', details: { field: 'version' } });
    }
  });

  it('forgets the history with the function', async () => {
    expect((await svc.request('DELETE', '/api/functions/vh')).status).toBe(200);
    expect((await svc.request('GET', '/api/functions/vh/versions')).status).toBe(404);
    const again = await svc.request('POST', '/api/functions', { name: 'vh', code: V2 });
    expect(again.status, again.text).toBe(201);
    const list = await svc.request('GET', '/api/functions/vh/versions');
    expect(list.json.map((v: { version: number }) => v.version)).toEqual([1]);
  });
});
