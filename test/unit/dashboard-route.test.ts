/**
 * The dashboard's routes (src/http/dashboard.ts) on a bare Fastify app over a
 * folder laid out like the build's: the page with its security headers, only
 * files listed in assets/ (nothing else of the disk, however the name is
 * spelled), and a 503 saying how to build when there is no build.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_CSP, registerDashboardRoutes } from '../../src/http/dashboard.js';
import { registerErrorHandling } from '../../src/http/errors.js';

let dir: string;
let app: FastifyInstance;

async function appOver(folder: string): Promise<FastifyInstance> {
  const fastify = Fastify({ logger: false });
  registerErrorHandling(fastify);
  registerDashboardRoutes(fastify, undefined, folder);
  await fastify.ready();
  return fastify;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-dashboard-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" src="/assets/index-abc.js"></script>');
  writeFileSync(join(dir, 'assets', 'index-abc.js'), 'console.log(1)');
  writeFileSync(join(dir, 'assets', 'index-abc.css'), 'body{}');
  writeFileSync(join(dir, 'secret.txt'), 'not served');
  app = await appOver(dir);
});

afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('dashboard routes', () => {
  it('serve the page uncached with a CSP that allows no inline script and no framing', async () => {
    const res = await app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    expect(DASHBOARD_CSP).not.toContain('unsafe-inline');
    expect(DASHBOARD_CSP).toContain("frame-ancestors 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    // Functions may share the origin: no handle on the page from one that opens it, no embedding elsewhere.
    expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
    expect(res.body).toContain('/assets/index-abc.js');
  });

  it('serve the built assets with their types, cached for a year', async () => {
    const js = await app.inject({ method: 'GET', url: '/assets/index-abc.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.body).toBe('console.log(1)');
    const css = await app.inject({ method: 'GET', url: '/assets/index-abc.css' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('serve nothing that is not a file of assets/, however the name is spelled', async () => {
    for (const url of ['/assets/..%2fsecret.txt', '/assets/..%2findex.html', '/assets/%2e%2e%2fsecret.txt', '/assets/nope.js', '/assets/', '/secret.txt']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).not.toContain('not served');
    }
  });

  it('answer 503 saying how to build when there is no build', async () => {
    const bare = await appOver(join(dir, 'missing'));
    const res = await bare.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('npm run build');
    await bare.close();
  });
});
