/**
 * Read-your-writes. On one node with two server processes behind one port
 * (`--processes 2`), a call made on a NEW connection right after a
 * management write has answered must be served from the new state, whichever
 * process takes it: a new route answers, new code runs, a deleted route is
 * gone. Between two nodes on one database, a call that carries the write's
 * `Switchyard-Change` number as `Switchyard-Min-Change` is served from that
 * state too, and a route missing from a node's cache is looked up again when
 * the store knows of a newer change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTo, send, type Connection } from '../helpers/cluster-connections.js';
import { startService, tempDbUrl, type RunningService } from '../helpers/service.js';

/** One request on a connection of its own (no keep-alive): the primary hands it to either process. */
const fresh = (base: string, method: string, path: string, body?: unknown) => send(false, base, method, path, body);

const code = (v: number) => `exports.handler = async () => ({ statusCode: 200, body: { v: ${v}, pid: process.pid } });`;
const ROUNDS = 100;

describe.skipIf(process.platform !== 'linux')('read-your-writes on one node with two server processes', () => {
  let svc: RunningService;
  let writer: Connection;
  let other: Connection;
  let apiId: string;

  beforeAll(async () => {
    svc = await startService({ env: { SWITCHYARD_PROCESSES: '2', SWITCHYARD_WORKERS: '1' } });
    writer = await connectTo(svc.url, {});
    other = await connectTo(svc.url, { not: writer.pid });
    expect((await writer.request('POST', '/api/functions', { name: 'ryw', code: code(0) })).status).toBe(201);
    const api = await writer.request('POST', '/api/apis', { name: 'ryw', basePath: '/ryw', routes: [{ method: 'GET', path: '/base', function: 'ryw' }] });
    expect(api.status).toBe(201);
    apiId = api.json.id;
    // The other process has the API's route table and the function cached: the case that goes stale.
    expect((await other.request('GET', `/api/invoke/fn/${apiId}/ryw/base`)).json.v).toBe(0);
  });
  afterAll(async () => {
    writer?.close();
    other?.close();
    await svc?.stop('SIGKILL');
  });

  it(`serves a new route, new code and a deleted route at once in the other process and on new connections: 0 stale of ${ROUNDS}`, async () => {
    const stale = { added: 0, updated: 0, deleted: 0 };
    const base = `/api/invoke/fn/${apiId}/ryw`;
    for (let round = 1; round <= ROUNDS; round++) {
      const added = await writer.request('POST', `/api/apis/${apiId}/routes`, { method: 'GET', path: `/r${round}`, function: 'ryw' });
      expect(added.status).toBe(201);
      for (const call of [await other.request('GET', `${base}/r${round}`), await fresh(svc.url, 'GET', `${base}/r${round}`)]) {
        if (call.status !== 200) stale.added++;
      }

      expect((await writer.request('PUT', '/api/functions/ryw', { code: code(round) })).status).toBe(200);
      for (const call of [await other.request('GET', `${base}/base`), await fresh(svc.url, 'GET', `${base}/base`)]) {
        if (call.json?.v !== round) stale.updated++;
      }

      expect((await writer.request('DELETE', `/api/apis/${apiId}/routes/${added.json.id}`)).status).toBe(200);
      for (const call of [await other.request('GET', `${base}/r${round}`), await fresh(svc.url, 'GET', `${base}/r${round}`)]) {
        if (call.status !== 404) stale.deleted++;
      }
    }
    expect(stale).toEqual({ added: 0, updated: 0, deleted: 0 });
  }, 120_000);

  it('answers a write with the number of the change it made', async () => {
    const res = await fresh(svc.url, 'PUT', '/api/functions/ryw', { code: code(1000) });
    expect(res.status).toBe(200);
    expect(res.headers['switchyard-change']).toMatch(/^[1-9][0-9]*$/);
    const read = await fresh(svc.url, 'GET', '/api/functions/ryw');
    expect(read.headers['switchyard-change']).toBeUndefined();
  });
});

describe('between two nodes on one database', () => {
  let a: RunningService;
  let b: RunningService;
  let apiId: string;

  beforeAll(async () => {
    const dbUrl = tempDbUrl();
    a = await startService({ dbUrl, env: { SWITCHYARD_WORKERS: '1' } });
    b = await startService({ dbUrl, env: { SWITCHYARD_WORKERS: '1' } });
    expect((await a.request('POST', '/api/functions', { name: 'nodes', code: code(0) })).status).toBe(201);
    const api = await a.request('POST', '/api/apis', { name: 'nodes', basePath: '/n', routes: [{ method: 'GET', path: '/base', function: 'nodes' }] });
    apiId = api.json.id;
    // Node b caches the table and the function.
    expect((await b.request('GET', `/api/invoke/fn/${apiId}/n/base`)).json.v).toBe(0);
  });
  afterAll(async () => {
    await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')]);
  });

  it("serves a call carrying the write's change number from that state, every time", async () => {
    let stale = 0;
    for (let round = 1; round <= 30; round++) {
      const put = await a.request('PUT', '/api/functions/nodes', { code: code(round) });
      expect(put.status).toBe(200);
      const change = put.headers.get('switchyard-change');
      expect(change).toMatch(/^[0-9]+$/);
      const call = await b.request('GET', `/api/invoke/fn/${apiId}/n/base`, undefined, { 'switchyard-min-change': change! });
      if (call.json?.v !== round) stale++;
    }
    expect(stale).toBe(0);
  });

  it('looks a missing route up again when the store knows of a newer change', async () => {
    for (let round = 1; round <= 40; round++) {
      expect((await a.request('POST', `/api/apis/${apiId}/routes`, { method: 'GET', path: `/m${round}`, function: 'nodes' })).status).toBe(201);
      const call = await b.request('GET', `/api/invoke/fn/${apiId}/n/m${round}`);
      expect(call.status, `round ${round}`).toBe(200);
    }
  });

  it('refuses a change number that is not one, or that the database does not know, naming the header', async () => {
    for (const value of ['abc', '-1', '1e3', '9'.repeat(16), '999999999']) {
      const res = await b.request('GET', `/api/invoke/fn/${apiId}/n/base`, undefined, { 'switchyard-min-change': value });
      expect(res.status, value).toBe(400);
      expect(res.json.details).toEqual({ field: 'Switchyard-Min-Change' });
    }
  });
});
