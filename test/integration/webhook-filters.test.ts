/**
 * Webhook payload filters over real HTTP: refused when written (create, update,
 * the tester, `switchyard apply`) with the bad part's path; evaluated at fan-out,
 * so a filtered-out webhook gets no delivery (counted at a real receiver and in
 * its stored deliveries); the publish answer says which webhooks matched and
 * which were filtered out, also when replayed; a changed filter applies to the
 * next publish; the tester says whether an event matches and which part failed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan, createHttpProjectApi, loadProject, planProject, readServerState } from '../../src/project/index.js';
import { killLeftoverClis, runCliToEnd } from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const ENV = { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' };

let svc: RunningService;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startService({ env: ENV });
});

afterAll(async () => {
  killLeftoverClis();
  await svc?.stop();
  await receiver?.close();
});

const arrived = (name: string) => receiver.requests.filter((r) => r.url === `/${name}`).map((r) => JSON.parse(r.body) as { n: number });

async function webhook(name: string, events: string[], filter?: unknown) {
  const res = await svc.request('POST', '/api/webhooks', {
    name,
    target_url: `${receiver.url}/${name}`,
    method: 'POST',
    payload_template: { n: '{{data.n}}' },
    events,
    retry: { max_attempts: 1 },
    ...(filter === undefined ? {} : { filter }),
  });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string; filter: unknown };
}

const publish = (body: unknown, headers: Record<string, string> = {}) => svc.request('POST', '/api/events', body, headers);

async function deliveryCount(id: string): Promise<number> {
  const res = await svc.request('GET', `/api/webhooks/${id}/deliveries?limit=100`);
  expect(res.status).toBe(200);
  return (res.json as unknown[]).length;
}

describe('a webhook filter is checked when written', () => {
  it('refuses a malformed filter on create with 400 invalid_filter naming the path, and creates nothing', async () => {
    const res = await svc.request('POST', '/api/webhooks', {
      name: 'bad-filter',
      target_url: `${receiver.url}/bad`,
      method: 'POST',
      payload_template: {},
      events: ['order.created'],
      filter: { data: { amount: { $gte: 'a', $between: [1, 2] } } },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.json.code).toBe('invalid_filter');
    expect(res.json.details).toMatchObject({ field: 'filter', path: 'filter.data.amount.$between' });
    expect(res.json.error).toMatch(/filter\.data\.amount\.\$between/);
    const list = await svc.request('GET', '/api/webhooks?limit=100');
    expect((list.json as Array<{ name: string }>).map((w) => w.name)).not.toContain('bad-filter');
  });

  it('refuses a pattern RE2 cannot run and one past the bound on update, keeping the stored filter', async () => {
    const hook = await webhook('update-refused', ['x.y'], { data: { region: { $regex: '^eu-' } } });
    for (const filter of [{ data: { s: { $regex: '(a)\\1' } } }, { data: { s: { $regex: 'a'.repeat(513) } } }]) {
      const res = await svc.request('PUT', `/api/webhooks/${hook.id}`, { filter });
      expect(res.status, res.text).toBe(400);
      expect(res.json).toMatchObject({ code: 'invalid_filter', details: { path: 'filter.data.s.$regex' } });
    }
    expect((await svc.request('GET', `/api/webhooks/${hook.id}`)).json.filter).toEqual({ data: { region: { $regex: '^eu-' } } });
    const cleared = await svc.request('PUT', `/api/webhooks/${hook.id}`, { filter: null });
    expect(cleared.status).toBe(200);
    expect(cleared.json.filter).toBeNull();
  });

  it('refuses a filter that is not an object at the schema, naming the field', async () => {
    const res = await svc.request('POST', '/api/webhooks', { name: 'arr', target_url: `${receiver.url}/arr`, method: 'POST', payload_template: {}, filter: [1] });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/filter/);
  });
});

describe('filters at fan-out', () => {
  it('delivers only to the webhooks whose filter matches, and says which matched and which were filtered out', async () => {
    const big = await webhook('big-orders', ['order.created'], { data: { amount: { $gte: 100 } } });
    const eu = await webhook('eu-checkout', ['order.created'], {
      data: { region: { $regex: '^eu-' }, 'items.$.sku': { $in: ['A-1', 'B-2'] } },
      headers: { 'X-Source': 'checkout' },
    });
    const all = await webhook('all-orders', ['order.created']);

    const small = await publish({ event: 'order.created', data: { n: 1, amount: 50, region: 'eu-west-1', items: [{ sku: 'B-2' }] }, headers: { 'x-source': 'checkout' } });
    expect(small.status, small.text).toBe(202);
    expect(small.json.webhooks).toEqual({ matched: [eu.id, all.id].sort(), filtered_out: [big.id] });
    expect(small.json.deliveries).toHaveLength(2);

    const large = await publish({ event: 'order.created', data: { n: 2, amount: 500, region: 'us-east-1', items: [] }, headers: { 'X-Source': 'checkout' } });
    expect(large.json.webhooks).toEqual({ matched: [big.id, all.id].sort(), filtered_out: [eu.id] });

    const noHeader = await publish({ event: 'order.created', data: { n: 3, amount: 10, region: 'eu-central-1', items: [{ sku: 'A-1' }] } });
    expect(noHeader.json.webhooks).toEqual({ matched: [all.id], filtered_out: [big.id, eu.id].sort() });

    await until(() => arrived('all-orders').length === 3, 'all three at the webhook without a filter');
    await until(() => arrived('big-orders').length === 1 && arrived('eu-checkout').length === 1, 'one each at the filtered ones');
    expect(arrived('big-orders').map((b) => b.n)).toEqual([2]);
    expect(arrived('eu-checkout').map((b) => b.n)).toEqual([1]);
    expect(await deliveryCount(big.id)).toBe(1);
    expect(await deliveryCount(eu.id)).toBe(1);
    // The matched list follows the deliveries, one for one.
    const first = await svc.request('GET', `/api/deliveries/${large.json.deliveries[0]}`);
    expect(first.json.webhook_id).toBe(large.json.webhooks.matched[0]);
  });

  it('applies a changed filter to the next publish', async () => {
    const hook = await webhook('changing', ['plan.changed'], { data: { tier: 'gold' } });
    expect((await publish({ event: 'plan.changed', data: { n: 1, tier: 'silver' } })).json.webhooks.filtered_out).toEqual([hook.id]);
    expect((await svc.request('PUT', `/api/webhooks/${hook.id}`, { filter: { data: { tier: { $in: ['gold', 'silver'] } } } })).status).toBe(200);
    expect((await publish({ event: 'plan.changed', data: { n: 2, tier: 'silver' } })).json.webhooks.matched).toEqual([hook.id]);
    await until(() => arrived('changing').length === 1, 'the delivery after the change');
    expect(arrived('changing')[0].n).toBe(2);
  });

  it('replays the same webhooks lists for a repeated Idempotency-Key', async () => {
    const hook = await webhook('replayed', ['refund.created'], { data: { amount: { $lt: 0 } } });
    const body = { event: 'refund.created', data: { n: 1, amount: 5 } };
    const first = await publish(body, { 'idempotency-key': 'refund-1' });
    expect(first.json.webhooks).toEqual({ matched: [], filtered_out: [hook.id] });
    const again = await publish(body, { 'idempotency-key': 'refund-1' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toEqual(first.json);
  });

  it('refuses event headers that are not header names or strings', async () => {
    expect((await publish({ event: 'x.y', headers: { 'bad name': 'v' } })).status).toBe(400);
    expect((await publish({ event: 'x.y', headers: { 'x-n': 5 } })).status).toBe(400);
  });
});

describe('switchyard events publish --header', () => {
  it('sends the event headers the filters match, and says how many webhooks were filtered out', async () => {
    const hook = await webhook('cli-source', ['cli.filtered'], { headers: { 'x-source': 'cli' } });
    const other = await publish({ event: 'cli.filtered', data: { n: 0 } });
    expect(other.json.webhooks.filtered_out).toEqual([hook.id]);
    const kept = await runCliToEnd(['events', 'publish', 'cli.filtered', '--data', '{"n": 1}', '--header', 'X-Source: admin'], { SWITCHYARD_URL: svc.url }, 30_000);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stderr).toContain('0 webhook deliveries (1 webhook filtered out)');
    const sent = await runCliToEnd(['events', 'publish', 'cli.filtered', '--data', '{"n": 2}', '-H', 'x-source: cli', '--json'], { SWITCHYARD_URL: svc.url }, 30_000);
    expect(sent.code, sent.stderr).toBe(0);
    expect(JSON.parse(sent.stdout).webhooks).toEqual({ matched: [hook.id], filtered_out: [] });
    const bad = await runCliToEnd(['events', 'publish', 'cli.filtered', '--header', 'no colon'], { SWITCHYARD_URL: svc.url }, 30_000);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--header takes/);
    await until(() => arrived('cli-source').length === 1, 'the one the filter let through');
    expect(arrived('cli-source')[0].n).toBe(2);
  });
});

describe('POST /api/events/filter-test', () => {
  it('says whether an event matches, and which part failed', async () => {
    const filter = { data: { amount: { $gte: 100 }, tags: 'urgent' }, headers: { 'x-env': 'prod' } };
    const yes = await svc.request('POST', '/api/events/filter-test', { filter, event: { data: { amount: 120, tags: ['urgent'] }, headers: { 'X-Env': 'prod' } } });
    expect(yes.status, yes.text).toBe(200);
    expect(yes.json).toEqual({ matched: true, failed: null });
    const no = await svc.request('POST', '/api/events/filter-test', { filter, event: { data: { amount: 99, tags: ['urgent'] }, headers: { 'x-env': 'prod' } } });
    expect(no.json).toEqual({ matched: false, failed: { path: 'data.amount', operator: '$gte', expected: 100, actual: 99 } });
    const noHeader = await svc.request('POST', '/api/events/filter-test', { filter, event: { data: { amount: 120, tags: ['urgent'] } } });
    expect(noHeader.json).toEqual({ matched: false, failed: { path: 'headers.x-env', operator: '$eq', expected: 'prod' } });
  });

  it('refuses a malformed filter as a webhook write does', async () => {
    const res = await svc.request('POST', '/api/events/filter-test', { filter: { data: { a: { $in: [] } } }, event: { data: {} } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'invalid_filter', details: { path: 'filter.data.a.$in' } });
  });
});

describe('filter in switchyard.yaml', () => {
  const project = (filter: string) => `
webhooks:
  y-filtered:
    target_url: ${receiver.url}/y-filtered
    method: POST
    payload_template: { n: '{{data.n}}' }
    events: [order.created]
    filter: ${filter}
`;
  const dirWith = (text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-filters-'));
    writeFileSync(join(dir, 'switchyard.yaml'), text);
    return dir;
  };
  const plan = async (dir: string) => {
    const api = createHttpProjectApi({ baseUrl: svc.url });
    const { project: p } = await loadProject(join(dir, 'switchyard.yaml'), { env: {} });
    return { api, plan: planProject(p, await readServerState(api, p)) };
  };

  it('applies a filter, plans nothing again, plans a change of it, and refuses a malformed one from the server', async () => {
    const dir = dirWith(project(`{ data: { amount: { $gte: 100 } } }`));
    const first = await plan(dir);
    await applyPlan(first.plan, first.api);
    const stored = (await first.api.listWebhooks()).find((w) => w.name === 'y-filtered')!;
    expect(stored.filter).toEqual({ data: { amount: { $gte: 100 } } });
    expect((await plan(dir)).plan.changes).toEqual([]);

    writeFileSync(join(dir, 'switchyard.yaml'), project(`{ data: { amount: { $gte: 200 } } }`));
    const changed = await plan(dir);
    expect(changed.plan.changes.map((c) => c.name)).toEqual(['y-filtered']);

    writeFileSync(join(dir, 'switchyard.yaml'), project(`{ data: { amount: { $gte: [1] } } }`));
    const bad = await plan(dir);
    const err = (await applyPlan(bad.plan, bad.api).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(String(err.message)).toMatch(/filter\.data\.amount\.\$gte/);
    expect((await bad.api.listWebhooks()).find((w) => w.name === 'y-filtered')!.filter).toEqual({ data: { amount: { $gte: 100 } } });
  });
});
