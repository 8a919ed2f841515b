/**
 * Throttles and API keys in switchyard.yaml: an API's and a route's
 * `throttle` (`rate_limit`, `burst_limit`), a route's `api_key_required`,
 * and top-level `usage_plans` (APIs by name, throttle, quota): loaded,
 * planned (the changed keys named), applied, exported and applied back as
 * nothing to do. API keys are never in the file.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { applyPlan, exportProject, parseProject, planProject, readServerState, renderPlan } from '../../src/project/index.js';
import { FakeProjectApi } from '../helpers/project-fake.js';

const FILE = `
version: 1
functions:
  hello: { file: hello.js, event_format: aws-v1 }
apis:
  shop:
    base_path: /shop
    throttle: { rate_limit: 100, burst_limit: 200 }
    routes:
      - { method: GET, path: /items, function: hello, api_key_required: true, throttle: { rate_limit: 0.5, burst_limit: 1 } }
      - { method: GET, path: /health, function: hello }
usage_plans:
  gold:
    apis: [shop]
    throttle: { rate_limit: 10, burst_limit: 20 }
    quota: { limit: 1000, period: DAY }
`;

const load = (text: string) =>
  parseProject(text, '/p/switchyard.yaml', { readFile: async () => 'export const handler = async () => ({ statusCode: 200 });' });

async function roundTrip(api: FakeProjectApi) {
  const exported = await exportProject(api);
  const back = await parseProject(exported.files['switchyard.yaml'], '/x/switchyard.yaml', {
    readFile: async (p) => exported.files[p.replace('/x/', '')],
  });
  return { exported, doc: parseYaml(exported.files['switchyard.yaml']) as Record<string, Record<string, Record<string, unknown>>>, back };
}

describe('throttle and api_key_required in switchyard.yaml', () => {
  it('applies them in the API form, exports them in the file form and plans nothing on the way back', async () => {
    const api = new FakeProjectApi();
    const { project } = await load(FILE);
    expect(project.apis[0].throttle).toEqual({ rateLimit: 100, burstLimit: 200 });
    const plan = planProject(project, await readServerState(api, project));
    expect(plan.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual([
      'create function hello',
      'create api shop',
      'create route GET /items',
      'create route GET /health',
      'create usage_plan gold',
    ]);
    await applyPlan(plan, api);
    expect(api.apis[0].throttle).toEqual({ rateLimit: 100, burstLimit: 200 });
    expect(api.apis[0].routes.map(({ id: _id, ...r }) => r)).toEqual([
      { method: 'GET', path: '/items', function: 'hello', throttle: { rateLimit: 0.5, burstLimit: 1 }, apiKeyRequired: true },
      { method: 'GET', path: '/health', function: 'hello' },
    ]);
    expect(api.usagePlans).toEqual([
      { id: expect.any(String), name: 'gold', apiIds: [api.apis[0].id], throttle: { rateLimit: 10, burstLimit: 20 }, quota: { limit: 1000, period: 'DAY' } },
    ]);

    const { exported, doc, back } = await roundTrip(api);
    expect(doc.apis.shop.throttle).toEqual({ rate_limit: 100, burst_limit: 200 });
    expect((doc.apis.shop.routes as unknown as unknown[])[0]).toEqual({
      method: 'GET',
      path: '/items',
      function: 'hello',
      throttle: { rate_limit: 0.5, burst_limit: 1 },
      api_key_required: true,
    });
    expect((doc.apis.shop.routes as unknown as unknown[])[1]).toEqual({ method: 'GET', path: '/health', function: 'hello' });
    expect(doc.usage_plans).toEqual({ gold: { apis: ['shop'], throttle: { rate_limit: 10, burst_limit: 20 }, quota: { limit: 1000, period: 'DAY' } } });
    expect(exported.notes.join('\n')).toContain('API keys are not exported');
    expect(planProject(back.project, await readServerState(api, back.project)).changes).toEqual([]);
  });

  it('names the changed keys in the plan and resets what the file leaves out', async () => {
    const api = new FakeProjectApi();
    const first = (await load(FILE)).project;
    await applyPlan(planProject(first, await readServerState(api, first)), api);
    const changed = FILE.replace('    throttle: { rate_limit: 100, burst_limit: 200 }\n', '')
      .replace(', api_key_required: true', '')
      .replace('{ method: GET, path: /health, function: hello }', '{ method: GET, path: /health, function: hello, throttle: { rate_limit: 5, burst_limit: 5 } }')
      .replace('limit: 1000', 'limit: 2000');
    const { project } = await load(changed);
    const plan = planProject(project, await readServerState(api, project));
    expect(plan.changes).toEqual([
      { action: 'update', kind: 'api', name: 'shop', fields: ['throttle'] },
      { action: 'update', kind: 'route', name: 'GET /items', api: 'shop', function: 'hello', fields: ['api_key_required'] },
      { action: 'update', kind: 'route', name: 'GET /health', api: 'shop', function: 'hello', fields: ['throttle'] },
      { action: 'update', kind: 'usage_plan', name: 'gold', fields: ['quota'] },
    ]);
    expect(renderPlan(plan)).toContain('~ route GET /items (api shop) -> hello (api_key_required)');
    expect(renderPlan(plan)).toContain('~ usage_plan gold (quota)');
    await applyPlan(plan, api);
    expect(api.apis[0].throttle).toBeNull();
    expect(api.apis[0].routes[0]).not.toHaveProperty('apiKeyRequired');
    expect(api.apis[0].routes[0].throttle).toEqual({ rateLimit: 0.5, burstLimit: 1 });
    expect(api.apis[0].routes[1].throttle).toEqual({ rateLimit: 5, burstLimit: 5 });
    expect(api.usagePlans[0].quota).toEqual({ limit: 2000, period: 'DAY' });
    expect(planProject(project, await readServerState(api, project)).changes).toEqual([]);
  });

  it("keeps the policy of a route the file does not name; prune deletes a usage plan the file does not name", async () => {
    const api = new FakeProjectApi();
    const first = (await load(FILE)).project;
    await applyPlan(planProject(first, await readServerState(api, first)), api);
    const fewer = (await load(FILE.replace(/      - \{ method: GET, path: \/items.*\n/, '').replace(/usage_plans:[\s\S]*$/, ''))).project;
    await applyPlan(planProject(fewer, await readServerState(api, fewer)), api);
    expect(api.apis[0].routes.find((r) => r.path === '/items')).toMatchObject({ apiKeyRequired: true, throttle: { rateLimit: 0.5, burstLimit: 1 } });
    expect(api.usagePlans).toHaveLength(1);
    const pruned = planProject(fewer, await readServerState(api, fewer), { prune: true });
    expect(pruned.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual(['delete route GET /items', 'delete usage_plan gold']);
    await applyPlan(pruned, api);
    expect(api.usagePlans).toEqual([]);
  });

  it('refuses values the API would refuse and a plan naming an API the file lacks, naming the key', async () => {
    for (const [from, to, key] of [
      ['rate_limit: 100', 'rate_limit: 0', 'apis.shop.throttle.rate_limit'],
      ['burst_limit: 200', 'burst_limit: 1.5', 'apis.shop.throttle.burst_limit'],
      ['burst_limit: 200 }', 'burst_limit: 200, rateLimit: 3 }', 'apis.shop.throttle.rateLimit'],
      ['api_key_required: true', 'api_key_required: yes please', 'apis.shop.routes[0].api_key_required'],
      ['period: DAY', 'period: HOUR', 'usage_plans.gold.quota.period'],
      ['apis: [shop]', 'apis: [shop, nope]', 'usage_plans.gold.apis[1]'],
    ]) {
      await expect(load(FILE.replace(from, to)), `${to}`).rejects.toThrow(key);
    }
  });
});
