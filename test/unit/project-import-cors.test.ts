/**
 * CORS from serverless.yml (`cors` of http events, true and the object form;
 * `provider.httpApi.cors`) and SAM (`Cors` of an Api, `CorsConfiguration` of
 * an HttpApi, and both under Globals): each becomes its API's `cors`, loads
 * as a valid project, and what cannot be carried is reported by name.
 */
import { describe, expect, it } from 'vitest';
import { importSam, importServerless, parseProject } from '../../src/project/index.js';

const HEADERS = ['Content-Type', 'X-Amz-Date', 'Authorization', 'X-Api-Key', 'X-Amz-Security-Token', 'X-Amz-User-Agent', 'X-Amzn-Trace-Id'];

/** The imported file loads: the schema and the credentials rule accept it. */
async function loads(yaml: string): Promise<void> {
  await parseProject(yaml, '/p/switchyard.yaml', { readFile: async () => 'export const handler = () => 1;' });
}

describe('import serverless.yml cors', () => {
  it('http events: cors: true allows any origin, the default headers and the methods, joined per API', async () => {
    const result = importServerless(`
service: shop
provider: { name: aws, runtime: nodejs20.x }
functions:
  list:
    handler: h.list
    events:
      - http: { method: get, path: items, cors: true }
      - http: { method: post, path: items, cors: true }
  admin:
    handler: h.admin
    events:
      - http:
          method: delete
          path: items/{id}
`);
    expect(result.document.apis!.shop.cors).toEqual({ allow_origins: ['*'], allow_methods: ['GET', 'OPTIONS', 'POST'], allow_headers: HEADERS });
    expect(result.notes.join('\n')).toContain('apis.shop.cors: the cors of 2 http events made one policy for the whole API, which its 1 http event without cors share');
    await loads(result.yaml);
  });

  it('http events: the object form, with credentials for listed origins', async () => {
    const result = importServerless(`
service: shop
provider: { name: aws, runtime: nodejs20.x }
functions:
  list:
    handler: h.list
    events:
      - http:
          method: get
          path: items
          cors:
            origins: [https://app.example.com, 'https://*.example.com']
            headers: [Content-Type, X-Trace]
            allowCredentials: true
            maxAge: 86400
            cacheControl: max-age=600
`);
    expect(result.document.apis!.shop.cors).toEqual({
      allow_origins: ['https://app.example.com'],
      allow_methods: ['GET', 'OPTIONS'],
      allow_headers: ['Content-Type', 'X-Trace'],
      max_age: 86400,
      allow_credentials: true,
    });
    const notes = result.notes.join('\n');
    expect(notes).toContain('origins https://*.example.com not carried');
    expect(notes).toContain('cacheControl: not carried');
    await loads(result.yaml);
  });

  it('provider.httpApi.cors: true takes the methods of the routes; the object form its lists', async () => {
    const yes = importServerless(`
service: api
provider: { name: aws, runtime: nodejs20.x, httpApi: { cors: true } }
functions:
  get: { handler: h.get, events: [ { httpApi: 'GET /items' }, { httpApi: 'PUT /items/{id}' } ] }
`);
    expect(yes.document.apis!.api.cors).toEqual({ allow_origins: ['*'], allow_methods: ['GET', 'PUT', 'OPTIONS'], allow_headers: HEADERS });
    await loads(yes.yaml);

    const object = importServerless(`
service: api
provider:
  name: aws
  runtime: nodejs20.x
  httpApi:
    cors:
      allowedOrigins: [https://app.example.com]
      allowedHeaders: [Content-Type]
      allowedMethods: [GET, POST]
      allowCredentials: true
      exposedResponseHeaders: [X-Total]
      maxAge: 600
functions:
  get: { handler: h.get, events: [ { httpApi: 'GET /items' } ] }
`);
    expect(object.document.apis!.api.cors).toEqual({
      allow_origins: ['https://app.example.com'],
      allow_methods: ['GET', 'POST'],
      allow_headers: ['Content-Type'],
      expose_headers: ['X-Total'],
      max_age: 600,
      allow_credentials: true,
    });
    await loads(object.yaml);
  });

  it('reports credentials with the origin * instead of writing what would not load', async () => {
    const result = importServerless(`
service: api
provider: { name: aws, runtime: nodejs20.x, httpApi: { cors: { allowedOrigins: ['*'], allowCredentials: true } } }
functions:
  get: { handler: h.get, events: [ { httpApi: 'GET /items' } ] }
`);
    expect(result.document.apis!.api.cors).not.toHaveProperty('allow_credentials');
    expect(result.notes.join('\n')).toContain('provider.httpApi.cors: allowCredentials with the origin * not carried');
    await loads(result.yaml);
  });
});

describe('import SAM cors', () => {
  it("an Api's Cors (quoted values) and an HttpApi's CorsConfiguration", async () => {
    const result = importSam(`
Resources:
  Rest:
    Type: AWS::Serverless::Api
    Properties:
      StageName: prod
      Cors:
        AllowMethods: "'POST, GET'"
        AllowHeaders: "'X-Forwarded-For'"
        AllowOrigin: "'https://www.example.com'"
        MaxAge: "'600'"
        AllowCredentials: true
  Http:
    Type: AWS::Serverless::HttpApi
    Properties:
      CorsConfiguration:
        AllowOrigins: [https://app.example.com]
        AllowHeaders: [content-type]
        AllowMethods: [GET]
        ExposeHeaders: [x-total]
        MaxAge: 300
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Handler: index.handler
      Events:
        A: { Type: Api, Properties: { RestApiId: !Ref Rest, Path: /a, Method: get } }
        B: { Type: HttpApi, Properties: { ApiId: !Ref Http, Path: /b, Method: get } }
`);
    expect(result.document.apis!.Rest.cors).toEqual({
      allow_origins: ['https://www.example.com'],
      allow_methods: ['POST', 'GET'],
      allow_headers: ['X-Forwarded-For'],
      max_age: 600,
      allow_credentials: true,
    });
    expect(result.document.apis!.Http.cors).toEqual({
      allow_origins: ['https://app.example.com'],
      allow_methods: ['GET'],
      allow_headers: ['content-type'],
      expose_headers: ['x-total'],
      max_age: 300,
    });
    const notes = result.notes.join('\n');
    expect(notes).toContain('Resources.Rest: StageName not carried');
    expect(notes).not.toMatch(/Cors(Configuration)? not carried/);
    await loads(result.yaml);
  });

  it("Globals: Api's Cors as one quoted origin, HttpApi's CorsConfiguration: true", async () => {
    const result = importSam(`
Globals:
  Api:
    Cors: "'https://www.example.com'"
  HttpApi:
    CorsConfiguration: true
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Handler: index.handler
      Events:
        A: { Type: Api, Properties: { Path: /a, Method: get } }
        B: { Type: HttpApi, Properties: { Path: /b, Method: get } }
`);
    expect(result.document.apis!.ServerlessRestApi.cors).toEqual({ allow_origins: ['https://www.example.com'], allow_methods: ['*'] });
    expect(result.document.apis!.ServerlessHttpApi.cors).toEqual({ allow_origins: ['*'], allow_methods: ['*'], allow_headers: ['*'] });
    expect(result.notes.join('\n')).not.toContain('Globals.Api');
    await loads(result.yaml);
  });
});
