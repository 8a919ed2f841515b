/**
 * The project file loader: a valid file with defaults filled, and every
 * kind of problem named by file, key path (and line), and reason.
 */
import { mkdtempSync, writeFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProject, parseProject, PROJECT_DEFAULTS, ProjectError, type ProjectProblem } from '../../src/project/index.js';
import { FUNCTION_DEFAULTS } from '../../src/functions/service.js';
import { WEBHOOK_DEFAULTS } from '../../src/webhooks/service.js';

const files: Record<string, string> = {
  '/p/functions/hello.js': 'export const handler = async () => ({ ok: true });',
  '/p/functions/typed.ts': 'export const handler = async (): Promise<number> => 1;',
  '/p/functions/empty.js': '',
};
const readFile = async (path: string) => {
  if (path in files) return files[path];
  throw Object.assign(new Error('missing'), { code: 'ENOENT' });
};
const parse = (text: string, env: Record<string, string> = {}) => parseProject(text, '/p/switchyard.yaml', { env, readFile });

async function problemsOf(text: string, env: Record<string, string> = {}): Promise<ProjectProblem[]> {
  const err = await parse(text, env).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProjectError);
  return (err as ProjectError).problems;
}

describe('project file: valid', () => {
  it('methods in any case, as import writes them: route and webhook methods in capitals', async () => {
    const { project } = await parse(`
functions:
  hello:
    file: functions/hello.js
apis:
  users:
    base_path: /users
    routes:
      - { method: get, path: /a, function: hello }
      - { method: Post, path: /b, function: hello }
      - { method: any, path: /c, function: hello }
webhooks:
  ping:
    target_url: https://example.com/hook
    method: post
    payload_template: {}
`);
    expect(project.apis[0].routes.map((r) => r.method)).toEqual(['GET', 'POST', 'ANY']);
    expect(project.webhooks[0].method).toBe('POST');
  });

  it('fills the defaults of the server, infers the runtime from the extension, reads the files', async () => {
    const { project, env_used } = await parse(
      `
env_from: [TOKEN]
functions:
  hello:
    file: functions/hello.js
  typed:
    file: functions/typed.ts
    handler: handler
    event_format: aws-v2
    env: { GREETING: hi, PORT: 8080, TOKEN: 'Bearer \${env:TOKEN}' }
    timeout_ms: 2000
    memory_mb: 64
apis:
  users:
    base_path: /users
    routes:
      - { method: GET, path: '/{id}', function: hello }
      - { method: ANY, path: '/files/{proxy+}', function: typed }
webhooks:
  ping:
    target_url: https://example.com/hook
    method: POST
    payload_template: { event: '{{event}}' }
    mock_endpoint: { api: users, path: /1 }
`,
      { TOKEN: 'abc' },
    );
    expect(env_used).toEqual(['TOKEN']);
    expect(project.functions).toEqual([
      {
        name: 'hello',
        file: 'functions/hello.js',
        code: files['/p/functions/hello.js'],
        runtime: 'javascript',
        handler: null,
        event_format: 'switchyard',
        env: {},
        timeout_ms: 10000,
        memory_mb: 128,
        schedules: [],
        events: [],
        async: { retries: 2, on_success: null, on_failure: null },
        project: null,
      },
      {
        name: 'typed',
        file: 'functions/typed.ts',
        code: files['/p/functions/typed.ts'],
        runtime: 'typescript',
        handler: 'handler',
        event_format: 'aws-v2',
        env: { GREETING: 'hi', PORT: '8080', TOKEN: 'Bearer abc' },
        timeout_ms: 2000,
        memory_mb: 64,
        schedules: [],
        events: [],
        async: { retries: 2, on_success: null, on_failure: null },
        project: null,
      },
    ]);
    expect(project.apis).toEqual([
      {
        name: 'users',
        base_path: '/users',
        routes: [
          { method: 'GET', path: '/{id}', function: 'hello' },
          { method: 'ANY', path: '/files/{proxy+}', function: 'typed' },
        ],
        cors: null,
        minimum_compression_size: null,
        binary_media_types: null,
        authorizers: [],
        default_authorizer: null,
        error_format: null,
        expose_errors: null,
        throttle: null,
        project: null,
      },
    ]);
    expect(project.webhooks[0]).toEqual({
      name: 'ping',
      target_url: 'https://example.com/hook',
      target: null,
      method: 'POST',
      headers: {},
      payload_template: { event: '{{event}}' },
      cron: null,
      timezone: 'UTC',
      mock_endpoint: { api: 'users', path: '/1' },
      transformation: null,
      events: [],
      enabled: true,
      secret: null,
      retry: { max_attempts: 8 },
      timeout_ms: 15000,
      breaker: { enabled: true, min_attempts: 20, failure_ratio: 0.5, window_s: 60 },
      rate_limit: null,
      auto_disable: { enabled: true, after_s: 432_000, min_span_s: 43_200 },
      filter: null,
      project: null,
    });
  });

  it('uses the same defaults as the services', () => {
    expect(PROJECT_DEFAULTS.function).toMatchObject({
      runtime: FUNCTION_DEFAULTS.runtime,
      event_format: FUNCTION_DEFAULTS.eventFormat,
      timeout_ms: FUNCTION_DEFAULTS.timeoutMs,
      memory_mb: FUNCTION_DEFAULTS.memoryMb,
    });
    expect(PROJECT_DEFAULTS.webhook).toMatchObject({
      timezone: WEBHOOK_DEFAULTS.timezone,
      max_attempts: WEBHOOK_DEFAULTS.maxAttempts,
      timeout_ms: WEBHOOK_DEFAULTS.timeoutMs,
    });
  });

  it('an empty file is an empty project', async () => {
    expect((await parse('')).project).toEqual({ functions: [], apis: [], webhooks: [], project: null });
  });

  it('reads a file from disk, function paths relative to it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-project-'));
    mkdirSync(join(dir, 'fns'));
    writeFileSync(join(dir, 'fns', 'a.mjs'), 'export default () => 1;');
    writeFileSync(join(dir, 'switchyard.yaml'), 'functions:\n  a: { file: fns/a.mjs }\n');
    const { project } = await loadProject(join(dir, 'switchyard.yaml'));
    expect(project.functions[0]).toMatchObject({ name: 'a', runtime: 'javascript', code: 'export default () => 1;' });
  });
});

describe('project file: problems name the file, the key path and the reason', () => {
  it('a value out of range, with its line and column', async () => {
    const problems = await problemsOf('functions:\n  hello:\n    file: functions/hello.js\n    timeout_ms: 999999999\n');
    expect(problems).toEqual([
      { file: '/p/switchyard.yaml', path: 'functions.hello.timeout_ms', message: 'must be <= 900000', line: 4, column: 17 },
    ]);
    expect(new ProjectError(problems).message).toBe('/p/switchyard.yaml:4:17: functions.hello.timeout_ms: must be <= 900000');
  });

  it('all problems at once: unknown key, wrong enum, missing required, bad route', async () => {
    const problems = await problemsOf(`
functions:
  hello:
    file: functions/hello.js
    event_format: aws-v3
    timeout: 5
apis:
  users:
    routes:
      - { method: FETCH, path: x, function: hello }
`);
    const byPath = Object.fromEntries(problems.map((p) => [p.path, p.message]));
    expect(byPath['functions.hello.event_format']).toBe('must be one of "switchyard", "aws-v1", "aws-v2"');
    expect(byPath['functions.hello.timeout']).toBe('unknown key; did you mean timeout_ms (milliseconds)?');
    expect(byPath['apis.users.base_path']).toBe('is required');
    expect(byPath['apis.users.routes[0].method']).toBe('must be one of "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "ANY" (any case)');
    expect(byPath['apis.users.routes[0].path']).toBe('must start with /');
  });

  it('a misspelt or habitual key says which key was meant', async () => {
    const problems = await problemsOf(`
fucntions:
  hello:
    file: functions/hello.js
apis:
  users:
    basePath: /users
webhooks:
  ping:
    url: https://example.com/hook
    method: POST
    payload_template: {}
    retyr: { max_attempts: 2 }
`);
    const byPath = Object.fromEntries(problems.map((p) => [p.path, p.message]));
    expect(byPath['fucntions']).toBe('unknown key; did you mean functions?');
    expect(byPath['apis.users.basePath']).toBe('unknown key; did you mean base_path?');
    expect(byPath['webhooks.ping.url']).toBe('unknown key; did you mean target_url?');
    expect(byPath['webhooks.ping.retyr']).toBe('unknown key; did you mean retry?');
    // Nothing near: the keys there are.
    const far = await problemsOf('functions:\n  hello:\n    file: functions/hello.js\n    zzzzzz: 1\n');
    expect(far[0].message).toBe('unknown key (the keys here: file, handler, event_format, env, timeout_ms, memory_mb, schedules, events, async)');
  });

  it('patterns are said in words: base_path, file, handler, env names', async () => {
    const problems = await problemsOf(`
functions:
  hello:
    file: functions/hello.py
    handler: 'not a handler'
    env: { 1BAD: x }
apis:
  users:
    base_path: users
`);
    const byPath = Object.fromEntries(problems.map((p) => [p.path, p.message]));
    expect(byPath['apis.users.base_path']).toBe('must start with /');
    expect(byPath['functions.hello.file']).toBe('must be a .js, .mjs, .cjs, .ts or .mts file');
    expect(byPath['functions.hello.handler']).toBe("must be an export name (handler) or Lambda's file.export (src/app.handler)");
    expect(problems.map((p) => p.message).join('\n')).not.toContain('must match pattern');
  });

  it('serverless.yml events under a function: what to write instead', async () => {
    const problems = await problemsOf(`
functions:
  greet:
    file: functions/hello.js
    events:
      - http: GET /greet
      - schedule: rate(5 minutes)
      - user.signed_up
`);
    expect(problems.map((p) => p.path)).toEqual(['functions.greet.events[0]', 'functions.greet.events[1]']);
    expect(problems[0].message).toContain("'http:' is serverless.yml's way to route a function");
    expect(problems[0].message).toContain('routes: [ { method: GET, path: /greet, function: greet } ]');
    expect(problems[0].message).not.toContain('must be string');
    expect(problems[1].message).toContain("schedules: [{ cron: '*/5 * * * *' }]");
    expect(problems[0].line).toBe(6);
  });

  it('a YAML syntax error names line and column', async () => {
    const problems = await problemsOf('functions:\n  hello:\n    file: [unclosed\n');
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toMatch(/^YAML syntax: /);
    expect(problems[0].line).toBeGreaterThanOrEqual(3);
    expect(problems[0].column).toBeGreaterThanOrEqual(1);
  });

  it('a duplicate key is a syntax error', async () => {
    const problems = await problemsOf('functions:\n  a: { file: functions/hello.js }\n  a: { file: functions/hello.js }\n');
    expect(problems[0].message).toMatch(/YAML syntax: .*unique/i);
  });

  it('a missing environment variable names the key path and the variable', async () => {
    const problems = await problemsOf(
      'env_from: [DATABASE_URL]\nfunctions:\n  hello:\n    file: functions/hello.js\n    env:\n      DB_URL: ${env:DATABASE_URL}\n',
    );
    expect(problems).toEqual([
      {
        file: '/p/switchyard.yaml',
        path: 'functions.hello.env.DB_URL',
        message: 'environment variable DATABASE_URL is not set (${env:DATABASE_URL})',
        line: 6,
        column: 15,
      },
    ]);
  });

  it('function schedules, events and async: defaults filled, checked, destinations by name of the file', async () => {
    const text = `
functions:
  hello:
    file: functions/hello.js
    schedules:
      - { cron: '0 9 * * 1-5', timezone: America/New_York, payload: { kind: daily } }
      - { cron: '*/15 * * * *', payload: {} }
    events: [order.created, 'user.*']
    async: { retries: 0, on_failure: { webhook: alerts }, on_success: { function: typed } }
  typed: { file: functions/typed.ts, async: { on_success: null } }
webhooks:
  alerts: { target_url: https://example.com/a, method: POST, payload_template: {} }
`;
    const { project } = await parse(text);
    expect(project.functions[0]).toMatchObject({
      schedules: [
        { cron: '0 9 * * 1-5', timezone: 'America/New_York', payload: { kind: 'daily' } },
        { cron: '*/15 * * * *', timezone: 'UTC' },
      ],
      events: ['order.created', 'user.*'],
      async: { retries: 0, on_success: { function: 'typed' }, on_failure: { webhook: 'alerts' } },
    });
    expect(project.functions[0].schedules[1]).not.toHaveProperty('payload');
    expect(project.functions[1].async).toEqual({ retries: 2, on_success: null, on_failure: null });
  });

  it('refuses a cron Switchyard cannot run, an unknown zone, a destination the file lacks, a bad destination, too many retries', async () => {
    const problems = await problemsOf(`
functions:
  hello:
    file: functions/hello.js
    schedules:
      - { cron: '0 9 ? * MON-FRI' }
      - { cron: '0 9 * * *', timezone: Mars/Olympus }
    async: { on_failure: { webhook: nowhere }, on_success: { function: ghost } }
  typed:
    file: functions/typed.ts
    async: { retries: 9, on_success: { queue: q } }
`);
    const byPath = Object.fromEntries(problems.map((p) => [p.path, p]));
    expect(Object.keys(byPath).sort()).toEqual(['functions.typed.async.on_success', 'functions.typed.async.retries']);
    expect(byPath['functions.typed.async.on_success'].message).toBe('must be null, {webhook: <name>} or {function: <name>}');
    expect(byPath['functions.typed.async.on_success'].line).toBe(11);

    // Once the schema passes, the checks of the cron dialect, the zone and the references.
    const later = await problemsOf(`
functions:
  hello:
    file: functions/hello.js
    schedules:
      - { cron: '0 9 ? * MON-FRI' }
      - { cron: '0 9 * * *', timezone: Mars/Olympus }
    async: { on_failure: { webhook: nowhere }, on_success: { function: ghost } }
`);
    expect(later.map((p) => [p.path, p.message])).toEqual([
      ['functions.hello.schedules[0].cron', "'?' is not supported; use '*' in day-of-month"],
      ['functions.hello.schedules[1].timezone', "'Mars/Olympus' is not an IANA time zone"],
      ['functions.hello.async.on_success.function', "no function 'ghost' in this file"],
      ['functions.hello.async.on_failure.webhook', "no webhook 'nowhere' in this file"],
    ]);
    expect(later[0].line).toBe(6);
  });

  it('a function schedule list is bounded (20) as the server bounds it', async () => {
    const many = Array.from({ length: 21 }, () => "      - { cron: '* * * * *' }").join('\n');
    const problems = await problemsOf(`functions:\n  hello:\n    file: functions/hello.js\n    schedules:\n${many}\n`);
    expect(problems[0]).toMatchObject({ path: 'functions.hello.schedules', message: 'must NOT have more than 20 items' });
  });

  it('checks what the schema cannot: route paths, references, files, duplicates', async () => {
    const problems = await problemsOf(`
functions:
  hello: { file: functions/hello.js }
  gone: { file: functions/missing.js }
  empty: { file: functions/empty.js }
apis:
  users:
    base_path: /users/:id
    routes:
      - { method: GET, path: '/a/*/b', function: hello }
      - { method: GET, path: /x, function: nobody }
      - { method: GET, path: /x, function: hello }
webhooks:
  w:
    target_url: ftp://example.com
    method: POST
    payload_template: {}
    mock_endpoint: { api: other, path: / }
`);
    const byPath = Object.fromEntries(problems.map((p) => [p.path, p.message]));
    expect(byPath['functions.gone.file']).toBe('cannot read functions/missing.js (ENOENT)');
    expect(byPath['functions.empty.file']).toBe('functions/empty.js is empty');
    expect(byPath['apis.users.base_path']).toBeTruthy();
    expect(byPath['apis.users.routes[0].path']).toBeTruthy();
    expect(byPath['apis.users.routes[1].function']).toBe("no function 'nobody' in this file");
    expect(byPath['apis.users.routes[2]']).toBe('GET /x is already routes[1]');
    expect(byPath['webhooks.w.target_url']).toBe('must be an absolute http(s) URL');
    expect(byPath['webhooks.w.mock_endpoint.api']).toBe("no API 'other' in this file");
  });

  it('a webhook targets a URL or an API of the file: exactly one of target_url and target', async () => {
    const hook = (target: string) => `
apis:
  users: { base_path: /users }
webhooks:
  w:
${target}
    method: POST
    payload_template: {}
`;
    const loaded = await parse(hook('    target: { api: users, path: /webhooks/receive?x=1 }'));
    expect(loaded.project.webhooks[0]).toMatchObject({ target_url: null, target: { api: 'users', path: '/webhooks/receive?x=1' } });
    expect((await parse(hook('    target_url: https://example.com/h'))).project.webhooks[0]).toMatchObject({ target_url: 'https://example.com/h', target: null });

    const both = await problemsOf(hook('    target_url: https://example.com/h\n    target: { api: users, path: /h }'));
    expect(both.map((p) => [p.path, p.message])).toEqual([['webhooks.w.target', 'give target_url or target, not both']]);
    const neither = await problemsOf(hook(''));
    expect(neither.map((p) => [p.path, p.message])).toEqual([['webhooks.w', 'target_url or target is required']]);
    const unknown = await problemsOf(hook('    target: { api: orders, path: /h }'));
    expect(unknown.map((p) => [p.path, p.message])).toEqual([['webhooks.w.target.api', "no API 'orders' in this file"]]);
    const relative = await problemsOf(hook('    target: { api: users, path: h }'));
    expect(relative[0]).toMatchObject({ path: 'webhooks.w.target.path' });
  });

  it('a file extension outside .js/.mjs/.cjs/.ts/.mts is refused', async () => {
    const problems = await problemsOf('functions:\n  hello: { file: functions/hello.py }\n');
    expect(problems[0]).toMatchObject({ path: 'functions.hello.file' });
  });
});

describe('project file: ${env:} reads only what is allowed', () => {
  const FN = 'functions:\n  hello:\n    file: functions/hello.js\n    env:\n      TOKEN: ${env:API_TOKEN}\n';

  it('a variable the file does not list is a problem naming it and its place, and is not read', async () => {
    const problems = await problemsOf(FN, { API_TOKEN: 'operator-secret' });
    expect(problems).toEqual([
      {
        file: '/p/switchyard.yaml',
        path: 'functions.hello.env.TOKEN',
        message: '${env:API_TOKEN} reads a variable the project does not allow: list API_TOKEN under env_from, or pass --env-from API_TOKEN',
        line: 5,
        column: 14,
      },
    ]);
  });

  it('env_from in the file or the caller\'s list allows it', async () => {
    const listed = await parse(`env_from: [API_TOKEN]\n${FN}`, { API_TOKEN: 't1' });
    expect(listed.project.functions[0].env).toEqual({ TOKEN: 't1' });
    expect(listed.env_used).toEqual(['API_TOKEN']);
    const flagged = await parseProject(FN, '/p/switchyard.yaml', { env: { API_TOKEN: 't2' }, envFrom: ['API_TOKEN'], readFile });
    expect(flagged.project.functions[0].env).toEqual({ TOKEN: 't2' });
  });

  it('never a SWITCHYARD_ variable, even listed, in any case', async () => {
    const env = { SWITCHYARD_ADMIN_KEY: 'the-admin-key', switchyard_admin_key: 'the-admin-key' };
    const listed = await problemsOf(
      'env_from: [SWITCHYARD_ADMIN_KEY]\nfunctions:\n  hello:\n    file: functions/hello.js\n    env:\n      K: ${env:SWITCHYARD_ADMIN_KEY}\n',
      env,
    );
    expect(listed.map((p) => [p.path, p.line])).toEqual([
      ['env_from[0]', 1],
      ['functions.hello.env.K', 6],
    ]);
    expect(listed[1].message).toBe(
      '${env:SWITCHYARD_ADMIN_KEY} is refused: SWITCHYARD_ variables configure the server (its admin key among them) and a project never reads them',
    );
    const viaCaller = await parseProject(
      'functions:\n  hello:\n    file: functions/hello.js\n    env:\n      K: ${env:switchyard_admin_key}\n',
      '/p/switchyard.yaml',
      { env, envFrom: ['switchyard_admin_key', 'SWITCHYARD_ADMIN_KEY'], readFile },
    ).catch((e: unknown) => e);
    expect(viaCaller).toBeInstanceOf(ProjectError);
    expect((viaCaller as ProjectError).problems[0].message).toMatch(/^\$\{env:switchyard_admin_key\} is refused: SWITCHYARD_ variables/);
  });
});

describe('project file: function files stay in the project folder', () => {
  /** A real project folder beside a folder outside it, with a symlink from one to the other. */
  function layout() {
    const base = mkdtempSync(join(tmpdir(), 'switchyard-confine-'));
    mkdirSync(join(base, 'p', 'functions'), { recursive: true });
    mkdirSync(join(base, 'outside'));
    writeFileSync(join(base, 'p', 'functions', 'ok.js'), 'export const handler = () => 1;');
    writeFileSync(join(base, 'outside', 'secret.js'), 'export const handler = () => "secret";');
    symlinkSync(join(base, 'outside', 'secret.js'), join(base, 'p', 'functions', 'link.js'));
    symlinkSync(join(base, 'outside'), join(base, 'p', 'linked-dir'));
    symlinkSync(join(base, 'p', 'functions', 'ok.js'), join(base, 'p', 'alias.js'));
    return base;
  }

  it('refuses ../ paths, absolute paths and symlinks that lead out, naming each; reads nothing of them', async () => {
    const base = layout();
    const read: string[] = [];
    const text = `functions:
  up: { file: ../outside/secret.js }
  absolute: { file: ${join(base, 'outside', 'secret.js')} }
  link: { file: functions/link.js }
  through-dir: { file: linked-dir/secret.js }
  missing-up: { file: ../nowhere/x.js }
  ok: { file: functions/ok.js }
  alias: { file: alias.js }
`;
    const err = await parseProject(text, join(base, 'p', 'switchyard.yaml'), {
      readFile: async (path) => (read.push(path), (await import('node:fs/promises')).readFile(path, 'utf8')),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectError);
    const byPath = Object.fromEntries((err as ProjectError).problems.map((p) => [p.path, p]));
    expect(Object.keys(byPath).sort()).toEqual(['functions.absolute.file', 'functions.link.file', 'functions.missing-up.file', 'functions.through-dir.file', 'functions.up.file']);
    const secret = join(base, 'outside', 'secret.js');
    expect(byPath['functions.link.file'].message).toBe(
      `functions/link.js is outside the project folder ${join(base, 'p')} (it resolves to ${secret}); pass --allow-outside <folder> to allow a folder outside it`,
    );
    expect(byPath['functions.up.file'].message).toMatch(/^\.\.\/outside\/secret\.js is outside the project folder/);
    expect(byPath['functions.link.file'].line).toBe(4);
    // Only the file inside was read (a symlink inside to inside is fine), by its real path, once for both functions.
    expect(read).toEqual([join(base, 'p', 'functions', 'ok.js')]);
  });

  it('an allowed folder outside is read', async () => {
    const base = layout();
    const { project } = await parseProject('functions:\n  link: { file: functions/link.js }\n  up: { file: ../outside/secret.js }\n', join(base, 'p', 'switchyard.yaml'), {
      allowOutside: [join(base, 'outside')],
    });
    expect(project.functions.map((f) => f.code)).toEqual(['export const handler = () => "secret";', 'export const handler = () => "secret";']);
  });
});

describe('the published schema', () => {
  it('lists the same methods, event formats and limits as the management API', async () => {
    const { readFileSync } = await import('node:fs');
    const { PROJECT_SCHEMA_URL } = await import('../../src/project/index.js');
    const { ROUTE_METHODS, EVENT_FORMATS } = await import('../../src/types.js');
    const { WEBHOOK_METHODS } = await import('../../src/webhooks/types.js');
    const schema = JSON.parse(readFileSync(PROJECT_SCHEMA_URL, 'utf8'));
    // Any case: each method in capitals and in lower case, so an editor takes `get` as the loader does.
    const anyCase = (methods: readonly string[]) => [...methods, ...methods.map((m) => m.toLowerCase())].sort();
    expect([...schema.$defs.route.properties.method.enum].sort()).toEqual(anyCase(ROUTE_METHODS));
    expect(schema.$defs.function.properties.event_format.enum).toEqual([...EVENT_FORMATS]);
    expect([...schema.$defs.webhook.properties.method.enum].sort()).toEqual(anyCase(WEBHOOK_METHODS));
    expect(schema.$defs.function.properties.timeout_ms).toMatchObject({ minimum: 1, maximum: 900000 });
    expect(schema.$defs.function.properties.memory_mb).toMatchObject({ minimum: 8, maximum: 1024 });
  });
});

describe('createHttpProjectApi', () => {
  it('sends the admin key, follows Link pages, and turns error answers into ProjectApiError', async () => {
    const { createHttpProjectApi, ProjectApiError } = await import('../../src/project/index.js');
    const seen: Array<{ url: string; auth: string | null }> = [];
    // The typed client hands fetch one Request.
    const fakeFetch = async (request: Request) => {
      const url = request.url;
      seen.push({ url, auth: request.headers.get('authorization') });
      if (url.endsWith('/api/functions?limit=1000')) {
        return new Response(JSON.stringify([{ name: 'a' }]), { headers: { link: '</api/functions?limit=1000&after=a>; rel="next"' } });
      }
      if (url.endsWith('after=a')) return new Response(JSON.stringify([{ name: 'b' }]));
      return new Response(JSON.stringify({ error: 'nope', code: 'function_not_found' }), { status: 404 });
    };
    const api = createHttpProjectApi({ baseUrl: 'http://sy.test/', adminKey: 'k', fetch: fakeFetch });
    expect((await api.listFunctions()).map((f) => f.name)).toEqual(['a', 'b']);
    expect(seen.map((s) => s.url)).toEqual(['http://sy.test/api/functions?limit=1000', 'http://sy.test/api/functions?limit=1000&after=a']);
    expect(seen.every((s) => s.auth === 'Bearer k')).toBe(true);
    const err = await api.getFunction('x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectApiError);
    expect(err).toMatchObject({ status: 404, code: 'function_not_found', message: 'nope' });
  });
});
