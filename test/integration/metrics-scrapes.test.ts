/**
 * `GET /metrics` under a flood of scrapes, on a real server: scrapes that
 * arrive together share one collection of the node (with `--processes 2`, one
 * collection of both processes' series, counted by the primary in
 * `switchyard_metrics_collections_total`), past the bound a scrape is refused
 * at once with 503 `too_many_scrapes` and `Retry-After`, and with
 * `SWITCHYARD_METRICS_TOKEN` set a scrape needs the token. The bound itself,
 * deterministically: test/unit/shared-collection.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'scrape-token-for-the-test';
const BEARER = { authorization: `Bearer ${TOKEN}` };

interface Scrape {
  status: number;
  code?: string;
  retryAfter: string | null;
  collections?: number;
  processes?: number;
}

async function scrape(url: string, headers: Record<string, string> = BEARER): Promise<Scrape> {
  const res = await fetch(`${url}/metrics`, { headers });
  const text = await res.text();
  if (res.status !== 200) return { status: res.status, code: JSON.parse(text).code, retryAfter: res.headers.get('retry-after') };
  const number = (name: string) => {
    const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : undefined;
  };
  return {
    status: 200,
    retryAfter: null,
    collections: number('switchyard_metrics_collections_total'),
    processes: number('switchyard_server_processes'),
  };
}

/** Fires `n` scrapes at once and checks what each got: the node's metrics, or a quick refusal. */
async function flood(url: string, n: number): Promise<Scrape[]> {
  const answers = await Promise.all(Array.from({ length: n }, () => scrape(url)));
  for (const a of answers) {
    if (a.status === 200) {
      expect(a.collections).toBeGreaterThanOrEqual(1);
      continue;
    }
    expect(a).toMatchObject({ status: 503, code: 'too_many_scrapes', retryAfter: '1' });
  }
  return answers;
}

describe('/metrics on two server processes', () => {
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startService({ args: ['--processes', '2', '--metrics-token', TOKEN] });
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
  });

  it('needs the metrics token when one is set', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: TOKEN }] as Record<string, string>[]) {
      const res = await fetch(`${svc.url}/metrics`, { headers });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('unauthorized');
    }
    const ok = await scrape(svc.url);
    expect(ok).toMatchObject({ status: 200, processes: 2 });
    // The probes stay public.
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
  });

  it('shares one collection of the node between scrapes that arrive together', async () => {
    const before = (await scrape(svc.url)).collections!;
    const answers = await flood(svc.url, 40);
    const served = answers.filter((a) => a.status === 200);
    expect(served.length).toBeGreaterThan(0);
    for (const a of served) expect(a.processes).toBe(2);
    // One collection per scrape would give each answer its own count.
    const collections = new Set(served.map((a) => a.collections));
    expect(collections.size).toBeLessThan(served.length);
    const after = (await scrape(svc.url)).collections!;
    expect(after - before).toBeLessThan(served.length + 1);
    console.log(
      `40 scrapes at once: ${served.length} served by ${collections.size} collections, ${answers.length - served.length} refused; ${after - before} collections in all`,
    );
  });
});

describe('/metrics on one server process', () => {
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startService({ env: { SWITCHYARD_METRICS_TOKEN: TOKEN } });
  });

  afterAll(async () => {
    await svc?.stop();
  });

  it('shares one collection between scrapes that arrive together, and always answers what came after the request', async () => {
    const answers = await flood(svc.url, 20);
    const served = answers.filter((a) => a.status === 200);
    expect(served.length).toBeGreaterThan(0);
    expect(new Set(served.map((a) => a.collections)).size).toBeLessThan(served.length);
    // Sequential scrapes are never answered from an older collection: each counts a new one.
    const first = (await scrape(svc.url)).collections!;
    const second = (await scrape(svc.url)).collections!;
    expect(second).toBe(first + 1);
  });
});
