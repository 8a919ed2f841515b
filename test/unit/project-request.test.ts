/**
 * A route's request model in switchyard.yaml (`request: {body, querystrings,
 * headers}`): loaded (a schema the gateway cannot compile is a problem at its
 * key), planned as an update of the route, applied, exported and applied
 * back as nothing to do; imported from serverless.yml (`http.request`) and
 * SAM (`RequestModel` with the Api's `Models`, `RequestParameters`), what is
 * not carried listed by name.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { applyPlan, exportProject, importSam, importServerless, parseProject, planProject, readServerState } from '../../src/project/index.js';
import { FakeProjectApi } from '../helpers/project-fake.js';

const FILE = `
version: 1
functions:
  pets: { file: pets.js }
apis:
  shop:
    base_path: /
    routes:
      - method: POST
        path: /pets
        function: pets
        request:
          body:
            type: object
            properties: { name: { type: string }, price: { type: number, minimum: 0 } }
            required: [name]
          headers: { X-Tenant: true }
      - { method: GET, path: /pets, function: pets, request: { querystrings: { limit: true, page: false } } }
      - { method: GET, path: /health, function: pets }
`;

const load = (text: string) => parseProject(text, '/p/switchyard.yaml', { readFile: async () => 'export const handler = async () => ({ statusCode: 200 });' });

describe('switchyard.yaml', () => {
  it('applies each route its model, exports it and plans nothing on the way back', async () => {
    const api = new FakeProjectApi();
    const { project } = await load(FILE);
    expect(project.apis[0].routes[0].request).toEqual({
      body: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number', minimum: 0 } }, required: ['name'] },
      headers: { 'X-Tenant': true },
    });
    await applyPlan(planProject(project, await readServerState(api, project)), api);
    const routes = api.apis[0].routes;
    expect(routes.find((r) => r.method === 'GET' && r.path === '/pets')?.request).toEqual({ querystrings: { limit: true, page: false } });
    expect(routes.find((r) => r.path === '/health')).not.toHaveProperty('request');

    const exported = await exportProject(api);
    const doc = parseYaml(exported.files['switchyard.yaml']) as { apis: Record<string, { routes: Array<Record<string, unknown>> }> };
    expect(doc.apis.shop.routes.find((r) => r.method === 'POST')?.request).toMatchObject({ headers: { 'X-Tenant': true } });
    const back = await parseProject(exported.files['switchyard.yaml'], '/x/switchyard.yaml', { readFile: async (p) => exported.files[p.replace('/x/', '')] });
    expect(planProject(back.project, await readServerState(api, back.project)).changes).toEqual([]);
  });

  it('plans a changed or removed model as an update of the route, and applies it', async () => {
    const api = new FakeProjectApi();
    const first = await load(FILE);
    await applyPlan(planProject(first.project, await readServerState(api, first.project)), api);
    const { project } = await load(FILE.replace('limit: true', 'limit: false').replace('          headers: { X-Tenant: true }\n', ''));
    const plan = planProject(project, await readServerState(api, project));
    expect(plan.changes.map((c) => [c.action, c.kind, c.name, c.fields])).toEqual([
      ['update', 'route', 'POST /pets', ['request']],
      ['update', 'route', 'GET /pets', ['request']],
    ]);
    await applyPlan(plan, api);
    expect(api.apis[0].routes.find((r) => r.method === 'GET' && r.path === '/pets')?.request).toEqual({ querystrings: { limit: false, page: false } });
    expect(api.apis[0].routes.find((r) => r.method === 'POST')?.request).not.toHaveProperty('headers');
  });

  it('keeps the model of a route the file does not name when it writes the API', async () => {
    const api = new FakeProjectApi();
    const first = await load(FILE);
    await applyPlan(planProject(first.project, await readServerState(api, first.project)), api);
    // The file drops GET /pets (no prune) and changes another route: the kept route keeps its model.
    const { project } = await load(FILE.replace(/      - \{ method: GET, path: \/pets.*\n/, '').replace('/health', '/healthz'));
    await applyPlan(planProject(project, await readServerState(api, project)), api);
    expect(api.apis[0].routes.find((r) => r.method === 'GET' && r.path === '/pets')?.request).toEqual({ querystrings: { limit: true, page: false } });
  });

  it.each([
    ['type: object\n', 'type: objekt\n', 'apis.shop.routes[0].request.body', /must be equal to one of the allowed values/],
    ['required: [name]', "required: [name]\n            $ref: 'https://schemas.example.com/pet.json'", 'apis.shop.routes[0].request.body', /nothing is fetched/],
    ['X-Tenant: true', 'X-Tenant: yes please', 'apis.shop.routes[0].request.headers.X-Tenant', /boolean/],
    ['limit: true', 'limit: true, page: false }, body_schema: { type: object', 'apis.shop.routes[1].request.body_schema', /./],
  ])('refuses a model the server would refuse, naming its key (%#)', async (from, to, path, message) => {
    const err = await load(FILE.replace(from, to)).then(
      () => null,
      (e: { problems: Array<{ path: string; message: string }> }) => e,
    );
    expect(err?.problems).toEqual(expect.arrayContaining([expect.objectContaining({ path, message: expect.stringMatching(message) })]));
  });
});

describe('import', () => {
  it('serverless.yml: http.request schemas (inline, {schema, name}, a provider model by name) and parameters; the rest listed', () => {
    const result = importServerless(`
service: shop
provider:
  name: aws
  runtime: nodejs20.x
  apiGateway:
    request:
      schemas:
        pet-model:
          name: PetModel
          schema: { type: object, required: [name], properties: { name: { type: string } } }
functions:
  pets:
    handler: pets.handler
    events:
      - http:
          method: post
          path: /pets
          request:
            schemas:
              application/json:
                name: CreatePet
                description: A pet to create
                schema:
                  $schema: http://json-schema.org/draft-04/schema#
                  type: object
                  properties: { price: { type: number, minimum: 0, exclusiveMinimum: true } }
                  required: [price]
              application/xml: { type: object }
            parameters:
              querystrings: { dryRun: false }
              headers: { X-Tenant: true, X-Trace: { required: true, mappedValue: context.requestId } }
              paths: { id: true }
            passThrough: NEVER
      - http:
          method: put
          path: /pets/{id}
          request:
            schemas: { application/json: pet-model }
      - http:
          method: patch
          path: /pets/{id}
          request:
            schemas:
              application/json: \${file(pet.json)}
`);
    const routes = result.document.apis!.shop.routes!;
    expect(routes[0].request).toEqual({
      body: {
        $schema: 'http://json-schema.org/draft-04/schema#',
        type: 'object',
        properties: { price: { type: 'number', minimum: 0, exclusiveMinimum: true } },
        required: ['price'],
      },
      querystrings: { dryRun: false },
      headers: { 'X-Tenant': true, 'X-Trace': true },
    });
    // A model without $schema is API Gateway's draft-04.
    expect(routes[1].request).toEqual({
      body: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    });
    expect(routes[2]).not.toHaveProperty('request');
    const notes = result.notes.join('\n');
    expect(notes).toContain('http.request: passThrough not carried');
    expect(notes).toContain('application/xml: not carried');
    expect(notes).toContain('parameters: paths not carried');
    expect(notes).toContain('X-Trace: mappedValue not carried');
    expect(notes).toMatch(/application\/json: .*cannot be read here; not carried/);
    expect(result.yaml).toContain('request:');
  });

  it('serverless.yml: a schema the gateway cannot take is listed, not carried', () => {
    const result = importServerless(`
service: shop
provider: { name: aws, runtime: nodejs20.x }
functions:
  pets:
    handler: pets.handler
    events:
      - http: { method: post, path: /pets, request: { schemas: { application/json: { type: object, properties: { a: { $ref: 'https://example.com/a.json' } } } } } }
`);
    expect(result.document.apis!.shop.routes![0]).not.toHaveProperty('request');
    expect(result.notes.join('\n')).toMatch(/http\.request: the request model is not carried \(body .*nothing is fetched\)/);
  });

  it("SAM: RequestModel resolved in the Api's Models as ValidateBody says, RequestParameters as ValidateParameters says; the rest listed", () => {
    const result = importSam(`
Resources:
  ShopApi:
    Type: AWS::Serverless::Api
    Properties:
      StageName: prod
      Models:
        Pet:
          type: object
          required: [name]
          properties: { name: { type: string }, age: { type: integer, minimum: 0 } }
  PetsFn:
    Type: AWS::Serverless::Function
    Properties:
      Handler: pets.handler
      Runtime: nodejs20.x
      Events:
        Create:
          Type: Api
          Properties:
            RestApiId: !Ref ShopApi
            Path: /pets
            Method: post
            RequestModel: { Model: Pet, Required: true, ValidateBody: true, ValidateParameters: true }
            RequestParameters:
              - method.request.header.X-Tenant: { Required: true, Caching: false }
              - method.request.querystring.dryRun
              - method.request.path.id
        List:
          Type: Api
          Properties:
            RestApiId: !Ref ShopApi
            Path: /pets
            Method: get
            RequestModel: { Model: Pet }
            RequestParameters: [{ method.request.querystring.limit: { Required: true } }]
        Missing:
          Type: Api
          Properties:
            RestApiId: !Ref ShopApi
            Path: /other
            Method: post
            RequestModel: { Model: Nope, ValidateBody: true }
`);
    const routes = result.document.apis!.ShopApi.routes!;
    expect(routes.find((r) => r.method === 'POST' && r.path === '/pets')?.request).toEqual({
      body: {
        $schema: 'http://json-schema.org/draft-04/schema#',
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
      },
      headers: { 'X-Tenant': true },
      querystrings: { dryRun: false },
    });
    expect(routes.find((r) => r.method === 'GET')?.request).toEqual({ querystrings: { limit: false } });
    expect(routes.find((r) => r.path === '/other')).not.toHaveProperty('request');
    const notes = result.notes.join('\n');
    expect(notes).toContain('Events.List.Properties.RequestModel: Model Pet is not carried: API Gateway validates the body with it only under ValidateBody: true');
    expect(notes).toContain('method.request.querystring.limit is kept as not required');
    expect(notes).toContain('method.request.path.id not carried');
    expect(notes).toContain('Caching not carried');
    expect(notes).toContain('Model Nope is not in the Api');
    expect(notes).not.toMatch(/ShopApi: .*Models/);
  });
});
