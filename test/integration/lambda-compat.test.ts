/**
 * The Lambda compatibility suite: handlers written the way public AWS samples
 * write them (the Serverless Framework's templates and examples, SAM's
 * hello-world, serverless-patterns, CDK examples, AWS tutorials), one file
 * each under test/fixtures/lambda-compat/, deployed as a user moving from
 * Lambda would (the file as it is, plus `handler`, `event_format` and
 * `runtime`), bound to routes written in API Gateway's syntax and called over
 * real HTTP. Each asserts the answer API Gateway would give: status, headers
 * and body. The `npm-*` handlers use packages from the registry (the
 * project's dev dependencies) as their READMEs show, bundled from
 * node_modules as `switchyard deploy` bundles them.
 *
 * Two deliberate differences are asserted as Switchyard's (docs/functions.md,
 * "Moving from Lambda"): a handler that throws (or fails through its callback
 * or context) is a 502 on a REST API as there, but the body is Switchyard's
 * `{error, code, requestId}` on these APIs, which expose errors, rather than
 * API Gateway's `{"message": "Internal server error"}`; and a cookie's
 * `Path=/` is kept to the API's invoke path.
 *
 * The last test counts the handlers that answered as on AWS; all must.
 */
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { bundleFunction } from '../../src/cli/bundle.js';
import { rawRequest, startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';

const FIXTURES = resolve(import.meta.dirname, '..', 'fixtures', 'lambda-compat');
/** The project the npm handlers are bundled from: this repository, whose dev dependencies they use. */
const ROOT = resolve(import.meta.dirname, '..', '..');

/** An RS256 key pair as an identity provider holds it: the public JWK for the function, tokens signed here. */
const rsa = {
  publicJwk: {} as JWK,
  sign: async (_claims: Record<string, unknown>, _issuer: string, _audience: string): Promise<string> => '',
};
/** The upstream API the axios handler calls. */
let upstream: Receiver;

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
  env?: Record<string, string> | (() => Record<string, string>);
  /** Imports npm packages: bundled from the project's node_modules, as `switchyard deploy` does. */
  bundle?: true;
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
  // ---- npm packages from the registry, bundled from node_modules as `switchyard deploy` bundles them
  {
    file: 'npm-uuid-todos-create.js',
    handler: 'todos/create.create',
    format: 'aws-v1',
    bundle: true,
    routes: [['POST', '/todos']],
    idiom: "Serverless examples' todos create: uuid's v4, callback(null, response), a 400 in text/plain",
    async check(call) {
      const res = await call('POST', '/todos', { headers: ['Content-Type', 'application/json'], body: '{"text": "buy milk"}' });
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ text: 'buy milk', checked: false, valid: true });
      expect(res.json.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(res.json.createdAt).toBe(res.json.updatedAt);
      const bad = await call('POST', '/todos', { body: '{"text": 1}' });
      expect(bad.status).toBe(400);
      expect(bad.headers['content-type']).toBe('text/plain');
      expect(bad.text).toBe("Couldn't create the todo item.");
    },
  },
  {
    file: 'npm-dayjs-opening-hours.mjs',
    format: 'aws-v2',
    bundle: true,
    routes: [['GET', '/day']],
    idiom: 'dayjs with its utc plugin: formatting, adding a week, the start of the month, the local time being UTC',
    async check(call) {
      const res = await call('GET', '/day?at=2024-02-29T23:30:00Z');
      expect(res.status, res.text).toBe(200);
      expect(res.json).toEqual({
        day: 'Thursday',
        date: '2024-02-29',
        nextWeek: '2024-03-07',
        startOfMonth: '2024-02-01T00:00:00.000Z',
        local: '2024-02-29 23:30',
      });
    },
  },
  {
    file: 'npm-lodash-order-totals.js',
    format: 'aws-v1',
    bundle: true,
    routes: [['POST', '/report']],
    idiom: 'lodash groupBy, sumBy, maxBy, pick and uniq over a posted list',
    async check(call) {
      const orders = [
        { id: 'a', status: 'paid', amount: 10.1, customer: 'kim' },
        { id: 'b', status: 'paid', amount: 5.2, customer: 'lee' },
        { id: 'c', status: 'open', amount: 99, customer: 'kim' },
      ];
      const res = await call('POST', '/report', { body: JSON.stringify(orders) });
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe('{"count":3,"totals":{"paid":15.3,"open":99},"biggest":{"id":"c","amount":99},"customers":["kim","lee"]}');
    },
  },
  {
    file: 'npm-zod-signup.ts',
    format: 'aws-v2',
    bundle: true,
    routes: [['POST', '/signup']],
    idiom: "zod's safeParse in a TypeScript HTTP API handler: 201, or 400 naming the fields",
    async check(call) {
      const res = await call('POST', '/signup', { body: '{"email": "ada@example.com", "name": "Ada", "age": 36}' });
      expect(res.status, res.text).toBe(201);
      expect(res.text).toBe('{"welcome":"Ada","email":"ada@example.com"}');
      const bad = await call('POST', '/signup', { body: '{"email": "nope", "name": "", "age": 3}' });
      expect(bad.status).toBe(400);
      expect(bad.json).toEqual({ message: 'invalid signup', fields: ['age', 'email', 'name'] });
    },
  },
  {
    file: 'npm-joi-contact.js',
    handler: 'handler.submit',
    format: 'aws-v1',
    bundle: true,
    routes: [['POST', '/contact']],
    idiom: "joi's schema.validate with abortEarly false: 202, or 422 listing every message",
    async check(call) {
      const res = await call('POST', '/contact', { body: '{"name": "Ada", "email": "ada@example.com", "message": "hi"}' });
      expect(res.status, res.text).toBe(202);
      expect(res.text).toBe('{"received":"Ada"}');
      const bad = await call('POST', '/contact', { body: '{"name": "A", "email": "nope"}' });
      expect(bad.status).toBe(422);
      expect(bad.json.errors).toEqual([
        '"name" length must be at least 2 characters long',
        '"email" must be a valid email',
        '"message" is required',
      ]);
    },
  },
  {
    file: 'npm-jsonwebtoken-login.js',
    format: 'aws-v1',
    bundle: true,
    env: { JWT_SECRET: 'compat-suite-secret' },
    routes: [
      ['POST', '/login'],
      ['GET', '/me'],
    ],
    idiom: "jsonwebtoken's sign and verify with a shared secret (HS256), expiry and issuer checked",
    async check(call) {
      const login = await call('POST', '/login', { body: '{"username": "ada"}' });
      expect(login.status, login.text).toBe(200);
      const token = login.json.token as string;
      const [header, payload] = token.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')));
      expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
      expect(payload).toMatchObject({ sub: 'ada', role: 'reader', iss: 'compat-suite' });
      expect(payload.exp - payload.iat).toBe(3600);
      // The signature is the HMAC a Lambda would compute: checked here with the host's crypto.
      const [h, p, s] = token.split('.');
      expect(createHmac('sha256', 'compat-suite-secret').update(`${h}.${p}`).digest('base64url')).toBe(s);
      const me = await call('GET', '/me', { headers: ['Authorization', `Bearer ${token}`] });
      expect(me.status, me.text).toBe(200);
      expect(me.text).toBe('{"user":"ada","role":"reader"}');
      const forged = await call('GET', '/me', { headers: ['Authorization', `Bearer ${h}.${p}.${s.slice(0, -2)}xx`] });
      expect(forged.status).toBe(401);
      expect(forged.text).toBe('{"message":"JsonWebTokenError"}');
    },
  },
  {
    file: 'npm-jose-verify.mjs',
    format: 'aws-v2',
    bundle: true,
    env: () => ({ JWKS: JSON.stringify({ keys: [{ ...rsa.publicJwk, kid: 'k1', alg: 'RS256', use: 'sig' }] }) }),
    routes: [['GET', '/private']],
    idiom: "jose's jwtVerify against createLocalJWKSet: an RS256 token, its issuer and audience, a tampered one refused",
    async check(call) {
      const token = await rsa.sign({ sub: 'user-7' }, 'https://issuer.example', 'compat');
      const res = await call('GET', '/private', { headers: ['Authorization', `Bearer ${token}`] });
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe('{"sub":"user-7","alg":"RS256"}');
      const other = await call('GET', '/private', { headers: ['Authorization', `Bearer ${await rsa.sign({ sub: 'user-7' }, 'https://issuer.example', 'elsewhere')}`] });
      expect(other.status).toBe(401);
      expect(other.json.code).toBe('ERR_JWT_CLAIM_VALIDATION_FAILED');
      const tampered = `${token.slice(0, -4)}AAAA`;
      const bad = await call('GET', '/private', { headers: ['Authorization', `Bearer ${tampered}`] });
      expect(bad.status).toBe(401);
      expect(bad.json.code).toBe('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    },
  },
  {
    file: 'npm-middy-json-body.mjs',
    format: 'aws-v1',
    bundle: true,
    routes: [['POST', '/orders']],
    idiom: "middy's README: the handler wrapped with http-json-body-parser and http-error-handler (415, 422 as middy answers)",
    async check(call) {
      const res = await call('POST', '/orders', { headers: ['Content-Type', 'application/json'], body: '{"item": "tea", "quantity": 2}' });
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe('{"ordered":"tea","quantity":2}');
      const wrongType = await call('POST', '/orders', { headers: ['Content-Type', 'text/plain'], body: 'tea' });
      expect(wrongType.status).toBe(415);
      const malformed = await call('POST', '/orders', { headers: ['Content-Type', 'application/json'], body: '{"item":' });
      expect(malformed.status).toBe(422);
      expect(malformed.text).toBe('Invalid or malformed JSON was provided');
    },
  },
  {
    file: 'npm-powertools-logger.mjs',
    format: 'aws-v1',
    bundle: true,
    routes: [['GET', '/orders/{id}']],
    idiom: 'Powertools logger: a Logger with a service name, addContext(context), appendKeys, a structured info line',
    async check(call, name) {
      const res = await call('GET', '/orders/o-1');
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe('{"id":"o-1","level":"INFO"}');
      // Its line is JSON as in CloudWatch: the message, the service, the route key and the Lambda context's fields.
      const line = await untilLogged(name, 'order listed');
      expect(line).toMatchObject({ level: 'INFO', message: 'order listed', service: 'orders', orderId: 'o-1', route: '/orders/{id}', function_name: name });
    },
  },
  {
    file: 'npm-powertools-metrics.mjs',
    format: 'aws-v1',
    bundle: true,
    routes: [['POST', '/orders']],
    idiom: 'Powertools metrics: addMetric then publishStoredMetrics, an Embedded Metric Format line in the logs',
    async check(call, name) {
      const res = await call('POST', '/orders', { body: '{}' });
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe('{"recorded":1}');
      const line = await untilLogged(name, '_aws');
      expect(line._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'compat', Metrics: [{ Name: 'ordersPlaced', Unit: 'Count' }] });
      expect(line).toMatchObject({ ordersPlaced: 1, service: 'orders' });
    },
  },
  {
    file: 'npm-powertools-tracer.mjs',
    format: 'aws-v1',
    bundle: true,
    routes: [['GET', '/traced']],
    idiom: 'Powertools tracer: annotations and metadata, tracing off outside X-Ray, the handler unaffected',
    async check(call) {
      const res = await call('GET', '/traced?x=1');
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe('{"traced":false}');
    },
  },
  {
    file: 'npm-express4-serverless-http.js',
    format: 'aws-v1',
    bundle: true,
    routes: [['ANY', '/{proxy+}']],
    idiom: "serverless-http's README with express 4: express.json(), params, query, 404 JSON, res.cookie, 201 with Location",
    async check(call, name) {
      const res = await call('GET', '/users/1?fields=name');
      expect(res.status, res.text).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.text).toBe('{"id":"1","name":"Ada","fields":"name"}');
      const missing = await call('GET', '/users/9');
      expect(missing.status).toBe(404);
      expect(missing.text).toBe('{"error":"User not found"}');
      const made = await call('POST', '/users', { headers: ['Content-Type', 'application/json'], body: '{"name": "Grace"}' });
      expect(made.status, made.text).toBe(201);
      expect(made.headers.location).toBe('/users/2');
      // Path=/ is kept to the API's invoke path, as for every function (docs/security.md).
      expect(made.headers['set-cookie']).toEqual([`last_user=2; HttpOnly; Path=/api/invoke/fn/${apiIds[name]}`]);
      expect(made.text).toBe('{"id":"2","name":"Grace"}');
    },
  },
  {
    file: 'npm-express5-serverless-express.js',
    format: 'aws-v2',
    bundle: true,
    routes: [['ANY', '/{proxy+}']],
    idiom: "@codegenie/serverless-express's README with express 5 on an HTTP API: params, query, a header, a JSON body, a 404 text",
    async check(call) {
      const res = await call('GET', '/pets/rex?sort=asc');
      expect(res.status, res.text).toBe(200);
      expect(res.headers['x-pet']).toBe('rex');
      expect(res.text).toBe('{"name":"rex","sort":"asc"}');
      const made = await call('POST', '/pets', { headers: ['Content-Type', 'application/json'], body: '{"name": "tom"}' });
      expect(made.status, made.text).toBe(201);
      expect(made.text).toBe('{"created":"tom"}');
      const missing = await call('GET', '/nowhere');
      expect(missing.status).toBe(404);
      expect(missing.text).toBe('no such page');
    },
  },
  {
    file: 'npm-claudia-api-builder.js',
    handler: 'index.proxyRouter',
    format: 'aws-v1',
    bundle: true,
    // The resources claudia creates for its routes: it routes by the event's resource.
    routes: [
      ['GET', '/hello'],
      ['GET', '/greet/{name}'],
      ['POST', '/echo'],
    ],
    idiom: "claudia-api-builder's README: module.exports = api, api.get and api.post routes, a custom success code",
    async check(call) {
      const res = await call('GET', '/hello');
      expect(res.status, res.text).toBe(200);
      expect(res.text).toBe('"hello world"');
      const greet = await call('GET', '/greet/ada');
      expect(greet.status).toBe(200);
      expect(greet.json).toEqual({ greeting: 'Hello, ada' });
      const echo = await call('POST', '/echo', { headers: ['Content-Type', 'application/json'], body: '{"a":1}' });
      expect(echo.status).toBe(201);
      expect(echo.json).toEqual({ a: 1 });
    },
  },
  {
    file: 'npm-axios-quote.mjs',
    format: 'aws-v1',
    bundle: true,
    env: () => ({ UPSTREAM: upstream.url }),
    routes: [['GET', '/quotes/{symbol}']],
    idiom: "axios's README: axios.get with params and a timeout, to an upstream API",
    async check(call) {
      const res = await call('GET', '/quotes/ACME');
      expect(res.status, res.text).toBe(200);
      expect(res.json).toEqual({ upstreamStatus: 200, symbol: 'ACME', price: 42 });
      expect(upstream.requests.at(-1)?.url).toBe('/quote?symbol=ACME');
    },
  },
];

const nameOf = (file: string) => file.replace(/\.(m?js|ts)$/, '');

/** A log line of the function's (a JSON line, as on CloudWatch), parsed, once it is listed. */
async function untilLogged(name: string, containing: string): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const res = await svc.request('GET', `/api/functions/${name}/logs?limit=50`);
    for (const log of res.json as Array<{ message: string }>) if (log.message.includes(containing)) return JSON.parse(log.message);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no log line of ${name} with ${containing}`);
}

let svc: RunningService;
const apiIds: Record<string, string> = {};
const answered = new Set<string>();
const notDeployed = new Map<string, Error>();

/** Deploys the handler as a user moving from Lambda would, with its own API of its routes. */
async function deploy(h: Handler): Promise<void> {
  const name = nameOf(h.file);
  const fn = await svc.request('POST', '/api/functions', {
    name,
    code: h.bundle ? (await bundleFunction(join(FIXTURES, h.file), ROOT)).code : readFileSync(join(FIXTURES, h.file), 'utf8'),
    runtime: h.file.endsWith('.ts') ? 'typescript' : 'javascript',
    event_format: h.format,
    ...(h.handler ? { handler: h.handler } : {}),
    ...(h.env ? { env: typeof h.env === 'function' ? h.env() : h.env } : {}),
    ...(h.timeout_ms ? { timeout_ms: h.timeout_ms } : {}),
    ...(h.memory_mb ? { memory_mb: h.memory_mb } : {}),
  });
  if (fn.status !== 201) throw new Error(`${h.file}: deploy answered ${fn.status} ${fn.text.slice(0, 500)}`);
  const api = await svc.request('POST', '/api/apis', {
    name: `compat ${name}`,
    basePath: '/',
    routes: h.routes.map(([method, path]) => ({ method, path, function: name })),
    // The failing idioms are checked by the message they answer, which only an API that exposes errors shows.
    exposeErrors: true,
  });
  if (api.status !== 201) throw new Error(`${h.file}: API answered ${api.status} ${api.text}`);
  apiIds[name] = api.json.id;
}

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  rsa.publicJwk = await exportJWK(publicKey);
  rsa.sign = (claims, issuer, audience) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(issuer).setAudience(audience).setIssuedAt().setExpirationTime('5m').sign(privateKey);
  upstream = await startReceiver((req) => ({
    status: 200,
    body: JSON.stringify({ symbol: new URL(req.url, 'http://x').searchParams.get('symbol'), price: 42 }),
    headers: { 'content-type': 'application/json' },
  }));
  // The upstream listens on loopback, a private address a function may call only where the server allows it.
  svc = await startService({ env: { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
  // A handler that cannot be deployed fails its own test with why, not the whole suite.
  for (const h of HANDLERS) {
    try {
      await deploy(h);
    } catch (err) {
      notDeployed.set(nameOf(h.file), err instanceof Error ? err : new Error(String(err)));
    }
  }
}, 120000);

afterAll(async () => {
  await svc?.stop();
  await upstream?.close();
});

describe('Lambda handlers from public samples, deployed unchanged', () => {
  it('has a fixture file for every handler and a handler for every fixture file', async () => {
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(FIXTURES).sort()).toEqual(HANDLERS.map((h) => h.file).sort());
    expect(HANDLERS.length).toBeGreaterThanOrEqual(30);
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
      const failed = notDeployed.get(name);
      if (failed) throw failed;
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
