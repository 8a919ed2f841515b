/**
 * Imported authorizers hold on a running server: a serverless.yml whose
 * `http` event names a TOKEN authorizer function of the service (written as
 * AWS's blueprint writes one), and a SAM template whose HttpApi has a
 * payload 2.0 Lambda authorizer with simple responses as its default and an
 * open health route (`Authorizer: NONE`). Each is imported, applied over
 * HTTP, and its routes refuse and admit as API Gateway's would; a second
 * plan is empty.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan, createHttpProjectApi, importSam, importServerless, loadProject, planProject, readServerState, type ProjectApi } from '../../src/project/index.js';
import { startService, type RunningService } from '../helpers/service.js';

let svc: RunningService;
let api: ProjectApi;
beforeAll(async () => {
  svc = await startService();
  api = createHttpProjectApi({ baseUrl: svc.url });
});
afterAll(async () => {
  await svc?.stop();
});

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-import-auth-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

async function planOf(dir: string) {
  const { project } = await loadProject(join(dir, 'switchyard.yaml'), { env: {}, envFrom: [] });
  return planProject(project, await readServerState(api, project));
}

async function call(apiName: string, path: string, headers: Record<string, string> = {}) {
  const found = (await api.listApis()).find((a) => a.name === apiName)!;
  const res = await fetch(`${found.invokeUrl}${path}`, { headers });
  return { status: res.status, text: await res.text() };
}

describe('imported authorizers on a running server', () => {
  it('serverless.yml: an http event behind a TOKEN authorizer function of the service', async () => {
    const dir = folder({
      'serverless.yml': `
service: notes
provider: { name: aws, runtime: nodejs20.x }
functions:
  list:
    handler: handler.list
    events:
      - http:
          path: notes
          method: get
          authorizer: auth
  auth:
    handler: auth.handler
`,
      'handler.js': `module.exports.list = async (event) => ({ statusCode: 200, body: JSON.stringify({ user: event.requestContext.authorizer.principalId }) });`,
      'auth.js': `
module.exports.handler = function (event, context, callback) {
  if (event.authorizationToken === 'allow') callback(null, generatePolicy('user-7', 'Allow', event.methodArn));
  else if (event.authorizationToken === 'deny') callback(null, generatePolicy('user-7', 'Deny', event.methodArn));
  else callback('Unauthorized');
};
function generatePolicy(principalId, effect, resource) {
  return { principalId: principalId, policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }] } };
}`,
    });
    const imported = importServerless(readFileSync(join(dir, 'serverless.yml'), 'utf8'), { exists: (p) => existsSync(join(dir, p)) });
    expect(imported.notes).toEqual([]);
    writeFileSync(join(dir, 'switchyard.yaml'), imported.yaml);
    await applyPlan(await planOf(dir), api);

    expect((await call('notes', '/notes')).status).toBe(401);
    expect((await call('notes', '/notes', { authorization: 'deny' })).status).toBe(403);
    const allowed = await call('notes', '/notes', { authorization: 'allow' });
    expect(allowed.status, allowed.text).toBe(200);
    expect(JSON.parse(allowed.text)).toEqual({ user: 'user-7' });
    expect((await planOf(dir)).changes).toEqual([]);
  });

  it('SAM: an HttpApi whose default is a simple-response Lambda authorizer, and an open health route', async () => {
    const dir = folder({
      'template.yaml': `
Transform: AWS::Serverless-2016-10-31
Resources:
  ShopApi:
    Type: AWS::Serverless::HttpApi
    Properties:
      Auth:
        DefaultAuthorizer: KeyAuthorizer
        Authorizers:
          KeyAuthorizer:
            FunctionArn: !GetAtt KeyAuthFunction.Arn
            AuthorizerPayloadFormatVersion: 2.0
            EnableSimpleResponses: true
            Identity:
              Headers: [x-shop-key]
  OrdersFunction:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: src/
      Handler: orders.handler
      Runtime: nodejs20.x
      Events:
        List:
          Type: HttpApi
          Properties: { ApiId: !Ref ShopApi, Path: /orders, Method: GET }
        Health:
          Type: HttpApi
          Properties: { ApiId: !Ref ShopApi, Path: /health, Method: GET, Auth: { Authorizer: NONE } }
  KeyAuthFunction:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: src/
      Handler: key-auth.handler
      Runtime: nodejs20.x
`,
      'src/orders.mjs': `export const handler = async (event) => ({ statusCode: 200, body: JSON.stringify({ shop: event.requestContext.authorizer?.lambda?.shop ?? null }) });`,
      'src/key-auth.mjs': `export const handler = async (event) => ({ isAuthorized: event.headers['x-shop-key'] === 'k-1', context: { shop: 'north' } });`,
    });
    const imported = importSam(readFileSync(join(dir, 'template.yaml'), 'utf8'), { exists: (p) => existsSync(join(dir, p)) });
    expect(imported.notes).toEqual([]);
    writeFileSync(join(dir, 'switchyard.yaml'), imported.yaml);
    await applyPlan(await planOf(dir), api);

    expect((await call('ShopApi', '/orders')).status).toBe(401);
    expect((await call('ShopApi', '/orders', { 'x-shop-key': 'wrong' })).status).toBe(403);
    const allowed = await call('ShopApi', '/orders', { 'x-shop-key': 'k-1' });
    expect(allowed.status, allowed.text).toBe(200);
    expect(JSON.parse(allowed.text)).toEqual({ shop: 'north' });
    const health = await call('ShopApi', '/health');
    expect(health.status, health.text).toBe(200);
    expect((await planOf(dir)).changes).toEqual([]);
  });
});
