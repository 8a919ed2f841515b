/**
 * The project verbs end to end with the real binary (`node dist/cli.js`):
 * `apply` against a real server (create, idempotent, update, dry run, prune,
 * an invalid file changes nothing), `export` then `apply` plans nothing,
 * `import` of the sample serverless.yml and SAM template yields projects
 * whose routes answer, a project function that imports an npm package, and
 * `dev`, which starts its own server, reloads a function after a save and
 * streams its console lines and invocations.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killLeftoverClis, runCli, runCliToEnd, writeProject } from '../helpers/cli.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { exactRequest } from '../helpers/wire.js';

const FIXTURES = resolve(import.meta.dirname, '..', 'fixtures');
let svc: RunningService;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'switchyard-cli-project-'));
  svc = await startService();
}, 60_000);

afterAll(async () => {
  killLeftoverClis();
  await svc?.stop();
  rmSync(root, { recursive: true, force: true });
});

const cli = (args: string[], env: Record<string, string> = {}) => runCliToEnd(args, { SWITCHYARD_URL: svc.url, ...env });

const project = (name: string, files: Record<string, string>) => writeProject(root, name, files);

async function invokeByApiName(apiName: string, path: string, method = 'GET') {
  const apis = (await svc.request('GET', '/api/apis?limit=1000')).json as Array<{ id: string; name: string; basePath: string }>;
  const api = apis.find((a) => a.name === apiName);
  if (!api) throw new Error(`no API ${apiName}`);
  return svc.request(method, `/api/invoke/fn/${api.id}${api.basePath === '/' ? '' : api.basePath}${path}`);
}

const SHOP = `env_from: [SHOP_GREETING]
functions:
  shop-hello:
    file: functions/hello.js
    env:
      GREETING: \${env:SHOP_GREETING}
  shop-old:
    file: functions/old.js
apis:
  shop:
    base_path: /shop
    routes:
      - { method: GET, path: /hello, function: shop-hello }
      - { method: GET, path: /old, function: shop-old }
`;

describe('switchyard apply', () => {
  it('creates, plans nothing the second time, updates what changed, prunes, and refuses an invalid file without changing anything', async () => {
    const dir = project('shop', {
      'switchyard.yaml': SHOP,
      'functions/hello.js': 'exports.handler = async () => ({ statusCode: 200, body: { greeting: process.env.GREETING, v: 1 } });',
      'functions/old.js': 'exports.handler = async () => ({ statusCode: 200, body: "old" });',
    });
    const env = { SHOP_GREETING: 'hi' };

    const first = await cli(['apply', '-f', dir], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('+ function shop-hello');
    expect(first.stdout).toContain('+ api shop');
    expect(first.stdout).toMatch(/Plan: \d+ to create, 0 to update, 0 to delete\./);
    expect((await invokeByApiName('shop', '/hello')).json).toEqual({ greeting: 'hi', v: 1 });

    const again = await cli(['apply', '-f', dir], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes');

    // A changed env value is seen although the server never shows it.
    const envChanged = await cli(['apply', '-f', dir, '--dry-run', '--json'], { SHOP_GREETING: 'hello' });
    expect(envChanged.code).toBe(0);
    expect(JSON.parse(envChanged.stdout).changes).toEqual([expect.objectContaining({ action: 'update', kind: 'function', name: 'shop-hello', fields: ['env'] })]);
    expect((await invokeByApiName('shop', '/hello')).json).toEqual({ greeting: 'hi', v: 1 });

    writeFileSync(join(dir, 'functions/hello.js'), 'exports.handler = async () => ({ statusCode: 200, body: { greeting: process.env.GREETING, v: 2 } });');
    const update = await cli(['apply', '-f', join(dir, 'switchyard.yaml')], env);
    expect(update.code, update.stderr).toBe(0);
    expect(update.stdout).toContain('~ function shop-hello (code)');
    expect((await invokeByApiName('shop', '/hello')).json).toEqual({ greeting: 'hi', v: 2 });

    // Invalid: a bad key and a function the server refuses; nothing is applied, every problem is named.
    writeFileSync(join(dir, 'switchyard.yaml'), SHOP.replace('file: functions/old.js', 'file: functions/old.js\n    timeout_ms: 0'));
    writeFileSync(join(dir, 'functions/hello.js'), 'exports.handler = async () => ({ statusCode: 200, body: { v: 3 } ');
    const invalid = await cli(['apply', '-f', dir], env);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('functions.shop-old.timeout_ms');
    expect(invalid.stderr).toContain('switchyard.yaml');
    expect((await invokeByApiName('shop', '/hello')).json).toEqual({ greeting: 'hi', v: 2 });

    // The syntax error alone: the server's compile check refuses it before any write.
    writeFileSync(join(dir, 'switchyard.yaml'), SHOP);
    const refused = await cli(['apply', '-f', dir], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/functions\.shop-hello/);
    expect((await invokeByApiName('shop', '/hello')).json).toEqual({ greeting: 'hi', v: 2 });

    // Prune: what the file no longer names goes, only with --prune.
    writeFileSync(join(dir, 'functions/hello.js'), 'exports.handler = async () => ({ statusCode: 200, body: { greeting: process.env.GREETING, v: 2 } });');
    writeFileSync(join(dir, 'switchyard.yaml'), SHOP.replace(/  shop-old:\n    file: functions\/old.js\n/, '').replace(/      - \{ method: GET, path: \/old, function: shop-old \}\n/, ''));
    const kept = await cli(['apply', '-f', dir], env);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toContain('No changes');
    expect((await svc.request('GET', '/api/functions/shop-old')).status).toBe(200);
    const pruned = await cli(['apply', '-f', dir, '--prune'], env);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toContain('- route GET /old (api shop)');
    expect(pruned.stdout).toContain('- function shop-old');
    expect((await svc.request('GET', '/api/functions/shop-old')).status).toBe(404);
  });

  it('a missing ${env:} variable names the file, the key and the variable', async () => {
    const dir = project('env-missing', {
      'switchyard.yaml': SHOP.replaceAll('shop', 'envshop'),
      'functions/hello.js': 'exports.handler = async () => ({ statusCode: 200 });',
      'functions/old.js': 'exports.handler = async () => ({ statusCode: 200 });',
    });
    const r = await cli(['apply', '-f', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/switchyard\.yaml:\d+:\d+: functions\.envshop-hello\.env\.GREETING: environment variable SHOP_GREETING is not set/);
    expect((await svc.request('GET', '/api/functions/envshop-hello')).status).toBe(404);
  });

  it('a project function may import an npm package from the project node_modules (bundled as deploy does)', async () => {
    const dir = project('with-package', {
      'switchyard.yaml': 'functions:\n  pkg-user:\n    file: fn.js\napis:\n  pkg:\n    base_path: /pkg\n    routes:\n      - { method: GET, path: /, function: pkg-user }\n',
      'fn.js': "const shout = require('tiny-shout');\nexports.handler = async () => ({ statusCode: 200, body: { said: shout('hi') } });",
      'node_modules/tiny-shout/package.json': '{"name":"tiny-shout","version":"1.0.0","main":"index.js"}',
      'node_modules/tiny-shout/index.js': "module.exports = (s) => s.toUpperCase() + '!';",
    });
    const r = await cli(['apply', '-f', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect((await invokeByApiName('pkg', '/')).json).toEqual({ said: 'HI!' });
    expect((await cli(['apply', '-f', dir])).stdout).toContain('No changes');
  });

  it('cannot reach a server: exit 3 with the URL', async () => {
    const dir = project('unreachable', {
      'switchyard.yaml': 'functions:\n  u:\n    file: u.js\n',
      'u.js': 'exports.handler = async () => ({ statusCode: 200 });',
    });
    const r = await cli(['apply', '-f', dir, '--url', 'http://127.0.0.1:1']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('cannot reach Switchyard at http://127.0.0.1:1');
  });
});

describe('switchyard export', () => {
  it('writes a project that applies as a no-op', async () => {
    const out = join(root, 'exported');
    const r = await cli(['export', '-o', join(out, 'switchyard.yaml')]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(out, 'switchyard.yaml'), 'utf8')).toContain('shop-hello');
    // The function env is write-only: exported as a placeholder named after its function, listed and allowed.
    expect(r.stdout).toContain('SHOP_HELLO__GREETING');
    const plan = await cli(['apply', '-f', out, '--dry-run'], { SHOP_HELLO__GREETING: 'hi' });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes');
    // Files are not replaced without --force.
    const again = await cli(['export', '-o', join(out, 'switchyard.yaml')]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--force');
  });
});

describe('switchyard import', () => {
  it('serverless.yml: a project whose REST and HTTP API routes answer', async () => {
    const dir = join(root, 'sls');
    cpSync(join(FIXTURES, 'serverless'), dir, { recursive: true });
    const r = await cli(['import', join(dir, 'serverless.yml')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('schedule');
    expect(r.stdout).toContain('--env-from USERS_API_TOKEN');
    const applied = await cli(['apply', '-f', dir, '--env-from', 'USERS_API_TOKEN'], { USERS_API_TOKEN: 'tok' });
    expect(applied.stderr).toContain('Reads the environment variables USERS_API_TOKEN');
    expect(applied.code, applied.stderr).toBe(0);
    const user = await invokeByApiName('users-service-rest', '/users/42');
    expect(user.status, user.text).toBe(200);
    expect(user.json).toMatchObject({ format: 'aws-v1', id: '42' });
    const item = await invokeByApiName('users-service-http', '/items/9');
    expect(item.json).toMatchObject({ format: 'aws-v2', route: 'GET /items/{id}', id: '9' });
  });

  it('SAM template: a project whose Api and HttpApi routes answer', async () => {
    const dir = join(root, 'sam');
    cpSync(join(FIXTURES, 'sam'), dir, { recursive: true });
    const r = await cli(['import', join(dir, 'template.yaml'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ format: 'sam' });
    const applied = await cli(['apply', '-f', dir]);
    expect(applied.code, applied.stderr).toBe(0);
    const hello = await invokeByApiName('sam-ServerlessRestApi', '/hello/ada');
    expect(hello.json).toMatchObject({ name: 'ada' });
    const item = await invokeByApiName('sam-ServerlessHttpApi', '/items/5');
    expect(item.json).toMatchObject({ id: '5', route: 'GET /items/{id}' });
  });

  it('a REST API with DynamoDB (serverless.yml): IAM, layers and the table noted once each, the cors of the events as one policy of the API; packages not installed: npm install, per file', async () => {
    const dir = join(root, 'todos');
    cpSync(join(FIXTURES, 'serverless', 'rest-api-with-dynamodb'), dir, { recursive: true });
    const r = await cli(['import', join(dir, 'serverless.yml')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/: 3 functions, 1 API, 0 webhooks\.$/m);
    const notes = r.stdout.split('\n').filter((l) => l.startsWith('  - '));
    expect(notes).toEqual([
      '  - provider: iam not carried (functions have no AWS identity: give the code credentials through env if it calls AWS)',
      '  - provider: layers not carried (a function is one file: bundle what the layer held into it; apply, dev and deploy bundle the npm packages in node_modules)',
      '  - resources.Resources.TodosDynamoDbTable: AWS::DynamoDB::Table is not carried: Switchyard has no tables; keep the data in a database of your own and give the functions its address in env',
      '  - apis.serverless-rest-api-with-dynamodb.cors: the cors of 3 http events made one policy for the whole API',
    ]);
    // `cors: true` on each event: any origin, the Serverless Framework's headers, the events' methods.
    const imported = readFileSync(join(dir, 'switchyard.yaml'), 'utf8');
    expect(imported).toMatch(/cors:\n\s+allow_origins:\n\s+- "\*"\n\s+allow_methods:\n\s+- POST\n\s+- OPTIONS\n\s+- GET\n/);
    // dev starts its own server; apply needs one running.
    expect(r.stdout).toMatch(/^Next: switchyard dev \S*todos$/m);

    const applied = await cli(['apply', '-f', dir]);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain(
      "functions.serverless-rest-api-with-dynamodb-create.file: cannot bundle todos/create.js: it imports the npm packages '@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', 'uuid', not installed: run `npm install` in",
    );
    expect(applied.stderr).toContain('(its package.json lists them)');
    expect(applied.stderr.match(/npm install/g)).toHaveLength(3);
    expect(applied.stderr).not.toMatch(/esbuild|will do it for you|create\.js, line|list\.js, line/);
  });

  it('a GitHub webhook listener (serverless.yml): functions sharing handler.js get one problem for the file, and errors name handler.js', async () => {
    const dir = join(root, 'github');
    cpSync(join(FIXTURES, 'serverless', 'github-webhook-listener'), dir, { recursive: true });
    const r = await cli(['import', join(dir, 'serverless.yml')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/: 3 functions, 2 APIs, 0 webhooks\.$/m);

    // Not installed: one problem, naming the file, the fix, and the functions that share it.
    const missing = await cli(['apply', '-f', dir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr.match(/cannot bundle handler\.js/g)).toHaveLength(1);
    expect(missing.stderr).toContain("it imports the npm package '@octokit/rest', not installed: run `npm install` in");
    expect(missing.stderr).toContain('(the same for functions.github-webhook-listener-ping, functions.github-webhook-listener-nightlyReport: they share handler.js)');

    // Installed, and a build that needs many Node modules: they stay imports the sandbox answers (inert where they need the host), so nothing refuses it.
    const pkg = join(dir, 'node_modules', '@octokit', 'rest');
    const needs = ['http', 'https', 'zlib', 'stream', 'net', 'tls', 'fs', 'os', 'http2', 'dns', 'url'];
    writeProject(pkg, '.', {
      'package.json': JSON.stringify({ name: '@octokit/rest', version: '20.0.2', main: 'dist/index.js' }),
      'dist/index.js': needs.map((m) => `require('${m}');\n`).join('') + 'exports.Octokit = class {};\n',
    });
    const builtins = await cli(['apply', '-f', dir, '--dry-run']);
    expect(builtins.code, builtins.stderr).toBe(0);
    expect(builtins.stderr).not.toContain('which functions cannot use');

    // A pure-JS build, and a handler whose top level throws: the server's refusal names handler.js, once.
    writeFileSync(join(pkg, 'dist/index.js'), 'exports.Octokit = class { constructor() { this.rest = {}; } };\n');
    const handler = readFileSync(join(dir, 'handler.js'), 'utf8');
    writeFileSync(join(dir, 'handler.js'), handler.replace("const octokit =", "if (!process.env.GITHUB_TOKEN) throw new Error('GITHUB_TOKEN is not set');\nconst octokit ="));
    const threw = await cli(['apply', '-f', dir]);
    expect(threw.code).toBe(1);
    expect(threw.stderr).toContain('top-level code threw Error: GITHUB_TOKEN is not set (handler.js, line 6');
    expect(threw.stderr).toContain('(the same for functions.github-webhook-listener-ping, functions.github-webhook-listener-nightlyReport: they share handler.js)');
    expect(threw.stderr).not.toMatch(/githubWebhookListener\.js|ping\.js|nightlyReport\.js/);
    // The dry run refuses it as apply does: the server compiles and runs the top level for it too.
    const dry = await cli(['apply', '-f', dir, '--dry-run']);
    expect(dry.code).toBe(1);
    expect(dry.stderr).toContain('GITHUB_TOKEN is not set (handler.js, line 6');
    expect((await svc.request('GET', '/api/functions/github-webhook-listener-githubWebhookListener')).status).toBe(404);

    writeFileSync(join(dir, 'handler.js'), handler);
    const ok = await cli(['apply', '-f', dir]);
    expect(ok.code, ok.stderr).toBe(0);
    const pong = await invokeByApiName('github-webhook-listener-http', '/ping');
    expect(pong.text).toBe('pong');
  });

  it('the SAM web backend: Layers, Policies, the Role, the table, the layer and the role resources noted, each once; Globals.Api.Cors carried', async () => {
    const dir = join(root, 'sam-web');
    cpSync(join(FIXTURES, 'sam', 'web-backend'), dir, { recursive: true });
    const r = await cli(['import', join(dir, 'template.yaml'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const { notes, unresolved } = JSON.parse(r.stdout) as { notes: string[]; unresolved: Array<{ where: string }> };
    expect(notes).toEqual([
      "Outputs: not carried (a stack's outputs have no counterpart)",
      'Globals.Function: Layers not carried (a function is one file: bundle what the layer held into it; apply, dev and deploy bundle the npm packages in node_modules)',
      "Globals.Api: TracingEnabled not carried (routes come from the functions' events; stages have no counterpart)",
      'Resources.getAllItemsFunction.Properties, Resources.getByIdFunction.Properties: Policies not carried (functions have no AWS identity: give the code credentials through env if it calls AWS)',
      'Resources.putItemFunction.Properties: Role not carried (functions have no AWS identity: give the code credentials through env if it calls AWS)',
      'Resources.SampleTable: AWS::Serverless::SimpleTable is not carried: Switchyard has no tables; keep the data in a database of your own and give the functions its address in env',
      'Resources.SharedDepsLayer: AWS::Serverless::LayerVersion is not carried: a function is one file; bundle what the layer holds into the functions that use it',
      'Resources.ItemsWriterRole: AWS::IAM::Role is not carried: functions have no AWS identity',
    ]);
    expect(new Set(notes).size).toBe(notes.length);
    expect(unresolved.map((u) => u.where)).toEqual(['Globals.Function.Environment.Variables.SAMPLE_TABLE']);
    const applied = await cli(['apply', '-f', dir]);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain("cannot bundle src/handlers/put-item.mjs: it imports the npm packages '@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', not installed: run `npm install` in");
  });

  it('refuses a file that is neither', async () => {
    const dir = project('neither', { 'x.yml': 'hello: world\n' });
    const r = await cli(['import', join(dir, 'x.yml')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('neither a serverless.yml');
  });
});

const DEV_PROJECT = `functions:
  dev-hello:
    file: functions/hello.js
  dev-bye:
    file: functions/bye.js
apis:
  dev:
    base_path: /dev
    routes:
      - { method: GET, path: /hello, function: dev-hello }
      - { method: GET, path: /bye, function: dev-bye }
`;


// Applications are deleted only by a file that names its project (they are customers, often made by hand).
const DEV_APPS_PROJECT = `
project: dev-apps
functions:
  dev-ping:
    file: functions/ping.js
applications:
  Acme:
    uid: acme
  Globex:
    uid: globex
webhooks:
  acme-orders:
    application: acme
    target_url: https://example.com/acme
    method: POST
    payload_template: {}
    events: [order.created]
  globex-orders:
    application: globex
    target_url: https://example.com/globex
    method: POST
    payload_template: {}
    events: [order.created]
`;

describe('switchyard dev', () => {
  it('starts its own server, applies the project, reloads a function after a save and streams its logs and invocations', async () => {
    const dir = project('dev', {
      'switchyard.yaml': DEV_PROJECT,
      'functions/bye.js': 'exports.handler = async () => ({ statusCode: 200, body: "bye" });',
      'functions/hello.js': 'exports.handler = async () => { console.log("serving v1"); return { statusCode: 200, body: { v: 1 } }; };',
    });
    const run = runCli(['dev', dir, '--port', '0'], { FORCE_COLOR: '0', NO_COLOR: '1' });
    try {
      const [route] = await run.waitForOutput(/http:\/\/127\.0\.0\.1:\d+\/api\/invoke\/fn\/api_[0-9a-z]+\/dev\/hello/, 30_000);
      const call = async () => {
        const res = await fetch(route);
        return (await res.json()) as { v: number };
      };
      expect(await call()).toEqual({ v: 1 });
      await run.waitForOutput(/serving v1/, 10_000);
      await run.waitForOutput(/GET \/dev\/hello 200 \d+ ms/, 10_000);
      // A call's line comes after its own console line, though the server sends the call first.
      expect(run.stderr().indexOf('serving v1')).toBeLessThan(run.stderr().search(/GET \/dev\/hello 200/));

      // The watcher starts after the first apply: a save before it is ready would go unseen.
      await run.waitForOutput(/Watching .* for changes/, 10_000);
      writeFileSync(join(dir, 'functions/hello.js'), 'exports.handler = async () => { console.log("serving v2"); return { statusCode: 200, body: { v: 2 } }; };');
      await run.waitForOutput(/updated function dev-hello \(code\)/, 10_000);
      expect(await call()).toEqual({ v: 2 });
      await run.waitForOutput(/serving v2/, 10_000);

      // A broken save keeps the last good version and says why.
      writeFileSync(join(dir, 'functions/hello.js'), 'exports.handler = async () => { return { statusCode: 200, body: ');
      await run.waitForOutput(/server keeps the last good version/, 10_000);
      expect(await call()).toEqual({ v: 2 });

      // Removed from the file while dev runs: deleted. Never in the file (deployed beside it): left alone.
      const server = new URL(route).origin;
      const made = await fetch(`${server}/api/functions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'made-with-curl', code: 'exports.handler = async () => ({ statusCode: 200 })' }),
      });
      expect(made.status).toBe(201);
      writeFileSync(join(dir, 'functions/hello.js'), 'exports.handler = async () => { console.log("serving v3"); return { statusCode: 200, body: { v: 3 } }; };');
      writeFileSync(join(dir, 'switchyard.yaml'), DEV_PROJECT.replace(/  dev-bye:\n    file: functions\/bye.js\n/, '').replace(/      - \{ method: GET, path: \/bye, function: dev-bye \}\n/, ''));
      await run.waitForOutput(/deleted function dev-bye/, 10_000);
      expect(run.stderr()).toContain('deleted route GET /bye (api dev)');
      expect(await call()).toEqual({ v: 3 });
      expect((await fetch(`${server}/api/functions/dev-bye`)).status).toBe(404);
      expect((await fetch(`${server}/api/functions/made-with-curl`)).status).toBe(200);
      // Keyless, it says and holds that only loopback names and its own pages are answered.
      expect(run.stderr()).toContain('No admin key: the API and dashboard answer only under loopback names');
      const rebound = await exactRequest(server, 'GET', '/api/functions', { host: 'rebind.attacker.example' });
      expect(rebound.status).toBe(421);

      // Ctrl-C right after a call: its console line, still on its way through the database, is printed before dev ends.
      writeFileSync(join(dir, 'functions/hello.js'), 'exports.handler = async () => { console.log("last words"); return { statusCode: 200, body: { v: 4 } }; };');
      await until(async () => ((await (await fetch(`${server}/api/functions/dev-hello`)).json()) as { code: string }).code.includes('last words'), 'the save applied');
      const before = run.stderr().length;
      expect(await call()).toEqual({ v: 4 });
      run.proc.kill('SIGINT');
      const exit = await run.exit;
      expect(exit.code).toBe(0);
      const tail = run.stderr().slice(before);
      expect(tail).toMatch(/last words[\s\S]*GET \/dev\/hello 200/);
    } finally {
      run.kill();
    }
    // The dev database lives in the project, so a restart keeps what was applied.
    expect(readFileSync(join(dir, '.switchyard', 'dev.db')).length).toBeGreaterThan(0);
  });
  it('deletes an application removed from the file while it runs, with its webhooks; one made beside the file stays', async () => {
    const dir = project('dev-apps', {
      'switchyard.yaml': DEV_APPS_PROJECT,
      'functions/ping.js': 'exports.handler = async () => ({ statusCode: 200, body: "pong" });',
    });
    const run = runCli(['dev', dir, '--port', '0'], { FORCE_COLOR: '0', NO_COLOR: '1' });
    try {
      const [origin] = await run.waitForOutput(/http:\/\/127\.0\.0\.1:\d+/, 30_000);
      const api = async (path: string, init?: RequestInit) => fetch(`${origin}${path}`, { ...init, headers: { 'content-type': 'application/json' } });
      const apps = async () => ((await (await api('/api/applications')).json()) as Array<{ uid: string | null }>).map((a) => a.uid).sort();
      const hooks = async () => ((await (await api('/api/webhooks')).json()) as Array<{ name: string }>).map((w) => w.name).sort();
      await until(async () => (await hooks()).join() === 'acme-orders,globex-orders', 'the project applied');
      expect(await apps()).toEqual(['acme', 'globex']);
      expect((await api('/api/applications', { method: 'POST', body: JSON.stringify({ name: 'Made by hand', uid: 'by-hand' }) })).status).toBe(201);

      // The watcher starts after the first apply, which the objects above already show: wait for it.
      await run.waitForOutput(/Watching .* for changes/, 10_000);
      writeFileSync(join(dir, 'switchyard.yaml'), DEV_APPS_PROJECT.replace('  Globex:\n    uid: globex\n', '').replace(/  globex-orders:\n(    .*\n)+$/, ''));
      await run.waitForOutput(/deleted .*application/, 10_000);
      await until(async () => (await apps()).join() === 'acme,by-hand', 'Globex deleted');
      expect(await hooks()).toEqual(['acme-orders']);
    } finally {
      run.kill();
    }
  });
});
