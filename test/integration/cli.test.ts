/**
 * The `switchyard` verbs end to end: the real binary (`node dist/cli.js`)
 * against a real server over HTTP, real files for deploy (an npm package the
 * test writes into a temporary node_modules), a real local webhook receiver,
 * and a local stub of the log stream for `logs -f` (it answers the documented
 * server-sent events, drops the connection, and checks the resume).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killLeftoverClis, runCli, runCliToEnd, startCli } from '../helpers/cli.js';
import { closedPort, startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';

let svc: RunningService;
let keyed: RunningService;
let receiver: Receiver;
let dir: string;
const KEY = 'cli-test-admin-key';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-cli-'));
  receiver = await startReceiver();
  [svc, keyed] = await Promise.all([
    startService({ env: { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } }),
    startService({ env: { SWITCHYARD_ADMIN_KEY: KEY } }),
  ]);
}, 60_000);

afterAll(async () => {
  killLeftoverClis();
  await Promise.all([svc?.stop(), keyed?.stop(), receiver?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a verb to its end against `svc` (unless the args name another --url). */
const cli = (args: string[], env: Record<string, string> = {}) => runCliToEnd(args, { SWITCHYARD_URL: svc.url, ...env }, 30_000);

async function createFunction(name: string, code: string, extra: Record<string, unknown> = {}) {
  const res = await svc.request('POST', '/api/functions', { name, code, ...extra });
  expect(res.status, res.text).toBe(201);
}

describe('help and version', () => {
  it('--help lists every verb and the serve options; exit 0', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    for (const verb of ['serve', 'invoke <function>', 'invocations <function>', 'invocations retry <function> <id>', 'logs <function>', 'webhooks test <webhook>', 'deliveries <webhook>', 'deploy <file>']) {
      expect(r.stdout).toContain(verb);
    }
    expect(r.stdout).toContain('--database-url');
    expect(r.stdout).toContain('SWITCHYARD_URL');
  }, 30_000);

  it('<verb> --help and help <verb> list the verb options', async () => {
    const r = await cli(['deploy', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: switchyard deploy \[options\] <file>/);
    for (const flag of ['--name', '--handler', '--event-format', '--env', '--url', '--admin-key', '--json', '--no-color']) expect(r.stdout).toContain(flag);
    const logs = await cli(['help', 'logs']);
    expect(logs.code).toBe(0);
    for (const flag of ['--follow', '--since', '--limit']) expect(logs.stdout).toContain(flag);
    const serve = await cli(['serve', '--help']);
    expect(serve.code).toBe(0);
    expect(serve.stdout).toContain('--port <value>  [PORT, default: 3000]');
  }, 30_000);

  it('says each default once, and suggests the option meant for a misspelt one', async () => {
    for (const verb of ['invoke', 'invocations', 'logs', 'deliveries', 'deploy', 'apply', 'dev', 'import', 'export']) {
      const r = await cli([verb, '--help']);
      expect(r.code).toBe(0);
      // commander wraps long descriptions: read the help as one line.
      const text = r.stdout.replace(/\s+/g, ' ');
      expect(text, verb).not.toMatch(/default:? [^)]*\) \(default/);
    }
    const invocations = (await cli(['invocations', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(invocations.match(/default:? 20\b/g)).toHaveLength(1);
    const typo = await cli(['logs', 'greet', '--folow']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Did you mean --follow?');
    const serveTypo = await cli(['--prot', '1']);
    expect(serveTypo.code).toBe(2);
    expect(serveTypo.stderr).toContain('did you mean --port?');
  }, 60_000);

  it('serve runs the gateway as no verb does', async () => {
    const server = await startCli(['serve', '--log-format', 'json'], { DATABASE_URL: 'sqlite::memory:' });
    try {
      const res = await fetch(`${server.url}/healthz`);
      expect(await res.json()).toEqual({ status: 'ok', pid: server.pid });
    } finally {
      server.proc.kill('SIGTERM');
      expect((await server.exit).code).toBe(0);
    }
  }, 30_000);

  it('usage errors exit 2 with one line', async () => {
    const missing = await cli(['invoke']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing required argument 'function'");
    const badLimit = await cli(['logs', 'f', '--limit', 'lots']);
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toBe('switchyard: --limit must be a whole number from 1 to 1000, got "lots"\n');
    const unknown = await cli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
  }, 30_000);
});

describe('choosing a server', () => {
  it('nothing listening: one line naming the URL and the fix, exit 3', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const r = await cli(['invoke', 'hello', '--url', url]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`switchyard: cannot reach Switchyard at ${url}: connection refused; start it with \`switchyard serve\` or pass --url\n`);
    expect(r.stdout).toBe('');
    // SWITCHYARD_URL works the same; --json adds the error as JSON on stdout.
    const viaEnv = await cli(['logs', 'hello', '--json'], { SWITCHYARD_URL: url });
    expect(viaEnv.code).toBe(3);
    expect(JSON.parse(viaEnv.stdout)).toMatchObject({ code: 'server_unreachable' });
  }, 30_000);

  it('a URL that is not a Switchyard server: says so, exit 1', async () => {
    const other = await startReceiver(() => ({ status: 200, body: '<html>hello</html>', headers: { 'content-type': 'text/html' } }));
    try {
      const r = await cli(['invoke', 'hello', '--url', other.url]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`switchyard: not_switchyard: ${other.url} answered 200 with text/html, not JSON (is --url a Switchyard server?)\n`);
    } finally {
      await other.close();
    }
  }, 30_000);

  it('a server with an admin key: 401 says to pass --admin-key; the key from the flag or the variable works', async () => {
    const none = await cli(['logs', 'hello', '--url', keyed.url]);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      `switchyard: the server at ${keyed.url} needs an admin key (401): pass --admin-key <key> or set SWITCHYARD_ADMIN_KEY\n`,
    );
    const wrong = await cli(['logs', 'hello', '--url', keyed.url, '--admin-key', 'nope']);
    expect(wrong.stderr).toContain('refused the admin key');
    const flag = await cli(['logs', 'hello', '--url', keyed.url, '--admin-key', KEY]);
    // Past the key check: the function does not exist there.
    expect(flag.code).toBe(1);
    expect(flag.stderr).toBe("switchyard: function_not_found: Function 'hello' does not exist\n");
    const env = await cli(['logs', 'hello', '--url', keyed.url], { SWITCHYARD_ADMIN_KEY: KEY });
    expect(env.stderr).toContain('function_not_found');
  }, 30_000);
});

describe('invoke and logs', () => {
  beforeAll(async () => {
    await createFunction(
      'greet',
      "export const handler = async (event) => { console.log('greeting', event.body?.name); return { statusCode: 200, body: { hello: event.body?.name ?? 'world' } }; };",
    );
    await createFunction('broken', "export const handler = async () => { throw new Error('kaput'); };");
  });

  it('invoke prints the result as JSON on stdout, the status and console lines on stderr', async () => {
    const r = await cli(['invoke', 'greet', '--data', '{"body":{"name":"Ada"}}']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ statusCode: 200, body: { hello: 'Ada' } });
    expect(r.stderr).toMatch(/log greeting Ada/);
    expect(r.stderr).toMatch(/200 in [0-9.]+ ms/);
  }, 30_000);

  it('invoke --data @file, --json prints the whole answer, --event-format is checked', async () => {
    const file = join(dir, 'event.json');
    writeFileSync(file, '{"body":{"name":"Grace"}}');
    const r = await cli(['invoke', 'greet', '--data', `@${file}`, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const answer = JSON.parse(r.stdout);
    expect(answer).toMatchObject({ status: 200, error: null, result: { body: { hello: 'Grace' } } });
    expect(answer.logs[0].message).toBe('greeting Grace');
    const wrongFormat = await cli(['invoke', 'greet', '--event-format', 'aws-v2']);
    expect(wrongFormat.code).toBe(2);
    expect(wrongFormat.stderr).toContain("function 'greet' takes switchyard events, not aws-v2");
    const badJson = await cli(['invoke', 'greet', '--data', '{nope']);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain('--data is not valid JSON');
  }, 30_000);

  it('a function that throws: its error on stderr, exit 1; an unknown function: the server code, exit 1', async () => {
    const r = await cli(['invoke', 'broken']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/502 in [0-9.]+ ms: function_error: .*kaput/);
    const missing = await cli(['invoke', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("switchyard: function_not_found: Function 'nope' does not exist\n");
  }, 30_000);

  it('a function is named in any case or by the start of its name; a start several names share lists them', async () => {
    await createFunction('greet-twice', 'export const handler = async () => ({ statusCode: 200 });');
    const byCase = await cli(['invoke', 'GREET', '--data', '{"body":{"name":"Ada"}}']);
    expect(byCase.code, byCase.stderr).toBe(0);
    expect(JSON.parse(byCase.stdout)).toMatchObject({ body: { hello: 'Ada' } });
    expect(byCase.stderr).toContain("(function 'greet')");
    const byStart = await cli(['logs', 'bro']);
    expect(byStart.code, byStart.stderr).toBe(0);
    expect(byStart.stderr).toContain("(function 'broken')");
    const async = await cli(['invocations', 'Greet-T', '--json']);
    expect(async.code, async.stderr).toBe(0);
    expect(JSON.parse(async.stdout)).toEqual([]);
    const ambiguous = await cli(['invoke', 'gre']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toBe("switchyard: 'gre' matches 2 functions: 'greet', 'greet-twice'; give more of the name\n");
    // An exact name is called as typed: no list is read (a name that is also the start of another is that one).
    const exact = await cli(['invoke', 'greet']);
    expect(exact.code, exact.stderr).toBe(0);
    expect(exact.stderr).not.toContain("(function '");
  }, 30_000);

  it('logs prints the stored console lines; --json an array; --limit', async () => {
    await svc.request('POST', '/api/functions/greet/invoke', { body: { name: 'Linus' } });
    const r = await cli(['logs', 'greet']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\S+Z log\s+greeting Linus \[\w+\]$/m);
    const json = await cli(['logs', 'greet', '--json', '--limit', '1']);
    const lines = JSON.parse(json.stdout) as Array<{ message: string }>;
    expect(lines).toHaveLength(1);
    expect(lines[0].message).toBe('greeting Linus');
  }, 30_000);
});

describe('webhooks test and deliveries', () => {
  it('sends by name, prints the outcome, and the deliveries table shows it with its attempt', async () => {
    const created = await svc.request('POST', '/api/webhooks', {
      name: 'cli-hook',
      target_url: `${receiver.url}/hook`,
      method: 'POST',
      payload_template: { hello: 'from the cli test' },
    });
    expect(created.status, created.text).toBe(201);
    const before = receiver.requests.length;
    const r = await cli(['webhooks', 'test', 'cli-hook']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^succeeded: HTTP 200 in \d+ ms$/m);
    expect(receiver.requests.length).toBe(before + 1);
    expect(JSON.parse(receiver.requests.at(-1)!.body)).toEqual({ hello: 'from the cli test' });

    const table = await cli(['deliveries', 'cli-hook']);
    expect(table.code, table.stderr).toBe(0);
    const [header, row, attempt] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^DELIVERY\s+CREATED\s+TRIGGER\s+STATUS\s+ATTEMPTS\s+RESULT$/);
    expect(row).toMatch(/^dlv_\S+\s+\S+Z\s+test\s+succeeded\s+1\s+HTTP 200$/);
    expect(attempt).toMatch(/^\s+#1\s+\S+Z\s+HTTP 200, \d+ ms$/);
    // Columns line up: STATUS starts at the same place in the header and the row.
    expect(row.indexOf('succeeded')).toBe(header.indexOf('STATUS'));

    const json = await cli(['deliveries', created.json.id, '--json']);
    const list = JSON.parse(json.stdout) as Array<{ status: string; attempts: unknown[] }>;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ status: 'succeeded', trigger: 'test' });
    const failed = await cli(['deliveries', 'cli-hook', '--status', 'failed', '--json']);
    expect(JSON.parse(failed.stdout)).toEqual([]);
  }, 30_000);

  it('a webhook named in any case or by its start; the suggested command is quoted so it runs as pasted', async () => {
    const created = await svc.request('POST', '/api/webhooks', {
      name: 'Demo: a user sign-up',
      target_url: `${receiver.url}/signup`,
      method: 'POST',
      payload_template: { event: 'user.signed_up' },
    });
    expect(created.status, created.text).toBe(201);
    const r = await cli(['webhooks', 'test', 'demo: a']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("(webhook 'Demo: a user sign-up')");
    expect(r.stdout).toContain("history: switchyard deliveries 'Demo: a user sign-up'");
    // What a shell makes of the suggestion, as pasted: the same two arguments, and the command works.
    const suggested = /history: switchyard (.*)$/m.exec(r.stdout)![1];
    const argv = execFileSync('sh', ['-c', `printf '%s\\0' ${suggested}`]).toString().split('\0').slice(0, -1);
    expect(argv).toEqual(['deliveries', 'Demo: a user sign-up']);
    const table = await cli(argv);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^dlv_\S+\s+\S+Z\s+test\s+succeeded/m);
  }, 30_000);

  it('a failing target: exit 1; an unknown name lists the names there are', async () => {
    const failing = await startReceiver(() => ({ status: 500, body: 'down' }));
    try {
      await svc.request('POST', '/api/webhooks', { name: 'down-hook', target_url: failing.url, method: 'POST', payload_template: {} });
      const r = await cli(['webhooks', 'test', 'down-hook']);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/^failed: HTTP 500/m);
    } finally {
      await failing.close();
    }
    const unknown = await cli(['webhooks', 'test', 'no-such-hook']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no webhook named 'no-such-hook'");
    expect(unknown.stderr).toContain("'cli-hook'");
  }, 30_000);
});

describe('deploy', () => {
  /** A project folder with its own node_modules holding the packages the test writes. */
  function project(name: string, packages: Record<string, Record<string, string>>, source: string, file = 'fn.mjs') {
    const root = join(dir, name);
    for (const [pkg, files] of Object.entries(packages)) {
      for (const [path, text] of Object.entries(files)) {
        const at = join(root, 'node_modules', pkg, path);
        mkdirSync(join(at, '..'), { recursive: true });
        writeFileSync(at, text);
      }
    }
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, file), source);
    return join(root, file);
  }

  it('bundles a function with a pure-JS npm package from its node_modules, creates then updates it', async () => {
    const file = project(
      'shout',
      {
        'tiny-shout': {
          'package.json': JSON.stringify({ name: 'tiny-shout', version: '1.0.0', main: 'index.js' }),
          // CommonJS, and a sandbox built-in that must stay an import for the isolate.
          'index.js': "const { createHash } = require('node:crypto');\nmodule.exports = (s) => s.toUpperCase() + '!' + createHash('sha256').update(s).digest('hex').slice(0, 8);\n",
        },
      },
      "import shout from 'tiny-shout';\nexport const handler = async (event) => ({ statusCode: 200, body: { said: shout(event.body?.word ?? 'hi') } });\n",
      'shout-fn.mjs',
    );
    const r = await cli(['deploy', file, '--env', 'GREETING=hello', '--env', 'OTHER=x']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/bundling .*shout-fn\.mjs\.\.\./);
    expect(r.stderr).toMatch(/bundled [0-9.]+ (B|KiB) with tiny-shout/);
    expect(r.stderr).toContain(`creating function shout-fn at ${svc.url}`);
    expect(r.stdout).toMatch(/^created shout-fn version 1 \([0-9.]+ (B|KiB) with tiny-shout\)$/m);

    const fn = await svc.request('GET', '/api/functions/shout-fn');
    expect(fn.json).toMatchObject({ version: 1, runtime: 'javascript', env_keys: ['GREETING', 'OTHER'] });
    const invoked = await svc.request('POST', '/api/functions/shout-fn/invoke', { body: { word: 'hey' } });
    expect(invoked.json.error).toBeNull();
    expect(invoked.json.result.body.said).toMatch(/^HEY!fa690b82$/);

    const again = await cli(['deploy', file, '--json', '--event-format', 'switchyard']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ name: 'shout-fn', version: 2, action: 'updated', packages: ['tiny-shout'] });
  }, 30_000);

  it('--name and --handler', async () => {
    const file = project('named', {}, 'module.exports.main = async () => ({ statusCode: 200, body: "main" });\n', 'index.js');
    const r = await cli(['deploy', file, '--name', 'renamed', '--handler', 'main']);
    expect(r.code, r.stderr).toBe(0);
    const fn = await svc.request('GET', '/api/functions/renamed');
    expect(fn.json).toMatchObject({ handler: 'main', version: 1 });
  }, 30_000);

  it("errors of a deployed bundle name the user's own file and line", async () => {
    const file = project('thrower', {}, "// a comment\n\nexport const handler = async () => {\n  throw new Error('boom');\n};\n", 'thrower.mjs');
    expect((await cli(['deploy', file])).code).toBe(0);
    const invoked = await svc.request('POST', '/api/functions/thrower/invoke', {});
    expect(invoked.json.error.message).toContain('(thrower.mjs, line 4, column 9)');
  }, 30_000);

  it('deploys a package that needs fs, warning that fs will throw if used; calling it answers that error', async () => {
    const file = project(
      'reader',
      {
        'reads-files': {
          'package.json': JSON.stringify({ name: 'reads-files', version: '1.0.0', main: 'lib/main.js' }),
          'lib/main.js': "const fs = require('fs');\nmodule.exports = () => fs.readFileSync('/etc/hostname', 'utf8');\n",
        },
      },
      "import read from 'reads-files';\nexport const handler = async () => read();\n",
      'reader.mjs',
    );
    const r = await cli(['deploy', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('warning: the code names modules that will throw if used: fs');
    const invoked = await svc.request('POST', '/api/functions/reader/invoke', {});
    expect(invoked.json.error.message).toContain('fs.readFileSync() is not available in the function sandbox: functions have no file system');
  }, 30_000);

  it('a bundle error in a package above the function file names it from node_modules/, not through ../', async () => {
    // The function lives two folders down; the package sits in the project's node_modules, above the folder deploy bundles from.
    const root = join(dir, 'nested');
    const at = join(root, 'node_modules', 'broken-pkg');
    mkdirSync(join(at, 'lib'), { recursive: true });
    writeFileSync(join(at, 'package.json'), JSON.stringify({ name: 'broken-pkg', version: '1.0.0', main: 'lib/main.js' }));
    writeFileSync(join(at, 'lib', 'main.js'), 'module.exports = function (a {\n  return a;\n};\n');
    mkdirSync(join(root, 'src', 'handlers'), { recursive: true });
    const file = join(root, 'src', 'handlers', 'fn.mjs');
    writeFileSync(file, "import f from 'broken-pkg';\nexport const handler = async () => f(1);\n");
    const r = await cli(['deploy', file, '--name', 'nested-broken']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/node_modules\/broken-pkg\/lib\/main\.js:1:\d+/);
    expect(r.stderr).not.toContain('../');
    expect((await svc.request('GET', '/api/functions/nested-broken')).status).toBe(404);
  }, 30_000);

  it('a require of a path that is not there, behind a condition, deploys and throws only when run; a static import of one is refused', async () => {
    // The idiom of CodeGenieApp/serverless-express's examples/basic-starter-api-gateway-v2/src/lambda.js:
    // require(process.env.NODE_ENV === 'test' ? '../../index' : '<the package>'), whose first branch never runs on Lambda.
    const file = project(
      'guarded',
      {
        'tiny-impl': {
          'package.json': JSON.stringify({ name: 'tiny-impl', version: '1.0.0', main: 'index.js' }),
          'index.js': "module.exports = () => 'from the package';\n",
        },
      },
      "exports.handler = async (event) => {\n  const impl = require(event.local ? '../../local-build' : 'tiny-impl');\n  return { statusCode: 200, body: impl() };\n};\n",
      'guarded.js',
    );
    const r = await cli(['deploy', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: not found, so not bundled \(a require of them throws MODULE_NOT_FOUND when it runs\): '\.\.\/\.\.\/local-build' \(guarded\.js\)/);
    const ok = await svc.request('POST', '/api/functions/guarded/invoke', {});
    expect(ok.json.error).toBeNull();
    expect(ok.json.result.body).toBe('from the package');
    const missing = await svc.request('POST', '/api/functions/guarded/invoke', { local: true });
    expect(missing.json.error.message).toContain("Cannot find module '../../local-build'");

    const stat = project('static-missing', {}, "import local from './gone.mjs';\nexport const handler = async () => local;\n", 'static.mjs');
    const refused = await cli(['deploy', stat, '--name', 'static-missing']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Could not resolve "./gone.mjs"');
  }, 30_000);

  it("import.meta.url, filename and dirname are Lambda's for an ES module file, bundled or sent as one file", async () => {
    // serverless/examples' aws-node-esm-esbuild tells how it was loaded from import.meta.url.
    const source =
      "const loadedAs = import.meta.url.endsWith('.mjs') ? 'ES module' : 'CommonJS';\n" +
      'export const handler = async () => ({ statusCode: 200, body: { loadedAs, url: import.meta.url, file: import.meta.filename, dir: import.meta.dirname } });\n';
    const file = project('esm-meta', {}, source, 'esm-time.ts');
    const r = await cli(['deploy', file]);
    expect(r.code, r.stderr).toBe(0);
    const bundled = await svc.request('POST', '/api/functions/esm-time/invoke', {});
    expect(bundled.json.result.body).toEqual({ loadedAs: 'ES module', url: 'file:///var/task/esm-time.mjs', file: '/var/task/esm-time.mjs', dir: '/var/task' });
    await createFunction('esm-sent', source, { runtime: 'typescript' });
    const sent = await svc.request('POST', '/api/functions/esm-sent/invoke', {});
    expect(sent.json.result.body).toEqual({ loadedAs: 'ES module', url: 'file:///var/task/esm-sent.mjs', file: '/var/task/esm-sent.mjs', dir: '/var/task' });
  }, 30_000);

  it('refuses native code and reports a missing package', async () => {
    const native = project(
      'native',
      {
        'has-native': {
          'package.json': JSON.stringify({ name: 'has-native', version: '1.0.0', main: 'index.js' }),
          'index.js': "module.exports = require('./build/addon.node');\n",
          'build/addon.node': 'not really a shared object',
        },
      },
      "import addon from 'has-native';\nexport const handler = async () => addon;\n",
    );
    const r = await cli(['deploy', native, '--name', 'native']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("package 'has-native'");
    expect(r.stderr).toContain('native code');
    const missing = project('missing', {}, "import x from 'not-installed';\nexport const handler = async () => x;\n");
    const m = await cli(['deploy', missing, '--name', 'missing']);
    expect(m.code).toBe(1);
    // Said as what to do (install it), not as a bundling lesson.
    expect(m.stderr).toMatch(/it imports the npm package 'not-installed', not installed: run `npm install not-installed` in \S*missing/);
    expect(m.stderr).not.toContain('esbuild');
  }, 30_000);
});

describe('logs -f', () => {
  /** A stub of GET /api/functions/{name}/logs/stream: two events, a drop, then the rest from Last-Event-ID. */
  async function stubStream() {
    const requests: Array<{ url: string; lastEventId: string | undefined; auth: string | undefined }> = [];
    const server = http.createServer((req, res) => {
      requests.push({ url: req.url ?? '', lastEventId: req.headers['last-event-id'] as string | undefined, auth: req.headers.authorization });
      if (req.url === '/api/functions/greet/logs?limit=10') {
        // The stored lines `logs -f` prints first; the stream must go on after the last of them.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify([{ id: 7, version: 1, time: '2026-11-23T11:59:00.000Z', level: 'log', message: 'stored line', request_id: 'req0' }]));
        return;
      }
      if (!req.url?.startsWith('/api/functions/greet/logs/stream')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Route not found","code":"not_found"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      const line = (id: number, message: string) =>
        `event: log\nid: ${id}\ndata: ${JSON.stringify({ id, function: 'greet', version: 1, request_id: `req${id}`, level: 'log', message, ts: '2026-11-23T12:00:00.000Z' })}\n\n`;
      if (requests.filter((r) => r.url.includes('/stream')).length === 1) {
        res.write(': connected\n\nretry: 50\n\n');
        res.write(line(1, 'first line'));
        res.write(': ping\n\n');
        res.write(line(2, 'second line'));
        res.end();
      } else {
        res.write(line(3, 'after the drop'));
        res.write(`event: invocation\ndata: ${JSON.stringify({ function: 'greet', method: 'GET', path: '/hi', status: 200, duration_ms: 1.5, ts: '2026-11-23T12:00:01.000Z', outcome: 'ok' })}\n\n`);
      }
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { url, requests, close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))) };
  }

  it('prints lines as they come, resumes after a drop with Last-Event-ID, and stops on Ctrl-C', async () => {
    const stub = await stubStream();
    try {
      const run = runCli(['logs', 'greet', '-f', '--since', '0', '--admin-key', 'k'], { SWITCHYARD_URL: stub.url });
      await run.waitForOutput(/after the drop/);
      await run.waitForOutput(/GET \/hi 200 2 ms/);
      expect(stub.requests).toHaveLength(2);
      expect(stub.requests[0]).toMatchObject({ url: '/api/functions/greet/logs/stream?since=0', lastEventId: undefined, auth: 'Bearer k' });
      expect(stub.requests[1]).toMatchObject({ url: '/api/functions/greet/logs/stream', lastEventId: '2' });
      const lines = run.stdout().trimEnd().split('\n');
      expect(lines[0]).toMatch(/^2026-11-23T12:00:00.000Z log\s+first line \[req1\]$/);
      expect(lines[1]).toMatch(/second line \[req2\]$/);
      expect(lines[2]).toMatch(/after the drop \[req3\]$/);
      expect(run.stderr()).toContain('reconnecting from line 2');
      run.proc.kill('SIGINT');
      expect((await run.exit).code).toBe(0);
    } finally {
      await stub.close();
    }
  }, 30_000);

  it('--json prints one object per line; a server without the stream says so', async () => {
    const stub = await stubStream();
    try {
      const run = runCli(['logs', 'greet', '-f', '--json'], { SWITCHYARD_URL: stub.url });
      await run.waitForOutput(/"type":"invocation"/);
      const objects = run.stdout().trimEnd().split('\n').map((l) => JSON.parse(l));
      expect(objects.map((o) => o.message ?? o.type)).toEqual(['stored line', 'first line', 'second line', 'after the drop', 'invocation']);
      expect(objects[0]).toMatchObject({ type: 'log', id: 7, message: 'stored line' });
      // Without --since it starts after the newest stored line it printed.
      expect(stub.requests.map((r) => r.url)).toEqual([
        '/api/functions/greet/logs?limit=10',
        '/api/functions/greet/logs/stream?since=7',
        '/api/functions/greet/logs/stream',
      ]);
      run.proc.kill('SIGINT');
      await run.exit;
      const old = await cli(['logs', 'other', '-f', '--since', '0'], { SWITCHYARD_URL: stub.url });
      expect(old.code).toBe(1);
      expect(old.stderr).toContain('has no log stream');
    } finally {
      await stub.close();
    }
  }, 30_000);
});

describe('invoke --async and invocations', () => {
  it('queues, lists the failed run with its attempts, and retries it by id', async () => {
    await createFunction('cli-flaky', 'export const handler = async (e) => { if (!globalThis.ok) throw new Error("not yet " + e.n); return { n: e.n }; };', {
      // No retries: the first retry waits a minute (Lambda's spacing), longer than this test should.
      async: { retries: 0, on_success: null, on_failure: null },
    });
    const queued = await cli(['invoke', 'cli-flaky', '--async', '-d', '{"n": 7}']);
    expect(queued.code, queued.stderr).toBe(0);
    const id = queued.stdout.trim();
    expect(id).toMatch(/^\S+$/);

    // Wait (no timing asserted) until the attempt has failed.
    let records: Array<{ id: string; status: string; attempts: unknown[] }> = [];
    for (let i = 0; i < 100; i++) {
      records = JSON.parse((await cli(['invocations', 'cli-flaky', '--json'])).stdout);
      if (records.find((r) => r.id === id)?.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(records.find((r) => r.id === id)).toMatchObject({ status: 'failed', attempts: [{ attempt: 1 }] });

    const table = await cli(['invocations', 'cli-flaky', '--status', 'failed']);
    expect(table.code, table.stderr).toBe(0);
    const [header, row, attempt] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^INVOCATION\s+CREATED\s+TRIGGER\s+STATUS\s+ATTEMPTS\s+RESULT$/);
    expect(row).toMatch(new RegExp(`^${id}\\s+\\S+\\s+async\\s+failed\\s+1\\s+.*not yet 7`));
    expect(attempt).toMatch(/^\s+#1\s+/);

    const retried = await cli(['invocations', 'retry', 'cli-flaky', id, '--json']);
    expect(retried.code, retried.stderr).toBe(0);
    expect(JSON.parse(retried.stdout)).toMatchObject({ id });

    const unknown = await cli(['invocations', 'no-such-fn']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('function_not_found');
  }, 60_000);
});

