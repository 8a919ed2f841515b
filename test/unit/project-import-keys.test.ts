/**
 * API keys, usage plans and throttles imported from serverless.yml and SAM
 * templates: `private: true` and SAM's `Auth.ApiKeyRequired` as a route's
 * `api_key_required`; usage plans (serverless.yml's `usagePlan`, SAM's
 * `Auth.UsagePlan`) as `usage_plans`; a stage's default throttle as each
 * route's throttle. Keys are never carried, their names are listed, and so
 * is every setting that is not carried (a quota's offset). Each imported
 * project loads.
 */
import { describe, expect, it } from 'vitest';
import { importSam, importServerless, parseProject } from '../../src/project/index.js';
import type { ImportResult } from '../../src/project/index.js';

/** The imported file loads as a project (its schema and references hold). */
async function loads(result: ImportResult) {
  return parseProject(result.yaml, '/p/switchyard.yaml', { readFile: async () => 'export const handler = async () => ({ statusCode: 200 });' });
}

describe('serverless.yml', () => {
  it('private: true, provider.apiGateway.apiKeys and one usagePlan', async () => {
    const result = importServerless(`
service: catalog
provider:
  name: aws
  runtime: nodejs20.x
  apiGateway:
    apiKeys:
      - partnerOne
      - name: partnerTwo
        value: \${env:PARTNER_TWO_KEY}
    usagePlan:
      quota:
        limit: 5000
        offset: 2
        period: MONTH
      throttle:
        burstLimit: 200
        rateLimit: 100
functions:
  products:
    handler: handler.products
    events:
      - http:
          path: products
          method: get
          private: true
      - http:
          path: health
          method: get
`);
    const routes = result.document.apis!.catalog.routes!;
    expect(routes).toEqual([
      { method: 'GET', path: '/products', function: 'products', api_key_required: true },
      { method: 'GET', path: '/health', function: 'products' },
    ]);
    expect(result.document.usage_plans).toEqual({
      catalog: { apis: ['catalog'], throttle: { rate_limit: 100, burst_limit: 200 }, quota: { limit: 5000, period: 'MONTH' } },
    });
    const notes = result.notes.join('\n');
    expect(notes).toContain('provider.apiGateway.usagePlan.quota.offset: 2 not carried');
    expect(notes).toMatch(/provider\.apiGateway\.apiKeys: partnerOne, partnerTwo not carried \(keys are secrets/);
    // A key's value is never carried, nor is the variable it reads asked for.
    expect(result.yaml).not.toContain('PARTNER_TWO_KEY');
    expect(result.reads).toEqual([]);
    expect((await loads(result)).project.usage_plans).toHaveLength(1);
  });

  it('a list of named usage plans with keys grouped by plan; other apiGateway keys listed', async () => {
    const result = importServerless(`
service: catalog
provider:
  name: aws
  apiGateway:
    apiKeySourceType: HEADER
    apiKeys:
      - free:
          - freeClient
      - paid:
          - name: paidClient
    usagePlan:
      - free:
          quota: { limit: 100, period: DAY }
          throttle: { rateLimit: 1 }
      - paid:
          quota: { limit: 100000, period: MONTH }
          throttle: { burstLimit: 500, rateLimit: 250 }
functions:
  products:
    handler: handler.products
    events:
      - http: { path: products, method: get, private: true }
`);
    expect(result.document.usage_plans).toEqual({
      free: { apis: ['catalog'], throttle: { rate_limit: 1, burst_limit: 1 }, quota: { limit: 100, period: 'DAY' } },
      paid: { apis: ['catalog'], throttle: { rate_limit: 250, burst_limit: 500 }, quota: { limit: 100000, period: 'MONTH' } },
    });
    const notes = result.notes.join('\n');
    expect(notes).toContain('provider.apiGateway.usagePlan[0].free.throttle: no burstLimit; the burst is the rate, 1');
    expect(notes).toContain('freeClient (usage plan free), paidClient (usage plan paid) not carried');
    expect(notes).toContain('provider.apiGateway: apiKeySourceType not carried');
    await loads(result);
  });
});

describe('SAM', () => {
  it('Auth.ApiKeyRequired of the Api and of an event, Auth.UsagePlan PER_API, the stage throttle of MethodSettings', async () => {
    const result = importSam(`
AWSTemplateFormatVersion: '2010-09-09'
Transform: AWS::Serverless-2016-10-31
Resources:
  OrdersApi:
    Type: AWS::Serverless::Api
    Properties:
      StageName: Prod
      MethodSettings:
        - ResourcePath: '/*'
          HttpMethod: '*'
          ThrottlingRateLimit: 50
          ThrottlingBurstLimit: 100
        - ResourcePath: '/orders'
          HttpMethod: POST
          ThrottlingRateLimit: 5
      Auth:
        ApiKeyRequired: true
        UsagePlan:
          CreateUsagePlan: PER_API
          Description: Orders partners
          Quota:
            Limit: 1000
            Period: DAY
          Throttle:
            BurstLimit: 20
            RateLimit: 10
  OrdersFunction:
    Type: AWS::Serverless::Function
    Properties:
      Handler: app.handler
      Runtime: nodejs20.x
      Events:
        ListOrders:
          Type: Api
          Properties:
            RestApiId: !Ref OrdersApi
            Path: /orders
            Method: get
        Health:
          Type: Api
          Properties:
            RestApiId: !Ref OrdersApi
            Path: /health
            Method: get
            Auth:
              ApiKeyRequired: false
`);
    expect(result.document.apis!.OrdersApi.routes).toEqual([
      { method: 'GET', path: '/orders', function: 'OrdersFunction', api_key_required: true, throttle: { rate_limit: 50, burst_limit: 100 } },
      { method: 'GET', path: '/health', function: 'OrdersFunction', throttle: { rate_limit: 50, burst_limit: 100 } },
    ]);
    expect(result.document.usage_plans).toEqual({
      OrdersApiUsagePlan: { apis: ['OrdersApi'], throttle: { rate_limit: 10, burst_limit: 20 }, quota: { limit: 1000, period: 'DAY' } },
    });
    const notes = result.notes.join('\n');
    expect(notes).toContain("Resources.OrdersApi.Properties.Auth.UsagePlan: SAM's API key for the plan is not carried");
    expect(notes).toContain('Resources.OrdersApi.Properties.MethodSettings[1]: the throttle of POST /orders is not carried');
    expect(notes).not.toMatch(/Resources\.OrdersApi: .*(Auth|MethodSettings)/);
    await loads(result);
  });

  it('SHARED plans across APIs and Globals.Api.Auth; NONE opts out; an HttpApi takes DefaultRouteSettings', async () => {
    const result = importSam(`
Transform: AWS::Serverless-2016-10-31
Globals:
  Api:
    Auth:
      ApiKeyRequired: true
      UsagePlan:
        CreateUsagePlan: SHARED
        Quota: { Limit: 500, Period: WEEK, Offset: 0 }
Resources:
  PublicApi:
    Type: AWS::Serverless::Api
    Properties:
      StageName: v1
  InternalApi:
    Type: AWS::Serverless::Api
    Properties:
      StageName: v1
      Auth:
        ApiKeyRequired: false
        UsagePlan:
          CreateUsagePlan: NONE
  EventsApi:
    Type: AWS::Serverless::HttpApi
    Properties:
      DefaultRouteSettings:
        ThrottlingBurstLimit: 30
        ThrottlingRateLimit: 15
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Handler: index.handler
      Events:
        A: { Type: Api, Properties: { RestApiId: !Ref PublicApi, Path: /a, Method: get } }
        B: { Type: Api, Properties: { Path: /b, Method: get } }
        C: { Type: Api, Properties: { RestApiId: !Ref InternalApi, Path: /c, Method: get } }
        D: { Type: HttpApi, Properties: { ApiId: !Ref EventsApi, Path: /d, Method: get } }
`);
    const apis = result.document.apis!;
    expect(apis.PublicApi.routes![0]).toMatchObject({ api_key_required: true });
    expect(apis.ServerlessRestApi.routes![0]).toMatchObject({ api_key_required: true });
    expect(apis.InternalApi.routes![0]).not.toHaveProperty('api_key_required');
    expect(apis.EventsApi.routes![0]).toMatchObject({ throttle: { rate_limit: 15, burst_limit: 30 } });
    expect(result.document.usage_plans).toEqual({
      ServerlessUsagePlan: { apis: ['PublicApi', 'ServerlessRestApi'], quota: { limit: 500, period: 'WEEK' } },
    });
    await loads(result);
  });
});
