/**
 * The import's second round: names prefixed by the project (references
 * following), function URLs and quick-create HTTP APIs as APIs, every
 * property and resource not carried named, the old `service: {name}` form,
 * and handler files that are not there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSam, importServerless, notCarriedNames, parseProject, prefixed, projectPrefix } from '../../src/project/index.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

function fixture(path: string, options: { prefixNames?: boolean; project?: string } = {}) {
  const file = join(FIXTURES, path);
  const dir = join(file, '..');
  const text = readFileSync(file, 'utf8');
  const exists = (p: string) => existsSync(join(dir, p));
  return path.endsWith('.yml') ? importServerless(text, { exists, ...options }) : importSam(text, { exists, ...options });
}

/** The functions of an imported file once loaded (any reference to a name it lacks fails the load). */
async function loads(yaml: string): Promise<number> {
  const { project } = await parseProject(yaml, '/x/switchyard.yaml', { readFile: async () => 'exports.handler = async () => ({});' });
  return project.functions.length;
}

describe('names prefixed by the project', () => {
  it('a sam init project: function and API start with the stack name; the route follows', async () => {
    const result = fixture('sam-init/sam-app/template.yaml', { prefixNames: true, project: 'sam-app' });
    expect(result.project).toBe('sam-app');
    expect(Object.keys(result.document.functions!)).toEqual(['sam-app-HelloWorldFunction']);
    expect(result.document.apis).toEqual({
      'sam-app-ServerlessRestApi': { base_path: '/', error_format: 'aws', routes: [{ method: 'GET', path: '/hello', function: 'sam-app-HelloWorldFunction' }] },
    });
    // The file loads: every reference names a function of it.
    await expect(loads(result.yaml)).resolves.toBeGreaterThan(0);
  });

  it('bare names when not asked, and the same template under two projects gives two sets of names', () => {
    expect(Object.keys(fixture('sam-init/sam-app/template.yaml').document.functions!)).toEqual(['HelloWorldFunction']);
    const a = fixture('sam-init/sam-app/template.yaml', { prefixNames: true, project: 'sam-app' });
    const b = fixture('sam-init/orders-app/template.yaml', { prefixNames: true, project: 'orders-app' });
    const names = (r: typeof a) => [...Object.keys(r.document.functions!), ...Object.keys(r.document.apis!)];
    expect(names(a).filter((n) => names(b).includes(n))).toEqual([]);
  });

  it('serverless.yml: functions take the service name; the APIs, already named by it, are not prefixed twice; destinations and authorizers follow', async () => {
    const result = importServerless(
      `service: shop
provider: { name: aws, httpApi: { authorizers: { gate: { type: request, functionName: auth } } } }
functions:
  auth: { handler: auth.handler }
  buy:
    handler: buy.handler
    destinations: { onFailure: audit }
    events: [{ httpApi: { method: post, path: /buy, authorizer: { name: gate } } }]
  audit: { handler: audit.handler }
`,
      { prefixNames: true },
    );
    expect(Object.keys(result.document.functions!).sort()).toEqual(['shop-audit', 'shop-auth', 'shop-buy']);
    expect(result.document.functions!['shop-buy'].async).toEqual({ on_failure: { function: 'shop-audit' } });
    const api = result.document.apis!.shop;
    expect(api.routes![0]).toMatchObject({ function: 'shop-buy', authorizer: 'gate' });
    expect(api.authorizers![0]).toMatchObject({ type: 'function', function: 'shop-auth' });
    await expect(loads(result.yaml)).resolves.toBe(3);
  });

  it('keeps every name within the 64 characters of a function name, shortening the prefix, not the name', () => {
    const long = 'F'.repeat(60);
    expect(prefixed('my-project', long)).toBe(`my-${long}`);
    expect(prefixed('my-project', 'hello')).toBe('my-project-hello');
    expect(prefixed('shop', 'shop-rest')).toBe('shop-rest');
    expect(projectPrefix('2024 app.v2')).toBe('app-2024-app-v2');
    expect(projectPrefix('...')).toBeNull();
  });
});

describe('function URLs and quick-create HTTP APIs', () => {
  it('serverless.yml url: true and url: {cors}: an aws-v2 API of its own with ANY / and ANY /{proxy+}; the old service.name form names the service', () => {
    const result = fixture('serverless/function-url/serverless.yml', { prefixNames: true });
    expect(result.project).toBe('url-service');
    const apis = result.document.apis!;
    expect(Object.keys(apis)).toEqual(['url-service-hello-url', 'url-service-report-url']);
    expect(apis['url-service-hello-url'].routes).toEqual([
      { method: 'ANY', path: '/', function: 'url-service-hello' },
      { method: 'ANY', path: '/{proxy+}', function: 'url-service-hello' },
    ]);
    expect(apis['url-service-report-url'].cors).toMatchObject({ allow_origins: ['https://reports.example.com'] });
    expect(result.document.functions!['url-service-hello'].event_format).toBe('aws-v2');
    // No API named after the `service` key itself, as the old form once gave.
    expect(Object.keys(apis).some((n) => n === 'service' || n.startsWith('service-'))).toBe(false);
  });

  it('SAM FunctionUrlConfig and an HttpApi event with no ApiId: two APIs; AWS_IAM said', () => {
    const result = fixture('sam-init/url-app/template.yaml');
    expect(result.document.apis!['UrlFunction-url']).toMatchObject({
      routes: [
        { method: 'ANY', path: '/', function: 'UrlFunction' },
        { method: 'ANY', path: '/{proxy+}', function: 'UrlFunction' },
      ],
      cors: { allow_origins: ['https://app.example.com'] },
    });
    expect(result.document.apis!.ServerlessHttpApi.routes!.map((r) => `${r.method} ${r.path}`)).toEqual(['ANY /{proxy+}', 'ANY /']);
    const iam = importSam(`Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties: { Handler: index.handler, FunctionUrlConfig: { AuthType: AWS_IAM, InvokeMode: RESPONSE_STREAM } }
`);
    expect(iam.notes.join('\n')).toMatch(/FunctionUrlConfig: AuthType not carried \(IAM-signed calls have no counterpart/);
    expect(notCarriedNames(iam.notes)).toEqual(['Resources.Fn.Properties.FunctionUrlConfig.AuthType', 'Resources.Fn.Properties.FunctionUrlConfig.InvokeMode']);
  });
});

describe('what is not carried, by name', () => {
  it('resources with their type, properties by their path, top-level sections', () => {
    const result = importServerless(`service: s
plugins: [serverless-offline]
provider: { name: aws, iam: { role: { statements: [] } }, kmsKeyArn: arn:x }
functions:
  hello: { handler: h.hello, vpc: { subnetIds: [a] }, events: [{ sqs: arn:q }] }
resources:
  Resources:
    MyTable: { Type: AWS::DynamoDB::Table }
`);
    expect(notCarriedNames(result.notes)).toEqual([
      'provider.iam',
      'provider.kmsKeyArn',
      'resources.Resources.MyTable (AWS::DynamoDB::Table)',
      'plugins',
      'functions.hello.vpc',
      'functions.hello.events[0] (sqs events)',
    ]);
  });
});

describe('handler files', () => {
  it('a handler whose file is not there is listed with its path relative to the project; the import is still written', () => {
    const result = fixture('serverless/missing-handler/serverless.yml');
    expect(result.missing).toEqual([{ where: 'functions.built.handler', file: 'dist/built.js' }]);
    expect(result.yaml).toContain('Handler files not found');
    expect(result.yaml).toContain('dist/built.js (functions.built.handler)');
  });
});
