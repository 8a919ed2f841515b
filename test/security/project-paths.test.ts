/**
 * Project files stay in the project, with the real CLI and a real server:
 * `import`, `apply`, `dev` and `deploy` refuse every input that lies outside
 * the project folder once symlinks are resolved (a `../` path, an absolute
 * path, a symlink to a file or a folder outside, an import in a bundled
 * function, a package symlinked out of node_modules), naming the path and
 * changing nothing; `--allow-outside <folder>` lets a named folder in. Each
 * outside file holds a secret the function would otherwise serve publicly.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killLeftoverClis, runCli, runCliToEnd } from '../helpers/cli.js';
import { startService, type RunningService } from '../helpers/service.js';

const SECRET = 'the-operator-s-private-file';

let svc: RunningService;
let base: string;
let outside: string;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'switchyard-paths-'));
  outside = join(base, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.js'), `exports.handler = async () => ({ statusCode: 200, body: ${JSON.stringify(SECRET)} });\n`);
  writeFileSync(join(outside, 'data.json'), JSON.stringify({ secret: SECRET }));
  writeFileSync(join(outside, 'package.json'), JSON.stringify({ name: 'evil', version: '1.0.0', main: 'secret.js' }));
  svc = await startService();
}, 60_000);

afterAll(async () => {
  killLeftoverClis();
  await svc?.stop();
  rmSync(base, { recursive: true, force: true });
});

const cli = (args: string[], env: Record<string, string> = {}) => runCliToEnd(args, { SWITCHYARD_URL: svc.url, NO_COLOR: '1', ...env });

/** A folder of files (text) and symlinks (`{ link: target }`) under the test's base folder. */
function folder(name: string, entries: Record<string, string | { link: string }>): string {
  const dir = join(base, name);
  for (const [rel, entry] of Object.entries(entries)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    if (typeof entry === 'string') writeFileSync(join(dir, rel), entry);
    else symlinkSync(entry.link, join(dir, rel));
  }
  return dir;
}

const functionStatus = async (name: string) => (await svc.request('GET', `/api/functions/${name}`)).status;

describe('import', () => {
  it('refuses a handler outside the folder (../, a symlinked folder) and an absolute CodeUri, writing nothing', async () => {
    const dir = folder('import-sls', {
      'serverless.yml': 'service: s\nfunctions:\n  up: { handler: ../outside/secret.handler }\n  linked: { handler: linked/secret.handler }\n  ok: { handler: ok.handler }\n',
      'ok.js': 'exports.handler = async () => ({ statusCode: 200 });',
      linked: { link: outside },
    });
    const r = await cli(['import', join(dir, 'serverless.yml'), '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ code: 'outside_project' });
    expect(r.stderr).toContain('functions.up.handler: the function file ../outside/secret.js is outside the folder of the imported file');
    expect(r.stderr).toContain(`functions.linked.handler: the function file linked/secret.js is outside the folder of the imported file (it resolves to ${join(outside, 'secret.js')})`);
    expect(existsSync(join(dir, 'switchyard.yaml'))).toBe(false);

    const sam = folder('import-sam', {
      'template.yaml': 'Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Properties: { CodeUri: /etc, Handler: passwd.handler }\n',
    });
    const s = await cli(['import', join(sam, 'template.yaml')]);
    expect(s.code).toBe(1);
    expect(s.stderr).toContain('Resources.Fn.Properties.CodeUri: the function file /etc/passwd.js is outside the folder of the imported file');
    expect(existsSync(join(sam, 'switchyard.yaml'))).toBe(false);
  });

  it('--allow-outside lets a named folder in', async () => {
    const dir = folder('import-allowed', { 'serverless.yml': 'service: s\nfunctions:\n  up: { handler: ../outside/secret.handler }\n' });
    const r = await cli(['import', join(dir, 'serverless.yml'), '--allow-outside', outside]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'switchyard.yaml'), 'utf8')).toContain('file: ../outside/secret.js');
  });
});

const OUTSIDE_PROJECT = (abs: string) => `functions:
  p-up: { file: ../outside/secret.js }
  p-abs: { file: ${abs} }
  p-link: { file: functions/link.js }
  p-dir: { file: linked/secret.js }
  p-json:
    file: functions/reads-json.js
  p-ok: { file: functions/ok.js }
`;

function outsideProject(name: string): string {
  return folder(name, {
    'switchyard.yaml': OUTSIDE_PROJECT(join(outside, 'secret.js')),
    'functions/link.js': { link: join(outside, 'secret.js') },
    linked: { link: outside },
    'functions/reads-json.js': "const data = require('../../outside/data.json');\nexports.handler = async () => ({ statusCode: 200, body: data });\n",
    'functions/ok.js': 'exports.handler = async () => ({ statusCode: 200, body: "ok" });\n',
  });
}

describe('apply', () => {
  it('refuses ../, absolute, symlinked files and folders and a bundled import outside, naming each; creates nothing', async () => {
    const dir = outsideProject('apply-outside');
    const r = await cli(['apply', '-f', dir]);
    expect(r.code).toBe(1);
    // Each problem names the function, then the path (a bundled import: the file and line first, on the next line).
    for (const name of ['p-up', 'p-abs', 'p-link', 'p-dir', 'p-json']) {
      expect(r.stderr).toMatch(new RegExp(`functions\\.${name}\\.file: (cannot bundle [^\\n]*\\n\\s+[^\\n]*: )?[^\\n]* is outside the project folder`));
    }
    expect(r.stderr).toContain(`functions/link.js is outside the project folder ${dir} (it resolves to ${join(outside, 'secret.js')})`);
    expect(r.stderr).toContain('../../outside/data.json is outside the project folder');
    expect(r.stderr).not.toContain(SECRET);
    for (const name of ['p-up', 'p-abs', 'p-link', 'p-dir', 'p-json', 'p-ok']) expect(await functionStatus(name)).toBe(404);
  });

  it('--allow-outside <folder> applies them', async () => {
    const dir = outsideProject('apply-allowed');
    const r = await cli(['apply', '-f', dir, '--allow-outside', outside]);
    expect(r.code, r.stderr).toBe(0);
    const run = await svc.request('POST', '/api/functions/p-json/invoke', {});
    expect(run.json.result.body).toEqual({ secret: SECRET });
  });
});

describe('dev', () => {
  it('refuses a symlink out of the project on load and creates nothing on its server', async () => {
    const dir = folder('dev-outside', {
      'switchyard.yaml': 'functions:\n  d-link: { file: functions/link.js }\n',
      'functions/link.js': { link: join(outside, 'secret.js') },
    });
    const run = runCli(['dev', dir, '--port', '0'], { NO_COLOR: '1' });
    try {
      const [, url] = await run.waitForOutput(/dev server at (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
      await run.waitForOutput(/functions\.d-link\.file: functions\/link\.js is outside the project folder/, 30_000);
      const listed = (await (await fetch(`${url}/api/functions`)).json()) as unknown[];
      expect(listed).toEqual([]);
    } finally {
      run.kill();
    }
  });
});

describe('deploy', () => {
  const IMPORTS = (spec: string) => `const data = require(${JSON.stringify(spec)});\nexports.handler = async () => ({ statusCode: 200, body: data });\n`;

  it('refuses ../, absolute and symlinked imports, a package symlinked out of node_modules, and a symlinked file; deploys nothing', async () => {
    const dir = folder('deploy-outside', {
      'up.js': IMPORTS('../outside/data.json'),
      'abs.js': IMPORTS(join(outside, 'data.json')),
      'via-link.js': IMPORTS('./data-link.json'),
      'data-link.json': { link: join(outside, 'data.json') },
      'pkg.js': IMPORTS('evil'),
      'node_modules/evil': { link: outside },
      'entry-link.js': { link: join(outside, 'secret.js') },
    });
    const cases: Array<[string, string]> = [
      ['up', '../outside/data.json is outside the project folder'],
      ['abs', `${join(outside, 'data.json')} is outside the project folder`],
      ['via-link', `./data-link.json is outside the project folder ${dir} (it resolves to ${join(outside, 'data.json')})`],
      ['pkg', `evil is outside the project folder ${dir} (it resolves to ${join(outside, 'secret.js')})`],
      ['entry-link', `(it resolves to ${join(outside, 'secret.js')})`],
    ];
    for (const [name, message] of cases) {
      const r = await cli(['deploy', join(dir, `${name}.js`), '--json']);
      expect(r.code, `${name}: ${r.stderr}`).toBe(1);
      expect(r.stderr, name).toContain(message);
      expect(JSON.parse(r.stdout), name).toMatchObject({ code: 'outside_project' });
      expect(await functionStatus(name)).toBe(404);
    }
  });

  it('a package found in a node_modules folder above the project is bundled; --allow-outside lets a folder in', async () => {
    const dir = folder('deploy-mono', {
      'node_modules/hoisted/package.json': JSON.stringify({ name: 'hoisted', version: '1.0.0', main: 'index.js' }),
      'node_modules/hoisted/index.js': "module.exports = 'from a hoisted package';\n",
      'app/hoisted-user.js': IMPORTS('hoisted'),
      'app/allowed-up.js': IMPORTS('../../outside/data.json'),
    });
    const hoisted = await cli(['deploy', join(dir, 'app', 'hoisted-user.js')]);
    expect(hoisted.code, hoisted.stderr).toBe(0);
    expect((await svc.request('POST', '/api/functions/hoisted-user/invoke', {})).json.result.body).toBe('from a hoisted package');
    const allowed = await cli(['deploy', join(dir, 'app', 'allowed-up.js'), '--allow-outside', outside]);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect((await svc.request('POST', '/api/functions/allowed-up/invoke', {})).json.result.body).toEqual({ secret: SECRET });
  });
});
