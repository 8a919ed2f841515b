/**
 * `switchyard import` and `apply` of imported projects, against a real
 * server through the real CLI: two `sam init` projects side by side, an
 * apply that refuses to take over another project's objects (and one that
 * is told to), function URLs and the HTTP API's $default route answering
 * over HTTP, the old `service: {name}` form, service files written as code
 * or JSON, missing handler files, `apply --only` and every problem in one
 * round.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killLeftoverClis, runCliToEnd, writeProject } from '../helpers/cli.js';
import { startService, type RunningService } from '../helpers/service.js';

const FIXTURES = resolve(import.meta.dirname, '..', 'fixtures');
let svc: RunningService;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'switchyard-cli-import-'));
  svc = await startService();
}, 60_000);

afterAll(async () => {
  killLeftoverClis();
  await svc?.stop();
  rmSync(root, { recursive: true, force: true });
});

const cli = (args: string[]) => runCliToEnd(args, { SWITCHYARD_URL: svc.url });

/** A fixture folder copied under `name` (SAM projects are named by their folder). */
function copy(fixture: string, name: string): string {
  const dir = join(root, name);
  cpSync(join(FIXTURES, fixture), dir, { recursive: true });
  return dir;
}

async function invokeByApiName(apiName: string, path: string, method = 'GET') {
  const apis = (await svc.request('GET', '/api/apis?limit=1000')).json as Array<{ id: string; name: string; basePath: string }>;
  const api = apis.find((a) => a.name === apiName);
  if (!api) throw new Error(`no API ${apiName} (${apis.map((a) => a.name).join(', ')})`);
  return svc.request(method, `/api/invoke/fn/${api.id}${path}`);
}

describe('two sam init projects', () => {
  it('import with names of their own and coexist on one server; each object records its project', async () => {
    const a = copy('sam-init/sam-app', 'sam-app');
    const b = copy('sam-init/orders-app', 'orders-app');
    for (const dir of [a, b]) {
      const imported = await cli(['import', join(dir, 'template.yaml')]);
      expect(imported.code, imported.stderr).toBe(0);
      const applied = await cli(['apply', '-f', dir]);
      expect(applied.code, applied.stderr).toBe(0);
    }
    expect(readFileSync(join(a, 'switchyard.yaml'), 'utf8')).toMatch(/^project: sam-app$/m);
    expect((await invokeByApiName('sam-app-ServerlessRestApi', '/hello')).json).toMatchObject({ project: 'sam-app' });
    expect((await invokeByApiName('orders-app-ServerlessRestApi', '/hello')).json).toMatchObject({ project: 'orders-app', message: 'hello from orders' });
    const fn = await svc.request('GET', '/api/functions/orders-app-HelloWorldFunction');
    expect(fn.json).toMatchObject({ project: 'orders-app' });
    // Applied again: nothing to do (the owner is already recorded).
    const again = await cli(['apply', '-f', a]);
    expect(again.stdout).toContain('No changes');
  });

  it('with bare names the second is refused, naming each object and its owner, and nothing changes; --take-over takes them', async () => {
    const a = copy('sam-init/sam-app', 'bare-a');
    const b = copy('sam-init/orders-app', 'bare-b');
    for (const dir of [a, b]) expect((await cli(['import', join(dir, 'template.yaml'), '--bare-names'])).code).toBe(0);
    expect((await cli(['apply', '-f', a])).code).toBe(0);

    const refused = await cli(['apply', '-f', b]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("functions.HelloWorldFunction: function 'HelloWorldFunction' belongs to project 'bare-a', and this file is project 'bare-b': pass --take-over");
    expect(refused.stderr).toContain("apis.ServerlessRestApi: API 'ServerlessRestApi' belongs to project 'bare-a'");
    expect((await invokeByApiName('ServerlessRestApi', '/hello')).json).toMatchObject({ project: 'sam-app' });

    const taken = await cli(['apply', '-f', b, '--take-over']);
    expect(taken.code, taken.stderr).toBe(0);
    expect((await invokeByApiName('ServerlessRestApi', '/hello')).json).toMatchObject({ project: 'orders-app' });
    expect((await svc.request('GET', '/api/functions/HelloWorldFunction')).json).toMatchObject({ project: 'bare-b' });
    // Now the first is the one refused.
    const back = await cli(['apply', '-f', a]);
    expect(back.code).toBe(1);
    expect(back.stderr).toContain("belongs to project 'bare-b'");
  });

  it('a function made by hand is not changed by a project (and prune leaves it), unless taken over', async () => {
    const made = await svc.request('POST', '/api/functions', { name: 'by-hand', code: 'exports.handler = async () => ({ statusCode: 200, body: "hand" });' });
    expect(made.status).toBe(201);
    const dir = writeProject(root, 'owner-hand', {
      'switchyard.yaml': 'project: tidy\nfunctions:\n  by-hand:\n    file: fn.js\n  tidy-one:\n    file: fn.js\n',
      'fn.js': 'exports.handler = async () => ({ statusCode: 200, body: "project" });',
    });
    const refused = await cli(['apply', '-f', dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("function 'by-hand' belongs to no project (made by hand or before owners were recorded), and this file is project 'tidy'");
    expect((await svc.request('GET', '/api/functions/tidy-one')).status).toBe(404);

    writeFileSync(join(dir, 'switchyard.yaml'), 'project: tidy\nfunctions:\n  tidy-one:\n    file: fn.js\n');
    const pruned = await cli(['apply', '-f', dir, '--prune']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).not.toContain('- function by-hand');
    expect((await svc.request('GET', '/api/functions/by-hand')).status).toBe(200);

    writeFileSync(join(dir, 'switchyard.yaml'), 'project: tidy\nfunctions:\n  by-hand:\n    file: fn.js\n  tidy-one:\n    file: fn.js\n');
    const taken = await cli(['apply', '-f', dir, '--take-over']);
    expect(taken.code, taken.stderr).toBe(0);
    expect((await svc.request('GET', '/api/functions/by-hand')).json).toMatchObject({ project: 'tidy' });
  });
});

describe('function URLs and quick-create HTTP APIs', () => {
  it('SAM FunctionUrlConfig and an HttpApi event without ApiId answer at / and below as payload 2.0', async () => {
    const dir = copy('sam-init/url-app', 'url-app');
    const imported = await cli(['import', join(dir, 'template.yaml'), '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ project: 'url-app', not_carried: ['Resources.VisitsTable (AWS::DynamoDB::Table)'] });
    const applied = await cli(['apply', '-f', dir]);
    expect(applied.code, applied.stderr).toBe(0);

    const rootCall = await invokeByApiName('url-app-UrlFunction-url', '/');
    expect(rootCall.json).toEqual({ version: '2.0', rawPath: '/', method: 'GET' });
    const deep = await invokeByApiName('url-app-UrlFunction-url', '/reports/2024', 'POST');
    expect(deep.json).toEqual({ version: '2.0', rawPath: '/reports/2024', method: 'POST' });
    expect((await invokeByApiName('url-app-ServerlessHttpApi', '/')).text).toBe('caught GET /');
    expect((await invokeByApiName('url-app-ServerlessHttpApi', '/a/b', 'DELETE')).text).toBe('caught DELETE /a/b');
  });

  it('serverless.yml url: true under the old service.name form: an API per URL, named by the service; what is not carried named', async () => {
    const dir = copy('serverless/function-url', 'sls-url');
    const imported = await cli(['import', join(dir, 'serverless.yml')]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/: 2 functions, 2 APIs, 0 webhooks\.$/m);
    expect(imported.stdout).toContain('not carried: functions.hello.vpc');
    const applied = await cli(['apply', '-f', dir]);
    expect(applied.code, applied.stderr).toBe(0);
    expect((await invokeByApiName('url-service-hello-url', '/any/where')).json).toEqual({ message: 'Go Serverless!', path: '/any/where', version: '2.0' });
    const apis = (await svc.request('GET', '/api/apis?limit=1000')).json as Array<{ name: string }>;
    expect(apis.some((a) => a.name === 'service')).toBe(false);
  });
});

describe('service files', () => {
  it('serverless.ts is refused with what to do instead; nothing is written', async () => {
    const dir = copy('serverless/code-service', 'code-service');
    const r = await cli(['import', join(dir, 'serverless.ts')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is a service file written as code, which import does not run: convert it to serverless.yml, or render it with `serverless print > serverless.yml`');
    expect(() => readFileSync(join(dir, 'switchyard.yaml'))).toThrow();
  });

  it('serverless.json imports as serverless.yml does', async () => {
    const dir = writeProject(root, 'json-service', {
      'serverless.json': JSON.stringify({ service: 'json-svc', provider: { name: 'aws' }, functions: { ping: { handler: 'ping.handler', events: [{ httpApi: 'GET /ping' }] } } }),
      'ping.js': 'exports.handler = async () => ({ statusCode: 200, body: "pong" });',
    });
    const r = await cli(['import', join(dir, 'serverless.json')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('from serverless.json: 1 function, 1 API');
    expect((await cli(['apply', '-f', dir])).code).toBe(0);
    expect((await invokeByApiName('json-svc', '/ping')).text).toBe('pong');
  });

  it('${file(...)} reads the project\'s own files, never one outside it or a script; the APIs answer errors as API Gateway words them', async () => {
    // serverless/examples' aws-node-auth0-custom-authorizers-api reads its client id from secrets.json and its key from public_key.
    writeFileSync(join(root, 'outside.json'), JSON.stringify({ KEY: 'not yours' }));
    const key = '-----BEGIN PUBLIC KEY-----\nMIIBIjANBg\n-----END PUBLIC KEY-----\n';
    const dir = writeProject(root, 'file-vars', {
      'serverless.yml': [
        'service: file-vars',
        'provider:',
        '  name: aws',
        '  environment:',
        '    CLIENT_ID: ${file(./secrets.json):AUTH0_CLIENT_ID}',
        '    PUBLIC_KEY: ${file(./public_key)}',
        '    OUTSIDE: ${file(../outside.json):KEY}',
        '    SCRIPTED: ${file(./config.js):KEY}',
        'functions:',
        '  env:',
        '    handler: handler.env',
        '    events:',
        '      - http: { path: env, method: get }',
      ].join('\n'),
      'handler.js':
        'module.exports.env = async () => ({ statusCode: 200, body: JSON.stringify({ id: process.env.CLIENT_ID, key: process.env.PUBLIC_KEY, outside: process.env.OUTSIDE ?? null, scripted: process.env.SCRIPTED ?? null }) });',
      'secrets.json': JSON.stringify({ AUTH0_CLIENT_ID: 'client-123' }),
      public_key: key,
      'config.js': "module.exports = { KEY: 'ran' };",
    });
    const r = await cli(['import', join(dir, 'serverless.yml'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).unresolved.map((u: { key: string }) => u.key)).toEqual(['OUTSIDE', 'SCRIPTED']);
    const written = readFileSync(join(dir, 'switchyard.yaml'), 'utf8');
    expect(written).toContain('error_format: aws');
    // The values land in the project file, which is said: secrets.json is usually kept out of git, the project file not.
    expect(written).toContain('provider.environment.CLIENT_ID: read from ./secrets.json and written into this file');
    expect((await cli(['apply', '-f', dir])).code).toBe(0);
    const env = await invokeByApiName('file-vars', '/env');
    expect(env.json).toEqual({ id: 'client-123', key, outside: null, scripted: null });
    const missing = await invokeByApiName('file-vars', '/nope');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ message: 'Not Found' });
  });

  it('a handler file that is not there is flagged at import, by its path in the project', async () => {
    const dir = copy('serverless/missing-handler', 'missing-handler');
    const r = await cli(['import', join(dir, 'serverless.yml')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Handler files not found (apply fails until they exist):\n  - dist/built.js (functions.built.handler)');
    const json = await cli(['import', join(dir, 'serverless.yml'), '--json', '--force']);
    expect(JSON.parse(json.stdout).missing).toEqual([{ where: 'functions.built.handler', file: 'dist/built.js' }]);
  });
});

describe('apply --only and one round of problems', () => {
  it('--only applies one function and nothing else', async () => {
    const yaml = 'project: only\nfunctions:\n  only-a:\n    file: a.js\n  only-b:\n    file: b.js\napis:\n  only:\n    base_path: /\n    routes:\n      - { method: GET, path: /a, function: only-a }\n';
    const body = (v: string) => `exports.handler = async () => ({ statusCode: 200, body: "${v}" });`;
    const dir = writeProject(root, 'only', { 'switchyard.yaml': yaml, 'a.js': body('a1'), 'b.js': body('b1') });
    expect((await cli(['apply', '-f', dir])).code).toBe(0);
    writeFileSync(join(dir, 'a.js'), body('a2'));
    writeFileSync(join(dir, 'b.js'), body('b2'));
    writeFileSync(join(dir, 'switchyard.yaml'), yaml + '      - { method: GET, path: /b, function: only-b }\n');
    const r = await cli(['apply', '-f', dir, '--only', 'only-a']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('~ function only-a (code)');
    expect(r.stdout).toMatch(/Plan: 0 to create, 1 to update, 0 to delete\./);
    const invoked = async (name: string) => (await svc.request('POST', `/api/functions/${name}/invoke`, {})).json.result.body;
    expect(await invoked('only-a')).toBe('a2');
    expect(await invoked('only-b')).toBe('b1');
    expect((await invokeByApiName('only', '/b')).status).toBe(404);
    const unknown = await cli(['apply', '-f', dir, '--only', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no function 'nope' in this file");
  });

  it('a refusal and the server finding code that does not compile are reported together', async () => {
    await svc.request('POST', '/api/functions', { name: 'round-theirs', code: 'exports.handler = async () => ({});' });
    const dir = writeProject(root, 'round', {
      'switchyard.yaml': 'project: round\nfunctions:\n  round-theirs:\n    file: ok.js\n  round-broken:\n    file: broken.js\n',
      'ok.js': 'exports.handler = async () => ({ statusCode: 200 });',
      'broken.js': 'exports.handler = async () => ({ statusCode: 200 ',
    });
    const r = await cli(['apply', '-f', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("function 'round-theirs' belongs to no project");
    expect(r.stderr).toMatch(/functions\.round-broken\S*: .*broken\.js/);
    expect((await svc.request('GET', '/api/functions/round-broken')).status).toBe(404);
  });
});
