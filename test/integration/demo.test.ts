/**
 * `switchyard --demo` across restarts and with a broken demo file: the demo
 * creates what is missing and never changes what exists (a user's edits
 * survive a restart), and a demo function that cannot be deployed stops the
 * start with one line naming the file, the function and the line.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startService, tempDbUrl, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const EDITED = `exports.handler = async () => ({ statusCode: 200, body: { edited: true } });`;
const temporary: string[] = [];
const running: RunningService[] = [];

afterAll(async () => {
  await Promise.all(running.map((svc) => svc.stop()));
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts a demo server and waits for the demo to have gone through its APIs
 * (functions come before them, the webhook after): `Hello API` is the last one
 * it creates, and this test deletes it before a restart.
 */
async function startDemo(dbUrl: string): Promise<RunningService> {
  const svc = await startService({ dbUrl, args: ['--demo'] });
  running.push(svc);
  await until(
    async () => {
      const apis = (await svc.request('GET', '/api/apis')).json;
      const webhooks = (await svc.request('GET', '/api/webhooks')).json;
      return Array.isArray(apis) && apis.some((a: { name: string }) => a.name === 'Hello API') && Array.isArray(webhooks) && webhooks.length > 0;
    },
    'the demo to load',
    20_000,
  );
  return svc;
}

async function stop(svc: RunningService): Promise<void> {
  await svc.stop();
  running.splice(running.indexOf(svc), 1);
}

describe('restarting with --demo', () => {
  it('keeps what the user changed and creates only what is missing', async () => {
    const dbUrl = tempDbUrl();
    const first = await startDemo(dbUrl);
    // The demo deploys each function with the handler and event format switchyard.yaml gives it.
    const project = parseYaml(readFileSync(join(ROOT, 'examples', 'switchyard.yaml'), 'utf8')) as {
      functions: Record<string, { handler?: string; event_format?: string }>;
    };
    const demo = { functions: Object.entries(project.functions).map(([name, fn]) => ({ name, ...fn })) };
    expect(demo.functions.length).toBeGreaterThanOrEqual(10);
    for (const wanted of demo.functions) {
      const stored = (await first.request('GET', `/api/functions/${wanted.name}`)).json;
      expect(stored, wanted.name).toMatchObject({ handler: wanted.handler ?? null, event_format: wanted.event_format ?? 'switchyard' });
    }
    expect(demo.functions.filter((f) => f.event_format?.startsWith('aws-')).length).toBeGreaterThanOrEqual(4);
    const edit = await first.request('PUT', '/api/functions/users-list', { code: EDITED });
    expect(edit.status, edit.text).toBe(200);
    const apis = (await first.request('GET', '/api/apis')).json as Array<{ id: string; name: string; routes: Array<{ id: string; method: string; path: string }> }>;
    const users = apis.find((a) => a.name === 'Users API')!;
    const deleteRoute = users.routes.find((r) => r.method === 'DELETE')!;
    expect((await first.request('DELETE', `/api/apis/${users.id}/routes/${deleteRoute.id}`)).status).toBe(200);
    const webhook = (await first.request('GET', '/api/webhooks')).json[0];
    expect((await first.request('PUT', `/api/webhooks/${webhook.id}`, { cron: '0 9 * * *', enabled: false })).status).toBe(200);
    const hello = apis.find((a) => a.name === 'Hello API')!;
    expect((await first.request('DELETE', `/api/apis/${hello.id}`)).status).toBe(200);
    expect((await first.request('DELETE', '/api/functions/hello')).status).toBe(200);
    await stop(first);

    const second = await startDemo(dbUrl);
    const fn = await second.request('GET', '/api/functions/users-list');
    expect(fn.json.version, 'the edited function was redeployed').toBe(edit.json.version);
    expect(fn.json.code).toBe(EDITED);
    const answer = await second.request('GET', `/api/invoke/fn/${users.id}/users`);
    expect(answer.json).toEqual({ edited: true });

    const after = (await second.request('GET', '/api/apis')).json as typeof apis;
    expect(after.filter((a) => a.name === 'Users API').map((a) => a.id)).toEqual([users.id]);
    const routes = after.find((a) => a.name === 'Users API')!.routes.map((r) => `${r.method} ${r.path}`);
    expect(routes, 'the deleted route came back').not.toContain('DELETE /:id');
    expect(routes).toHaveLength(users.routes.length - 1);
    const webhooks = (await second.request('GET', '/api/webhooks')).json;
    expect(webhooks).toHaveLength(1);
    expect(webhooks[0]).toMatchObject({ id: webhook.id, cron: '0 9 * * *', enabled: false });

    // What the user deleted entirely is missing, so the demo creates it again.
    const helloAgain = after.find((a) => a.name === 'Hello API');
    expect(helloAgain).toBeDefined();
    expect(helloAgain!.id).not.toBe(hello.id);
    expect((await second.request('GET', `/api/invoke/fn/${helloAgain!.id}/hello`)).json).toEqual({ hello: 'world' });
  }, 60_000);
});

describe('a demo function file that does not compile', () => {
  it('stops the start with one line naming the file, the function and the line, and a non-zero exit', async () => {
    // A copy of the package, so the shipped examples stay untouched.
    const copy = mkdtempSync(join(tmpdir(), 'switchyard-demo-copy-'));
    temporary.push(copy);
    for (const part of ['dist', 'examples', 'schema', 'package.json']) cpSync(join(ROOT, part), join(copy, part), { recursive: true });
    symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(copy, 'node_modules'), 'dir');
    const file = join(copy, 'examples', 'functions', 'users-list.js');
    const lines = readFileSync(file, 'utf8').split('\n');
    const broken = lines.findIndex((l) => l.startsWith('function positiveInt(')) + 1;
    expect(broken).toBeGreaterThan(0);
    lines[broken - 1] = lines[broken - 1].replace('function positiveInt(', 'function positiveInt((');
    writeFileSync(file, lines.join('\n'));

    const proc = spawn(process.execPath, [join(copy, 'dist', 'cli.js'), '--demo'], {
      cwd: copy,
      env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(copy, 'switchyard.db')}`, SWITCHYARD_WORKERS: '1', SWITCHYARD_PROCESSES: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const code = await new Promise<number | null>((done) => {
      const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
      proc.once('exit', (exitCode) => {
        clearTimeout(timer);
        done(exitCode);
      });
    });

    expect(code, `stdout:\n${stdout}\nstderr:\n${stderr}`).toBe(2);
    const printed = stderr.trimEnd().split('\n');
    expect(printed, stderr).toHaveLength(1);
    expect(printed[0]).toMatch(/^switchyard: the demo function 'users-list' in examples\/functions\/users-list\.js cannot be deployed, line \d+/);
    expect(printed[0]).toContain(`line ${broken} `);
    expect(printed[0]).toContain('start without --demo');
    expect(stdout).not.toContain('with the demo loaded');
  }, 40_000);
});
