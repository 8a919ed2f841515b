/**
 * Lambda handlers over real HTTP against a real server: the `handler` field
 * picks the export at deploy and on every call, a deploy or update naming an
 * export that is not there is a 400 `invalid_code` listing the exports, and
 * callback-style handlers answer through a route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';

let svc: RunningService;
let apiId = '';

beforeAll(async () => {
  svc = await startService();
  // exposeErrors: a callback error is checked by the message it answers.
  const api = await svc.request('POST', '/api/apis', { name: 'lambda-handlers', basePath: '/', routes: [], exposeErrors: true });
  expect(api.status, api.text).toBe(201);
  apiId = api.json.id;
}, 60000);
afterAll(async () => {
  await svc?.stop();
});

async function route(name: string): Promise<void> {
  const res = await svc.request('POST', `/api/apis/${apiId}/routes`, { method: 'GET', path: `/${name}`, function: name });
  expect(res.status, res.text).toBe(201);
}
const get = (name: string) => svc.request('GET', `/api/invoke/fn/${apiId}/${name}`);

const SERVERLESS = `'use strict';
module.exports.endpoint = (event, context, callback) => {
  const response = { statusCode: 200, body: JSON.stringify({ message: 'Hello from ' + context.functionName }) };
  callback(null, response);
};
module.exports.helper = () => 'not the handler';`;

describe('the handler field over HTTP', () => {
  it('calls the export it names, on a route and through the manual invoke', async () => {
    const res = await svc.request('POST', '/api/functions', { name: 'sls-endpoint', code: SERVERLESS, handler: 'handler.endpoint' });
    expect(res.status, res.text).toBe(201);
    expect(res.json.handler).toBe('handler.endpoint');
    await route('sls-endpoint');
    const answer = await get('sls-endpoint');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toEqual({ message: 'Hello from sls-endpoint' });
    const manual = await svc.request('POST', '/api/functions/sls-endpoint/invoke', {});
    expect(manual.json).toMatchObject({ status: 200, error: null });
  });

  it('refuses a deploy whose named export is missing, listing the exports found, and stores nothing', async () => {
    const res = await svc.request('POST', '/api/functions', { name: 'sls-missing', code: SERVERLESS, handler: 'handler.main' });
    expect(res.status, res.text).toBe(400);
    expect(res.json.code).toBe('invalid_code');
    expect(res.json.error).toBe("code: no export named 'main' (handler 'handler.main'); exports found: endpoint, helper");
    expect((await svc.request('GET', '/api/functions/sls-missing')).status).toBe(404);
  });

  it('refuses a deploy with nothing to call, and one with several functions and no handler set', async () => {
    const none = await svc.request('POST', '/api/functions', { name: 'no-callable', code: 'exports.config = { a: 1 };' });
    expect(none.status, none.text).toBe(400);
    expect(none.json.code).toBe('invalid_code');
    expect(none.json.error).toContain('exports found: config');
    const several = await svc.request('POST', '/api/functions', { name: 'several', code: SERVERLESS });
    expect(several.status, several.text).toBe(400);
    expect(several.json.error).toContain('set the handler field');
    expect(several.json.error).toContain('exports found: endpoint, helper');
  });

  it('checks the export again when an update changes the handler, and calls the new one', async () => {
    const code = `export const lambdaHandler = async () => ({ statusCode: 200, body: 'lambdaHandler' });
export const other = async () => ({ statusCode: 200, body: 'other' });`;
    const created = await svc.request('POST', '/api/functions', { name: 'sam-app', code, handler: 'app.lambdaHandler' });
    expect(created.status, created.text).toBe(201);
    await route('sam-app');
    expect((await get('sam-app')).text).toBe('lambdaHandler');

    const missing = await svc.request('PUT', '/api/functions/sam-app', { handler: 'app.gone' });
    expect(missing.status, missing.text).toBe(400);
    expect(missing.json.error).toContain("no export named 'gone'");
    expect(missing.json.error).toContain('exports found: lambdaHandler, other');
    expect((await svc.request('GET', '/api/functions/sam-app')).json).toMatchObject({ version: 1, handler: 'app.lambdaHandler' });

    const switched = await svc.request('PUT', '/api/functions/sam-app', { handler: 'other' });
    expect(switched.status, switched.text).toBe(200);
    expect(switched.json).toMatchObject({ version: 2, handler: 'other' });
    expect((await get('sam-app')).text).toBe('other');
  });

  it('answers a callback error as a 502 function_error with the message', async () => {
    const code = `exports.handler = function (event, context, callback) {
  setTimeout(() => callback(new Error('database unavailable')), 5);
};`;
    expect((await svc.request('POST', '/api/functions', { name: 'cb-error', code })).status).toBe(201);
    await route('cb-error');
    const res = await get('cb-error');
    expect(res.status, res.text).toBe(502);
    expect(res.json.code).toBe('function_error');
    expect(res.json.error).toContain('Error: database unavailable');
  });
});
