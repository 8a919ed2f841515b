/**
 * The Lambda compatibility suite: handlers written the way public AWS samples
 * write them (the Serverless Framework's templates and examples, SAM's
 * hello-world, serverless-patterns, CDK examples, AWS tutorials), one file
 * each under test/fixtures/lambda-compat/, deployed as a user moving from
 * Lambda would (the file as it is, plus `handler`, `event_format` and
 * `runtime`), bound to routes written in API Gateway's syntax and called over
 * real HTTP. Each asserts the answer API Gateway would give: status, headers
 * and body.
 *
 * One deliberate difference is asserted as Switchyard's: a handler that
 * throws (or fails through its callback or context) is a 502 on a REST API as
 * here, but the body is Switchyard's `{error, code, requestId}` rather than
 * API Gateway's `{"message": "Internal server error"}` (docs/functions.md,
 * "Moving from Lambda").
 *
 * The last test counts the handlers that answered as on AWS; all must.
 */
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';

const FIXTURES = resolve(import.meta.dirname, '..', 'fixtures', 'lambda-compat');

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  bytes: Buffer;
  json: any;
}
type Call = (method: string, path: string, opts?: { headers?: string[]; body?: string | Buffer }) => Promise<Answer>;

interface Handler {
  /** The fixture file; the function is named after it. */
  file: string;
  /** What the user would put in `handler` (as in their serverless.yml or template.yaml); absent when they would not set it. */
  handler?: string;
  format: 'aws-v1' | 'aws-v2';
  env?: Record<string, string>;
  timeout_ms?: number;
  memory_mb?: number;
  /** Routes of the function's own API (basePath `/`), as `[method, path]` in API Gateway's syntax. */
  routes: Array<[string, string]>;
  /** The idiom it stands for, in the test's name. */
  idiom: string;
  check(call: Call, name: string): Promise<void>;
}

const GITHUB_SECRET = 'gh-webhook-secret';
const SLACK_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';

/** 502 `function_error` with the message and the request id: the failure answer of every idiom. */
function expectFunctionError(res: Answer, message: string | RegExp): void {
  expect(res.status, res.text).toBe(502);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.json.code).toBe('function_error');
  expect(res.json.requestId).toBe(res.headers['x-request-id']);
  if (typeof message === 'string') expect(res.json.error).toBe(message);
  else expect(res.json.error).toMatch(message);
}

const HANDLERS: Handler[] = [
  {
    file: 'sls-http-api-hello.js',
    handler: 'handler.hello',
    format: 'aws-v2',
    routes: [['GET', '/']],
    idiom: 'Serverless template: module.exports.hello, httpApi, the event echoed pretty-printed',
    async check(call) {
      const res = await call('GET', '/?source=suite');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.text.startsWith('{\n  "message": "Go Serverless v3.0! Your function executed successfully!",\n  "input": {\n')).toBe(true);
      expect(res.json.input).toMatchObject({
        version: '2.0',
        routeKey: 'GET /',
        rawPath: '/',
        rawQueryString: 'source=suite',
        queryStringParameters: { source: 'suite' },
        isBase64Encoded: false,
      });
      expect(res.json.input.requestContext.http).toMatchObject({ method: 'GET', path: '/', sourceIp: '127.0.0.1' });
    },
  },
  {
    file: 'sls-simple-endpoint.js',
    handler: 'handler.endpoint',
    format: 'aws-v1',
    routes: [['GET', '/ping']],
    idiom: 'Serverless example: module.exports.endpoint with callback(null, response)',
    async check(call) {
      const res = await call('GET', '/ping');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(Object.keys(res.json)).toEqual(['message']);
      expect(res.json.message).toMatch(/^Hello, the current time is \d\d:\d\d:\d\d GMT[+-]\d{4}.*\.$/);
    },
  },
  {
    file: 'sam-hello-world.mjs',
    handler: 'app.lambdaHandler',
    format: 'aws-v1',
    routes: [['GET', '/hello']],
    idiom: 'SAM hello-world (ES module): app.lambdaHandler',
    async check(call) {
      const res = await call('GET', '/hello');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.text).toBe('{"message":"hello world"}');
    },
  },
  {
    file: 'sam-hello-world-legacy.js',
    handler: 'app.lambdaHandler',
    format: 'aws-v1',
    routes: [['GET', '/hello']],
    idiom: 'SAM hello-world (CommonJS): exports.lambdaHandler with a module-level response',
    async check(call) {
      const res = await call('GET', '/hello');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.text).toBe('{"message":"hello world"}');
    },
  },
  {
    file: 'echo-event.js',
    handler: 'handler.echoEvent',
    format: 'aws-v1',
    routes: [['GET', '/things/{id}']],
    idiom: 'echoEvent: header names as the client sent them, query, path parameters, stage, sourceIp',
    async check(call) {
      const res = await call('GET', '/things/7?verbose=true', { headers: ['X-Client-Trace', 'Abc-1', 'User-Agent', 'compat-suite/1'] });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json).toEqual({
        method: 'GET',
        resource: '/things/{id}',
        path: '/things/7',
        clientHeader: 'Abc-1',
        lowerCased: 'absent',
        userAgent: 'compat-suite/1',
        query: { verbose: 'true' },
        pathParameters: { id: '7' },
        stage: '$default',
        sourceIp: '127.0.0.1',
      });
    },
  },
  {
    file: 'default-export-v2.mjs',
    format: 'aws-v2',
    routes: [['GET', '/hello']],
    idiom: 'export default, no handler set; a 2.0 plain-object result',
    async check(call) {
      const res = await call('GET', '/hello?name=Ada');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.text).toBe('{"greeting":"Hello, Ada!","method":"GET","path":"/hello"}');
    },
  },
  {
    file: 'esm-create-item.mjs',
    handler: 'index.handler',
    format: 'aws-v1',
    routes: [['POST', '/todos']],
    idiom: "ES module with import from 'node:crypto'; JSON.parse(event.body)",
    async check(call) {
      const res = await call('POST', '/todos', { headers: ['Content-Type', 'application/json'], body: '{"text": "buy milk"}' });
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.json).toEqual({ id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/), text: 'buy milk', checked: false });
      const bad = await call('POST', '/todos', { headers: ['Content-Type', 'application/json'], body: '{"text": 42}' });
      expect(bad.status).toBe(400);
      expect(bad.text).toBe('{"error":"Couldn\'t create the todo item."}');
    },
  },
  {
    file: 'context-succeed.js',
    format: 'aws-v1',
    routes: [['GET', '/greet/{name}']],
    idiom: 'context.succeed(response)',
    async check(call, name) {
      const res = await call('GET', '/greet/Ada');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/plain');
      expect(res.text).toBe(`Hello Ada from ${name}`);
    },
  },
  {
    file: 'context-fail.js',
    format: 'aws-v1',
    routes: [['GET', '/private']],
    idiom: 'context.fail(error) -> 502',
    async check(call) {
      expectFunctionError(await call('GET', '/private'), 'Error: Unauthorized (context-fail.js, line 3, column 18)');
      const res = await call('GET', '/private', { headers: ['Authorization', 'Bearer t'] });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.text).toBe('"ok"');
    },
  },
  {
    file: 'context-done.js',
    format: 'aws-v1',
    routes: [['GET', '/items']],
    idiom: 'context.done(null, response)',
    async check(call) {
      const res = await call('GET', '/items?count=3');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.text).toBe('{"items":["item-1","item-2","item-3"]}');
    },
  },
  {
    file: 'callback-greeting.js',
    format: 'aws-v1',
    routes: [['GET', '/greeting']],
    idiom: 'callback style with a custom header',
    async check(call) {
      const res = await call('GET', '/greeting?name=Ada');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.headers['x-custom-header']).toBe('my custom header value');
      expect(res.text).toBe('{"greeting":"Hello, Ada!"}');
    },
  },
  {
    file: 'callback-error.js',
    format: 'aws-v1',
    routes: [['POST', '/orders']],
    idiom: 'callback(new Error(...)) from a timer -> 502',
    async check(call) {
      expectFunctionError(await call('POST', '/orders', { body: '{}' }), /^Error: \[BadRequest\] the order id is missing \(callback-error\.js, line 5, column 14\)$/);
    },
  },
  {
    file: 'github-webhook.js',
    handler: 'handler.githubWebhookListener',
    format: 'aws-v1',
    env: { GITHUB_WEBHOOK_SECRET: GITHUB_SECRET },
    routes: [['POST', '/webhook']],
    idiom: "raw-body HMAC with require('crypto') over the exact bytes, X-Hub-Signature-256 as GitHub spells it",
    async check(call) {
      // Whitespace and key order a parse-and-restringify would lose.
      const body = '{ "action": "opened",\n  "issue": { "number": 1 } }';
      const signature = 'sha256=' + createHmac('sha256', GITHUB_SECRET).update(body).digest('hex');
      const headers = ['Content-Type', 'application/json', 'X-GitHub-Event', 'issues', 'X-GitHub-Delivery', 'd-1'];
      const res = await call('POST', '/webhook', { headers: [...headers, 'X-Hub-Signature-256', signature], body });
      expect(res.status, res.text).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.text).toBe('{"input":{"event":"issues","id":"d-1","action":"opened"}}');
      const forged = await call('POST', '/webhook', { headers: [...headers, 'X-Hub-Signature-256', signature.replace(/.$/, (c) => (c === '0' ? '1' : '0'))], body });
      expect(forged.status).toBe(401);
      expect(forged.headers['content-type']).toBe('text/plain');
      expect(forged.text).toBe("X-Hub-Signature-256 incorrect. Github webhook token doesn't match");
      const unsigned = await call('POST', '/webhook', { headers, body });
      expect(unsigned.status).toBe(401);
      expect(unsigned.text).toBe('No X-Hub-Signature-256 found on request');
    },
  },
  {
    file: 'slack-signature-v2.mjs',
    format: 'aws-v2',
    env: { SLACK_SIGNING_SECRET: SLACK_SECRET },
    routes: [['POST', '/slack/command']],
    idiom: "HTTP API: import { createHmac, timingSafeEqual } from 'crypto' over a form body; header names lower-case",
    async check(call) {
      const body = 'token=x&team_id=T1&text=hello+world&user_name=ada';
      const timestamp = '1767225600';
      const signature = 'v0=' + createHmac('sha256', SLACK_SECRET).update(`v0:${timestamp}:${body}`).digest('hex');
      const headers = ['Content-Type', 'application/x-www-form-urlencoded', 'X-Slack-Request-Timestamp', timestamp];
      const res = await call('POST', '/slack/command', { headers: [...headers, 'X-Slack-Signature', signature], body });
      expect(res.status, res.text).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.text).toBe('{"response_type":"ephemeral","text":"You said: hello world"}');
      const forged = await call('POST', '/slack/command', { headers: [...headers, 'X-Slack-Signature', 'v0=' + '0'.repeat(64)], body });
      expect(forged.status).toBe(403);
      expect(forged.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(forged.text).toBe('invalid signature');
    },
  },
  {
    file: 'binary-image.js',
    format: 'aws-v1',
    routes: [['GET', '/pixel.png']],
    idiom: 'a binary result: base64 body with isBase64Encoded: true goes out as bytes',
    async check(call) {
      const res = await call('GET', '/pixel.png');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['cache-control']).toBe('max-age=3600');
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
      expect(res.bytes.equals(png)).toBe(true);
      expect(res.bytes.subarray(0, 4).toString('latin1')).toBe('\x89PNG');
    },
  },
  {
    file: 'binary-upload-v2.mjs',
    format: 'aws-v2',
    routes: [['POST', '/upload']],
    idiom: 'a binary request: bytes arrive base64 with isBase64Encoded: true, text with false',
    async check(call) {
      const bytes = Buffer.from([0x00, 0xff, 0xfe, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a]);
      const res = await call('POST', '/upload', { headers: ['Content-Type', 'application/octet-stream'], body: bytes });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json).toEqual({
        isBase64Encoded: true,
        size: 10,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        contentType: 'application/octet-stream',
      });
      const text = await call('POST', '/upload', { headers: ['Content-Type', 'text/plain'], body: 'héllo' });
      expect(text.json).toEqual({ isBase64Encoded: false, size: 6, sha256: createHash('sha256').update('héllo').digest('hex'), contentType: 'text/plain' });
    },
  },
  {
    file: 'cookies-v2.js',
    format: 'aws-v2',
    routes: [['GET', '/visit']],
    idiom: 'v2 cookies both ways: event.cookies in, result cookies out as Set-Cookie (kept to the API\'s path)',
    async check(call, name) {
      const res = await call('GET', '/visit', { headers: ['Cookie', 'user=ada; visits=2'] });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/plain');
      // Path=/ would reach the dashboard's origin: it becomes the API's invoke path (docs/security.md).
      const path = `/api/invoke/fn/${apiIds[name]}`;
      expect(res.headers['set-cookie']).toEqual([`visits=3; Max-Age=86400; Path=${path}`, `seen=yes; HttpOnly; Secure; Path=${path}`]);
      expect(res.text).toBe('Hello ada, visit number 3');
      const first = await call('GET', '/visit');
      expect(first.text).toBe('Hello guest, visit number 1');
      expect(first.headers['set-cookie']?.[0]).toBe(`visits=1; Max-Age=86400; Path=${path}`);
    },
  },
  {
    file: 'http-api-crud.mjs',
    format: 'aws-v2',
    routes: [
      ['PUT', '/items'],
      ['GET', '/items'],
      ['GET', '/items/{id}'],
      ['DELETE', '/items/{id}'],
    ],
    idiom: 'the CRUD HTTP API tutorial: switch (event.routeKey) over {id} routes',
    async check(call) {
      const json = ['Content-Type', 'application/json'];
      const put = await call('PUT', '/items', { headers: json, body: '{"id": "123", "price": 12345, "name": "myitem"}' });
      expect(put.status).toBe(200);
      expect(put.headers['content-type']).toBe('application/json');
      expect(put.text).toBe('"Put item 123"');
      expect((await call('GET', '/items/123')).text).toBe('{"id":"123","price":12345,"name":"myitem"}');
      expect((await call('GET', '/items')).text).toBe('[{"id":"123","price":12345,"name":"myitem"}]');
      expect((await call('DELETE', '/items/123')).text).toBe('"Deleted item 123"');
      const gone = await call('GET', '/items/123');
      expect(gone.status).toBe(400);
      expect(gone.text).toBe('"Item 123 not found"');
    },
  },
  {
    file: 'sam-typescript.ts',
    handler: 'app.lambdaHandler',
    format: 'aws-v1',
    routes: [['GET', '/hello']],
    idiom: "SAM TypeScript: import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda'",
    async check(call) {
      const res = await call('GET', '/hello');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.text).toBe('{"message":"hello world","path":"/hello"}');
    },
  },
  {
    file: 'cdk-typescript.ts',
    handler: 'index.main',
    format: 'aws-v1',
    routes: [
      ['GET', '/items/{id}'],
      ['ANY', '/{proxy+}'],
    ],
    idiom: "CDK TypeScript: a plain import { APIGatewayProxyHandler } from 'aws-lambda', index.main, {proxy+}",
    async check(call, name) {
      const item = await call('GET', '/items/42');
      expect(item.status).toBe(200);
      expect(item.headers['content-type']).toBe('text/plain');
      expect(item.text).toBe(`Hello, CDK! You've hit /items/42 (item 42) on ${name}\n`);
      const other = await call('POST', '/some/where', { body: 'x' });
      expect(other.status).toBe(200);
      expect(other.text).toBe(`Hello, CDK! You've hit /some/where (item none) on ${name}\n`);
    },
  },
  {
    file: 'typescript-v2.ts',
    format: 'aws-v2',
    routes: [['POST', '/orders']],
    idiom: "TypeScript for HTTP APIs: APIGatewayProxyEventV2, APIGatewayProxyResultV2 and Context from 'aws-lambda'",
    async check(call) {
      const res = await call('POST', '/orders', { headers: ['Content-Type', 'application/json'], body: '{"sku": "A-1", "quantity": 2}' });
      expect(res.status).toBe(201);
      const requestId = res.headers['x-request-id'];
      expect(res.headers.location).toBe(`/orders/${requestId}`);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.text).toBe(`{"orderId":"${requestId}","sku":"A-1","quantity":2}`);
      const bad = await call('POST', '/orders', { headers: ['Content-Type', 'application/json'], body: '{"sku": "A-1"}' });
      expect(bad.status).toBe(422);
      expect(bad.text).toBe('{"message":"sku and quantity are required"}');
    },
  },
  {
    file: 'remaining-time.js',
    format: 'aws-v1',
    timeout_ms: 3000,
    memory_mb: 256,
    routes: [['GET', '/context']],
    idiom: 'the Lambda context: getRemainingTimeInMillis(), functionName, memoryLimitInMB, ARN, log group, awsRequestId',
    async check(call, name) {
      const res = await call('GET', '/context');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json).toEqual({
        remainingTimeWithinLimit: true,
        functionName: name,
        memoryLimitInMB: '256',
        invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${name}`,
        logGroupName: `/aws/lambda/${name}`,
        requestIdMatches: true,
      });
    },
  },
  {
    file: 'typescript-throws.ts',
    format: 'aws-v1',
    routes: [['GET', '/items/{id}']],
    idiom: 'a TypeScript handler throwing on its line 5 -> 502 naming line 5',
    async check(call) {
      expectFunctionError(await call('GET', '/items/x1'), 'Error: cannot handle x1 (typescript-throws.ts, line 5, column 26)');
      const ok = await call('GET', '/items/ok');
      expect(ok.status).toBe(200);
      expect(ok.text).toBe('{"id":"ok"}');
    },
  },
  {
    file: 'async-throws.js',
    format: 'aws-v1',
    routes: [['POST', '/subscribe']],
    idiom: 'an async handler that throws -> 502',
    async check(call) {
      expectFunctionError(await call('POST', '/subscribe', { body: '{}' }), 'Error: email is required (async-throws.js, line 4, column 11)');
      const ok = await call('POST', '/subscribe', { headers: ['Content-Type', 'application/json'], body: '{"email": "a@example.com"}' });
      expect(ok.status).toBe(200);
      expect(ok.text).toBe('{"subscribed":"a@example.com"}');
    },
  },
];

const nameOf = (file: string) => file.replace(/\.(m?js|ts)$/, '');

let svc: RunningService;
const apiIds: Record<string, string> = {};
const answered = new Set<string>();

beforeAll(async () => {
  svc = await startService();
  for (const h of HANDLERS) {
    const name = nameOf(h.file);
    const fn = await svc.request('POST', '/api/functions', {
      name,
      code: readFileSync(join(FIXTURES, h.file), 'utf8'),
      runtime: h.file.endsWith('.ts') ? 'typescript' : 'javascript',
      event_format: h.format,
      ...(h.handler ? { handler: h.handler } : {}),
      ...(h.env ? { env: h.env } : {}),
      ...(h.timeout_ms ? { timeout_ms: h.timeout_ms } : {}),
      ...(h.memory_mb ? { memory_mb: h.memory_mb } : {}),
    });
    expect(fn.status, `${h.file}: ${fn.text}`).toBe(201);
    const api = await svc.request('POST', '/api/apis', {
      name: `compat ${name}`,
      basePath: '/',
      routes: h.routes.map(([method, path]) => ({ method, path, function: name })),
      // The failing idioms are checked by the message they answer, which only an API that exposes errors shows.
      exposeErrors: true,
    });
    expect(api.status, `${h.file}: ${api.text}`).toBe(201);
    apiIds[name] = api.json.id;
  }
}, 120000);

afterAll(async () => {
  await svc?.stop();
});

describe('Lambda handlers from public samples, deployed unchanged', () => {
  it('has a fixture file for every handler and a handler for every fixture file', async () => {
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(FIXTURES).sort()).toEqual(HANDLERS.map((h) => h.file).sort());
    expect(HANDLERS.length).toBeGreaterThanOrEqual(20);
  });

  for (const h of HANDLERS) {
    const name = nameOf(h.file);
    it(`${h.file} (${h.format}${h.handler ? `, handler ${h.handler}` : ''}): ${h.idiom}`, async () => {
      const call: Call = async (method, path, opts = {}) => {
        const res = await rawRequest(svc.url, method, `/api/invoke/fn/${apiIds[name]}${path}`, opts.headers ?? [], opts.body);
        const text = res.body.toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        return { status: res.status, headers: res.headers, text, bytes: res.body, json };
      };
      await h.check(call, name);
      answered.add(name);
    });
  }

  it('counts the handlers that answer as on AWS: all of them', () => {
    const line = `${answered.size} of ${HANDLERS.length} handlers answer as on AWS`;
    console.log(line);
    const missing = HANDLERS.map((h) => nameOf(h.file)).filter((n) => !answered.has(n));
    expect(missing, line).toEqual([]);
    expect(line).toBe(`${HANDLERS.length} of ${HANDLERS.length} handlers answer as on AWS`);
  });
});
