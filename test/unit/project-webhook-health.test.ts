/**
 * A webhook's endpoint-health settings in switchyard.yaml (`breaker`,
 * `rate_limit`, `auto_disable`): loaded with the server's defaults, those
 * it derives from the value included (a rate limit's burst, auto-disable's
 * span); planned against what the server answers; applied; exported as the
 * keys that differ from the defaults, and applied back as nothing to do.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { applyPlan, exportProject, parseProject, planProject, readServerState, type Project } from '../../src/project/index.js';
import { FakeProjectApi } from '../helpers/project-fake.js';

const hook = (settings: string) => `
webhooks:
  orders:
    target_url: https://example.com/orders
    method: POST
    payload_template: { event: '{{event}}' }
${settings}`;

const load = async (text: string) => (await parseProject(text, '/p/switchyard.yaml', { readFile: async () => '' })).project;
const planOf = async (project: Project, api: FakeProjectApi) => planProject(project, await readServerState(api, project));

/** The export's webhook entry, and its file loaded back. */
async function exported(api: FakeProjectApi) {
  const out = await exportProject(api);
  const doc = parseYaml(out.files['switchyard.yaml']) as { webhooks: Record<string, Record<string, unknown>> };
  return { entry: doc.webhooks.orders, project: await load(out.files['switchyard.yaml']) };
}

describe('endpoint-health settings of a webhook', () => {
  it('load with the defaults filled: keys left out, the burst of a rate, the span of a short auto-disable', async () => {
    const none = (await load(hook(''))).webhooks[0];
    expect(none).toMatchObject({
      breaker: { enabled: true, min_attempts: 20, failure_ratio: 0.5, window_s: 60 },
      rate_limit: null,
      auto_disable: { enabled: true, after_s: 432_000, min_span_s: 43_200 },
    });
    const some = (
      await load(hook('    breaker: { min_attempts: 5 }\n    rate_limit: { per_second: 250 }\n    auto_disable: { after_s: 3600 }'))
    ).webhooks[0];
    expect(some).toMatchObject({
      breaker: { enabled: true, min_attempts: 5, failure_ratio: 0.5, window_s: 60 },
      // A fiftieth of a second of the rate, as the server fills it.
      rate_limit: { per_second: 250, burst: 5 },
      // 12 h would be longer than the hour itself, which the server refuses: it takes the hour.
      auto_disable: { enabled: true, after_s: 3600, min_span_s: 3600 },
    });
  });

  it('a rate limit without a burst plans nothing against a server that answers its default burst', async () => {
    const api = new FakeProjectApi();
    const project = await load(hook('    rate_limit: { per_second: 10 }'));
    const first = await planOf(project, api);
    expect(first.changes).toEqual([{ action: 'create', kind: 'webhook', name: 'orders' }]);
    await applyPlan(first, api);
    expect(api.webhooks[0].rate_limit).toEqual({ per_second: 10, burst: 1 });
    expect((await planOf(project, api)).changes).toEqual([]);
    // Another rate, or a burst of its own, is a change; removing the limit is one too.
    const plans = await Promise.all(
      ['    rate_limit: { per_second: 20 }', '    rate_limit: { per_second: 10, burst: 5 }', ''].map(async (s) => (await planOf(await load(hook(s)), api)).changes),
    );
    for (const changes of plans) expect(changes).toEqual([{ action: 'update', kind: 'webhook', name: 'orders', fields: ['rate_limit'] }]);
    await applyPlan(await planOf(await load(hook('')), api), api);
    expect(api.webhooks[0].rate_limit).toBeNull();
  });

  it('export writes only what differs from the defaults, and applies back as nothing to do', async () => {
    const api = new FakeProjectApi();
    const file = hook('    breaker: { enabled: true, failure_ratio: 0.8, window_s: 60 }\n    rate_limit: { per_second: 10 }\n    auto_disable: { after_s: 3600 }');
    await applyPlan(await planOf(await load(file), api), api);
    const { entry, project } = await exported(api);
    expect(entry.breaker).toEqual({ failure_ratio: 0.8 });
    expect(entry.rate_limit).toEqual({ per_second: 10 });
    expect(entry.auto_disable).toEqual({ after_s: 3600 });
    expect((await planOf(project, api)).changes).toEqual([]);

    // A burst other than the default is written; a webhook at every default writes none of the three keys.
    await applyPlan(await planOf(await load(hook('    rate_limit: { per_second: 10, burst: 4 }')), api), api);
    expect((await exported(api)).entry.rate_limit).toEqual({ per_second: 10, burst: 4 });
    await applyPlan(await planOf(await load(hook('')), api), api);
    const plain = await exported(api);
    expect(Object.keys(plain.entry)).toEqual(['target_url', 'method', 'payload_template']);
    expect((await planOf(plain.project, api)).changes).toEqual([]);
  });

  it('auto_disable { enabled: false } applies, plans nothing again, and exports as itself', async () => {
    const api = new FakeProjectApi();
    const project = await load(hook('    auto_disable: { enabled: false }'));
    await applyPlan(await planOf(project, api), api);
    // The server keeps no spans for an auto-disable that is off, and answers the default ones.
    expect(api.webhooks[0].auto_disable).toEqual({ enabled: false, after_s: 432_000, min_span_s: 43_200 });
    expect((await planOf(project, api)).changes).toEqual([]);
    // Spans written beside enabled: false are what the server drops: no change either.
    expect((await planOf(await load(hook('    auto_disable: { enabled: false, after_s: 600 }')), api)).changes).toEqual([]);
    const { entry, project: back } = await exported(api);
    expect(entry.auto_disable).toEqual({ enabled: false });
    expect((await planOf(back, api)).changes).toEqual([]);
    // Turned on again by leaving it out.
    expect((await planOf(await load(hook('')), api)).changes).toEqual([{ action: 'update', kind: 'webhook', name: 'orders', fields: ['auto_disable'] }]);
  });
});
