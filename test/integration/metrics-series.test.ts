/**
 * GET /metrics on prom-client (src/telemetry/metrics.ts), on real servers:
 * the exposition is clean by promtool's rules (test/helpers/exposition.ts),
 * carries the process_*, nodejs_* and switchyard_build_info series; every
 * invoke answer is counted (no API, no route, a wrong method: route ""); the
 * management API's requests are counted by route template; and the series of
 * a deleted function, API, route, webhook or application (its webhooks') are gone at once, in both
 * processes of a `--processes 2` node (the change reaches the sibling).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTo } from '../helpers/cluster-connections.js';
import { readExposition, seriesStarting } from '../helpers/exposition.js';
import { childPids, commandLine, startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const OK = 'exports.handler = async () => ({ statusCode: 200, body: {} });';

async function scrape(svc: RunningService): Promise<string> {
  const res = await svc.request('GET', '/metrics');
  expect(res.status).toBe(200);
  const { problems } = readExposition(res.text);
  expect(problems).toEqual([]);
  return res.text;
}

describe('/metrics of one server process', () => {
  let svc: RunningService;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    svc = await startService({ env: { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
  });
  afterAll(async () => {
    await svc?.stop();
    await receiver?.close();
  });

  it('is clean by promtool\'s rules and has the process, Node.js and build series', async () => {
    const text = await scrape(svc);
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_gc_duration_seconds_count']) {
      expect(text).toMatch(new RegExp(`^${name}(\\{[^}]*\\})? `, 'm'));
    }
    expect(text).toMatch(/^switchyard_build_info\{version="\d+\.\d+\.\d+[^"]*",node_version="v\d+[^"]*",store="(sqlite|postgres)"\} 1$/m);
  });

  it('counts every invoke answer: no API, no route and a wrong method with route ""', async () => {
    expect((await svc.request('POST', '/api/functions', { name: 'counted', code: OK })).status).toBe(201);
    const api = await svc.request('POST', '/api/apis', { name: 'counted', basePath: '/c', routes: [{ method: 'GET', path: '/x', function: 'counted' }] });
    expect(api.status).toBe(201);
    const id = api.json.id;
    expect((await svc.request('GET', `/api/invoke/fn/${id}/c/x`)).status).toBe(200);
    expect((await svc.request('GET', `/api/invoke/fn/${id}/c/nowhere`)).status).toBe(404);
    expect((await svc.request('DELETE', `/api/invoke/fn/${id}/c/x`)).status).toBe(405);
    expect((await svc.request('GET', '/api/invoke/fn/no_such_api/x')).status).toBe(404);
    const text = await scrape(svc);
    expect(text).toContain(`switchyard_http_requests_total{api="${id}",route="GET /c/x",status="200"} 1\n`);
    expect(text).toContain(`switchyard_http_requests_total{api="${id}",route="",status="404"} 1\n`);
    expect(text).toContain(`switchyard_http_requests_total{api="${id}",route="",status="405"} 1\n`);
    // The caller picks an unknown id: one series for all of them.
    expect(text).toMatch(/^switchyard_http_requests_total\{api="",route="",status="404"\} [1-9]/m);
    // The function's first call built its isolate (in a worker process: counted there, reported here).
    expect(text).toMatch(/^switchyard_isolate_cold_starts_total [1-9]/m);
    expect(text).toMatch(/^switchyard_isolates [1-9]/m);
    expect(text).toMatch(/^switchyard_runtime_restarts_total 0$/m);
  });

  it('counts management API requests by method, route template and status', async () => {
    expect((await svc.request('GET', '/api/functions/no-such-function')).status).toBe(404);
    const text = await scrape(svc);
    expect(text).toMatch(/^switchyard_management_requests_total\{method="GET",route="\/api\/functions\/:name",status="404"\} [1-9]/m);
    expect(text).toMatch(/^switchyard_management_requests_total\{method="POST",route="\/api\/functions",status="201"\} [1-9]/m);
    expect(text).toMatch(/^switchyard_management_request_duration_seconds_count\{method="POST",route="\/api\/apis"\} [1-9]/m);
    // Scrapes themselves are not management requests.
    expect(text).not.toContain('route="/metrics"');
  });

  it('counts a restart of an isolate worker process, and keeps the cold starts counted before it', async () => {
    const before = await scrape(svc);
    const cold = Number(/^switchyard_isolate_cold_starts_total (\d+)$/m.exec(before)![1]);
    expect(cold).toBeGreaterThan(0);
    const workers = childPids(svc.proc.pid!).filter((pid) => commandLine(pid).includes('worker.js'));
    expect(workers.length).toBeGreaterThan(0);
    process.kill(workers[0], 'SIGKILL');
    const after = await until(async () => {
      const t = await scrape(svc);
      return /^switchyard_runtime_restarts_total 1$/m.test(t) ? t : null;
    }, 'the restart counted');
    expect(Number(/^switchyard_isolate_cold_starts_total (\d+)$/m.exec(after)![1])).toBeGreaterThanOrEqual(cold);
  });

  it("drops a deleted route's, API's, function's and webhook's series", async () => {
    expect((await svc.request('POST', '/api/functions', { name: 'doomed', code: OK })).status).toBe(201);
    const api = await svc.request('POST', '/api/apis', {
      name: 'doomed',
      basePath: '/d',
      routes: [
        { method: 'GET', path: '/kept', function: 'doomed' },
        { method: 'GET', path: '/dropped', function: 'doomed' },
      ],
    });
    expect(api.status).toBe(201);
    const id = api.json.id;
    const dropped = api.json.routes.find((r: any) => r.path === '/dropped').id;
    for (const path of ['/d/kept', '/d/dropped']) expect((await svc.request('GET', `/api/invoke/fn/${id}${path}`)).status).toBe(200);
    const hook = await svc.request('POST', '/api/webhooks', { name: 'doomed', target_url: receiver.url + '/hook', method: 'POST', payload_template: { n: 1 } });
    expect(hook.status).toBe(201);
    expect((await svc.request('POST', `/api/webhooks/${hook.json.id}/test`)).status).toBe(200);

    let text = await scrape(svc);
    expect(seriesStarting(text, `switchyard_http_requests_total{api="${id}",route="GET /d/dropped"`)).toHaveLength(1);
    expect(seriesStarting(text, `switchyard_http_request_duration_seconds_count{api="${id}",route="GET /d/dropped"`)).toHaveLength(1);
    expect(seriesStarting(text, 'switchyard_function_invocations_total{function="doomed"')).toHaveLength(1);
    expect(text).toContain(`switchyard_webhook_concurrency_limit{webhook="${hook.json.id}"} 50\n`);

    expect((await svc.request('DELETE', `/api/apis/${id}/routes/${dropped}`)).status).toBe(200);
    text = await until(async () => {
      const t = await scrape(svc);
      return seriesStarting(t, `switchyard_http_requests_total{api="${id}",route="GET /d/dropped"`).length === 0 ? t : null;
    }, "the deleted route's series gone");
    expect(seriesStarting(text, `switchyard_http_request_duration_seconds_bucket{api="${id}",route="GET /d/dropped"`)).toEqual([]);
    expect(seriesStarting(text, `switchyard_http_requests_total{api="${id}",route="GET /d/kept"`)).toHaveLength(1);

    expect((await svc.request('DELETE', `/api/apis/${id}`)).status).toBe(200);
    expect((await svc.request('DELETE', '/api/functions/doomed')).status).toBe(200);
    expect((await svc.request('DELETE', `/api/webhooks/${hook.json.id}`)).status).toBe(200);
    text = await until(async () => {
      const t = await scrape(svc);
      return t.includes(`"${id}"`) || t.includes('function="doomed"') || t.includes(hook.json.id) ? null : t;
    }, 'every series of the deleted API, function and webhook gone');
    expect(text).toContain('switchyard_function_invocations_total{function="counted",outcome="ok"} 1\n');
  });

  it("drops the series of a deleted application's webhooks (the cascade announces each)", async () => {
    const app = await svc.request('POST', '/api/applications', { name: 'Doomed app' });
    expect(app.status, app.text).toBe(201);
    const ids: string[] = [];
    for (const name of ['app-hook-1', 'app-hook-2']) {
      const hook = await svc.request('POST', '/api/webhooks', { name, target_url: receiver.url + '/hook', method: 'POST', payload_template: {}, application_id: app.json.id });
      expect(hook.status, hook.text).toBe(201);
      expect((await svc.request('POST', `/api/webhooks/${hook.json.id}/test`)).status).toBe(200);
      ids.push(hook.json.id);
    }
    const before = await scrape(svc);
    for (const id of ids) expect(before).toContain(`switchyard_webhook_concurrency_limit{webhook="${id}"} 50\n`);

    expect((await svc.request("DELETE", `/api/applications/${app.json.id}`)).status).toBe(200);
    await until(async () => {
      const t = await scrape(svc);
      return ids.some((id) => t.includes(id)) ? null : t;
    }, "every series of the deleted application's webhooks gone");
  });
});

describe.skipIf(process.platform !== 'linux')('/metrics of two server processes', () => {
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startService({ env: { SWITCHYARD_PROCESSES: '2', SWITCHYARD_WORKERS: '1' }, startTimeoutMs: 60_000 });
  }, 90_000);
  afterAll(async () => {
    await svc?.stop('SIGKILL');
  });

  it("aggregates both processes cleanly and drops a deleted function's series in both", async () => {
    const a = await connectTo(svc.url, {});
    const b = await connectTo(svc.url, { not: a.pid });
    expect((await a.request('POST', '/api/functions', { name: 'twice', code: OK })).status).toBe(201);
    const api = await a.request('POST', '/api/apis', { name: 'twice', basePath: '/t', routes: [{ method: 'GET', path: '/', function: 'twice' }] });
    expect(api.status).toBe(201);
    const path = `/api/invoke/fn/${api.json.id}/t`;
    await until(async () => (await b.request('GET', path)).status === 200, 'the route through the other process');
    for (let i = 0; i < 3; i++) {
      expect((await a.request('GET', path)).status).toBe(200);
      expect((await b.request('GET', path)).status).toBe(200);
    }
    let text = await scrape(svc);
    expect(text).toMatch(/^switchyard_server_processes 2$/m);
    expect(text).toContain('switchyard_function_invocations_total{function="twice",outcome="ok"} 7\n');
    expect(text.match(/^switchyard_build_info\{/gm)).toHaveLength(1);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    // Isolates in the server processes themselves: each built the function's isolate on its first call.
    expect(text).toMatch(/^switchyard_isolate_cold_starts_total ([2-9]|\d\d)/m);

    expect((await a.request('DELETE', `/api/apis/${api.json.id}`)).status).toBe(200);
    expect((await a.request('DELETE', '/api/functions/twice')).status).toBe(200);
    text = await until(async () => {
      const t = await scrape(svc);
      return t.includes('function="twice"') || t.includes(api.json.id) ? null : t;
    }, "the deleted function's series gone from both processes");
    expect(text).toMatch(/^switchyard_server_processes 2$/m);
    a.close();
    b.close();
  }, 60_000);
});

describe('/metrics on a listener of its own (SWITCHYARD_METRICS_ADDRESS)', () => {
  let svc: RunningService;
  const TOKEN = 'scrape-token-of-its-own-listener';

  beforeAll(async () => {
    svc = await startService({ env: { SWITCHYARD_METRICS_ADDRESS: '127.0.0.1:0', SWITCHYARD_METRICS_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('serves /metrics there alone, behind the token, and nowhere else', async () => {
    expect(svc.metricsUrl).toBeDefined();
    expect(svc.metricsUrl).not.toBe(svc.url);
    const scraped = await fetch(`${svc.metricsUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(scraped.status).toBe(200);
    const text = await scraped.text();
    expect(readExposition(text).problems).toEqual([]);
    expect(text).toContain('# TYPE switchyard_http_requests_total counter');
    expect((await fetch(`${svc.metricsUrl}/metrics`)).status).toBe(401);
    // Nothing else on the metrics listener, and no metrics on the main one.
    expect((await fetch(`${svc.metricsUrl}/api/functions`)).status).toBe(404);
    expect((await fetch(`${svc.metricsUrl}/healthz`)).status).toBe(404);
    const elsewhere = await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(elsewhere.status).toBe(404);
    expect(((await elsewhere.json()) as { code: string }).code).toBe('not_found');
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
  });

  it('serves no other spelling of /metrics on the main listener: the route decides, not the raw path', async () => {
    // The router decodes `%6D` to `m`; a raw-path test alone let these through with every series.
    for (const path of ['/%6Detrics', '/%6d%65trics', '/metrics/', '//metrics']) {
      const res = await fetch(`${svc.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).not.toContain('switchyard_http_requests_total');
    }
  });
});

describe('/metrics on a listener of its own, with an admin listener and no metrics token', () => {
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startService({
      env: { SWITCHYARD_ADMIN_ADDRESS: '127.0.0.1:0', SWITCHYARD_METRICS_ADDRESS: '127.0.0.1:0' },
    });
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('answers 404 to /%6Detrics on the admin and the public listener, and serves the metrics listener', async () => {
    expect(svc.adminUrl).not.toBe(svc.url);
    expect((await fetch(`${svc.metricsUrl}/metrics`)).status).toBe(200);
    for (const base of [svc.adminUrl, svc.url]) {
      for (const path of ['/metrics', '/%6Detrics']) {
        const res = await fetch(`${base}${path}`);
        expect(res.status, `${base}${path}`).toBe(404);
        expect(await res.text()).not.toContain('switchyard_http_requests_total');
      }
    }
    // Other decisions by listener keep to the exact spelling too: no management API on the public listener.
    expect((await fetch(`${svc.url}/%61pi/functions`)).status).toBe(404);
    expect((await fetch(`${svc.url}/%68ealthz`)).status).toBe(404);
  });
});

describe('the Grafana dashboard (docs/grafana-dashboard.json)', () => {
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('parses, and every metric its queries use is in a real scrape', async () => {
    const dashboard = JSON.parse(readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8'));
    const exprs: string[] = dashboard.panels.flatMap((p: any) => p.targets.map((t: any) => t.expr));
    exprs.push(...dashboard.templating.list.filter((v: any) => v.type === 'query').map((v: any) => v.query));
    expect(exprs.length).toBeGreaterThan(10);
    const used = new Set<string>();
    for (const expr of exprs) {
      for (const m of expr.matchAll(/\b((?:switchyard|process|nodejs)_[a-z0-9_]+)/g)) used.add(m[1]);
    }
    const { types } = readExposition(await scrape(svc));
    const families = new Set([...types.keys()].flatMap((name) => (types.get(name) === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name])));
    const missing = [...used].filter((name) => !families.has(name));
    expect(missing).toEqual([]);
    expect(used.size).toBeGreaterThan(10);
  });
});
