/**
 * Applications with two server processes on one port: what one process wrote
 * the other answers from at once (a portal token made through one opens the
 * consumer API through the other; revoked through one, it is refused by the
 * other), an application's events per second hold for the cluster (a
 * bucket in the database, not one per process), and so does its max_endpoints
 * when both processes create its webhooks at once (counted in the insert's
 * transaction).
 */
import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from '../helpers/cluster-connections.js';
import { startService, type RunningService } from '../helpers/service.js';

const KEY = 'applications-cluster-admin-key';

describe.skipIf(process.platform !== 'linux')('applications across two server processes', () => {
  let svc: RunningService;
  const agents: Agent[] = [];

  beforeAll(async () => {
    svc = await startService({ env: { SWITCHYARD_PROCESSES: '2', SWITCHYARD_WORKERS: '1', SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' }, startTimeoutMs: 60_000 });
    // One kept-alive connection to each process.
    const seen = new Set<number>();
    for (let i = 0; i < 50 && agents.length < 2; i++) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const pid = (await send(agent, svc.url, 'GET', '/healthz')).json.pid as number;
      if (seen.has(pid)) agent.destroy();
      else {
        seen.add(pid);
        agents.push(agent);
      }
    }
    expect(agents).toHaveLength(2);
  }, 90_000);
  afterAll(async () => {
    for (const a of agents) a.destroy();
    await svc?.stop('SIGKILL');
  });

  // With its length: node's client sends a DELETE's body chunked otherwise, which no client of the API does.
  const on = (i: number, method: string, path: string, body?: unknown, token = KEY) =>
    send(agents[i], svc.url, method, path, body, {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(JSON.stringify(body))) }),
    });

  it('a token made by one process opens the consumer API on the other, and a revoke through one ends it on both', async () => {
    const app = await on(0, 'POST', '/api/applications', { name: 'Clustered' });
    expect(app.status).toBe(201);
    const access = await on(1, 'POST', `/api/applications/${app.json.id}/portal-access`, {});
    expect(access.status).toBe(201);
    const token = access.json.token as string;
    for (const i of [0, 1]) expect((await on(i, 'GET', '/api/portal/session', undefined, token)).status).toBe(200);
    expect((await on(0, 'DELETE', `/api/applications/${app.json.id}/portal-access`, {})).json).toEqual({ revoked: 1 });
    for (const i of [0, 1]) expect((await on(i, 'GET', '/api/portal/session', undefined, token)).status).toBe(401);
  });

  it("holds an application's events per second for both processes together", async () => {
    const app = await on(0, 'POST', '/api/applications', { name: 'Slow', limits: { events_per_second: 0.01 } });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await on(i % 2, 'POST', '/api/events', { event: 'e.z', application: app.json.id })).status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
  });

  it("holds an application's max_endpoints for both processes creating at once", async () => {
    const app = await on(0, 'POST', '/api/applications', { name: 'Few', limits: { max_endpoints: 2 } });
    const create = (i: number, n: number) =>
      on(i % 2, 'POST', '/api/webhooks', { name: `few-${n}`, target_url: 'http://127.0.0.1:9/few', method: 'POST', payload_template: {}, application_id: app.json.id });
    const statuses = (await Promise.all(Array.from({ length: 8 }, (_, n) => create(n, n)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(2);
    expect(statuses.filter((s) => s === 422)).toHaveLength(6);
    expect((await on(1, 'GET', `/api/webhooks?application=${app.json.id}`)).json).toHaveLength(2);
  });
});
