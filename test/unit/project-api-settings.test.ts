/**
 * An API's minimumCompressionSize and binaryMediaTypes in switchyard.yaml
 * (`minimum_compression_size`, `binary_media_types`): loaded, planned,
 * applied, exported and applied back as nothing to do; imported from
 * serverless.yml (`provider.apiGateway`) and SAM (`AWS::Serverless::Api`,
 * `Globals.Api`); beside the API's `cors`.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { applyPlan, exportProject, importSam, importServerless, parseProject, planProject, readServerState } from '../../src/project/index.js';
import { FakeProjectApi } from '../helpers/project-fake.js';

const FILE = `
version: 1
functions:
  hello: { file: hello.js, event_format: aws-v1 }
apis:
  site:
    base_path: /
    minimum_compression_size: 1024
    binary_media_types: [image/*, application/pdf]
    routes: [{ method: GET, path: /, function: hello }]
`;

const load = (text: string) =>
  parseProject(text, '/p/switchyard.yaml', { readFile: async () => 'export const handler = async () => ({ statusCode: 200 });' });

describe('switchyard.yaml', () => {
  it('applies both settings, exports them and plans nothing on the way back', async () => {
    const api = new FakeProjectApi();
    const { project } = await load(FILE);
    expect(project.apis[0]).toMatchObject({ minimum_compression_size: 1024, binary_media_types: ['image/*', 'application/pdf'] });
    await applyPlan(planProject(project, await readServerState(api, project)), api);
    expect(api.apis[0]).toMatchObject({ minimumCompressionSize: 1024, binaryMediaTypes: ['image/*', 'application/pdf'] });

    const exported = await exportProject(api);
    const doc = parseYaml(exported.files['switchyard.yaml']) as { apis: Record<string, Record<string, unknown>> };
    expect(doc.apis.site).toMatchObject({ minimum_compression_size: 1024, binary_media_types: ['image/*', 'application/pdf'] });
    const back = await parseProject(exported.files['switchyard.yaml'], '/x/switchyard.yaml', {
      readFile: async (p) => exported.files[p.replace('/x/', '')],
    });
    expect(planProject(back.project, await readServerState(api, back.project)).changes).toEqual([]);
  });

  it('plans a changed or removed setting as an update of the API, and resets it on apply', async () => {
    const api = new FakeProjectApi();
    const first = await load(FILE);
    await applyPlan(planProject(first.project, await readServerState(api, first.project)), api);
    const { project } = await load(FILE.replace('minimum_compression_size: 1024', 'minimum_compression_size: 0').replace(/    binary_media_types: .*\n/, ''));
    const plan = planProject(project, await readServerState(api, project));
    expect(plan.changes).toEqual([{ action: 'update', kind: 'api', name: 'site', fields: ['minimum_compression_size', 'binary_media_types'] }]);
    await applyPlan(plan, api);
    expect(api.apis[0]).toMatchObject({ minimumCompressionSize: 0, binaryMediaTypes: null });
    // An API without either exports neither key.
    await applyPlan(planProject((await load(FILE.replace(/    (minimum_compression_size|binary_media_types): .*\n/g, ''))).project, await readServerState(api, project)), api);
    const doc = parseYaml((await exportProject(api)).files['switchyard.yaml']) as { apis: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.apis.site)).toEqual(['base_path', 'routes']);
  });

  it('keeps cors beside both settings: applied, exported, and a change of one planned alone', async () => {
    const api = new FakeProjectApi();
    const withCors = FILE.replace('    routes:', '    cors: { allow_origins: [https://app.example.com], allow_methods: [get] }\n    routes:');
    const { project } = await load(withCors);
    await applyPlan(planProject(project, await readServerState(api, project)), api);
    expect(api.apis[0]).toMatchObject({
      minimumCompressionSize: 1024,
      binaryMediaTypes: ['image/*', 'application/pdf'],
      cors: { allowOrigins: ['https://app.example.com'], allowMethods: ['GET'] },
    });
    const exported = await exportProject(api);
    const doc = parseYaml(exported.files['switchyard.yaml']) as { apis: Record<string, Record<string, unknown>> };
    expect(doc.apis.site).toMatchObject({ minimum_compression_size: 1024, cors: { allow_origins: ['https://app.example.com'] } });
    const back = await parseProject(exported.files['switchyard.yaml'], '/x/switchyard.yaml', {
      readFile: async (p) => exported.files[p.replace('/x/', '')],
    });
    expect(planProject(back.project, await readServerState(api, back.project)).changes).toEqual([]);

    const changed = (await load(withCors.replace('minimum_compression_size: 1024', 'minimum_compression_size: 2048'))).project;
    const plan = planProject(changed, await readServerState(api, changed));
    expect(plan.changes).toEqual([{ action: 'update', kind: 'api', name: 'site', fields: ['minimum_compression_size'] }]);
    await applyPlan(plan, api);
    expect(api.apis[0]).toMatchObject({ minimumCompressionSize: 2048, cors: { allowOrigins: ['https://app.example.com'] } });
    const noCors = (await load(FILE)).project;
    const plan2 = planProject(noCors, await readServerState(api, noCors));
    expect(plan2.changes).toEqual([{ action: 'update', kind: 'api', name: 'site', fields: ['cors', 'minimum_compression_size'] }]);
    await applyPlan(plan2, api);
    expect(api.apis[0]).toMatchObject({ minimumCompressionSize: 1024, binaryMediaTypes: ['image/*', 'application/pdf'], cors: null });
  });

  it('refuses values the API would refuse, naming the key', async () => {
    for (const [line, key] of [
      ['minimum_compression_size: -1', 'minimum_compression_size'],
      ['minimum_compression_size: 10485761', 'minimum_compression_size'],
      ['binary_media_types: [png]', 'binary_media_types'],
    ]) {
      await expect(load(FILE.replace(new RegExp(`${key}: .*`), line))).rejects.toThrow(key);
    }
  });
});

describe('import', () => {
  it("serverless.yml: provider.apiGateway's binaryMediaTypes and minimumCompressionSize on the REST API", () => {
    const result = importServerless(`
service: media
provider:
  name: aws
  runtime: nodejs20.x
  apiGateway:
    binaryMediaTypes: ['image/png', '*/*']
    minimumCompressionSize: 1024
functions:
  thumb:
    handler: thumb.handler
    events:
      - http: GET /thumb
      - httpApi: GET /meta
`);
    expect(result.document.apis!['media-rest']).toMatchObject({ minimum_compression_size: 1024, binary_media_types: ['image/png', '*/*'] });
    expect(result.document.apis!['media-http']).not.toHaveProperty('binary_media_types');
    expect(result.yaml).toContain('binary_media_types');
  });

  it("SAM: an Api's BinaryMediaTypes (~1 read as /) and MinimumCompressionSize, Globals.Api for the implicit one; bad values listed", () => {
    const result = importSam(`
Globals:
  Api:
    BinaryMediaTypes: ['image~1jpeg']
    Cors: "'*'"
    TracingEnabled: true
Resources:
  Media:
    Type: AWS::Serverless::Api
    Properties:
      StageName: prod
      BinaryMediaTypes: ['image~1png', 'application~1octet-stream', 'nonsense']
      MinimumCompressionSize: 2048
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Handler: index.handler
      Events:
        Img: { Type: Api, Properties: { RestApiId: !Ref Media, Path: /img, Method: get } }
        Other: { Type: Api, Properties: { Path: /other, Method: get } }
`);
    expect(result.document.apis!.Media).toMatchObject({ minimum_compression_size: 2048, binary_media_types: ['image/png', 'application/octet-stream'] });
    expect(result.document.apis!.ServerlessRestApi).toMatchObject({ binary_media_types: ['image/jpeg'] });
    expect(result.notes.join('\n')).toContain('nonsense');
    // Since CORS (issue 23 item 1), Globals.Api.Cors is carried beside these; what else Globals.Api sets is listed.
    expect(result.document.apis!.ServerlessRestApi).toMatchObject({ cors: { allow_origins: ['*'] } });
    expect(result.notes.join('\n')).toContain('Globals.Api: TracingEnabled not carried');
    expect(result.notes.join('\n')).not.toContain('BinaryMediaTypes');
  });
});
