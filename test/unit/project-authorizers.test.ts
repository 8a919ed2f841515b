/**
 * An API's authorizers in switchyard.yaml (`authorizers`, `default_authorizer`,
 * and a route's `authorizer` and `authorization_scopes`): loaded with the
 * server's defaults filled, applied, exported with the secret as an
 * `${env:}` placeholder, and planned as nothing to do on the way back;
 * names that point nowhere are problems at their line.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { applyPlan, exportProject, parseProject, planProject, readServerState } from '../../src/project/index.js';
import { FakeProjectApi } from '../helpers/project-fake.js';

const FILE = `
version: 1
env_from: [JWT_SECRET]
functions:
  hello: { file: hello.js }
  gate: { file: gate.js }
apis:
  shop:
    base_path: /
    authorizers:
      - { name: idp, type: jwt, issuer: https://idp.example.com/, audience: [shop], jwks_url: https://idp.example.com/jwks.json }
      - { name: shared, type: jwt, issuer: https://idp.example.com/, audience: [shop], secret: '\${env:JWT_SECRET}' }
      - { name: gate, type: function, function: gate, payload_format_version: '1.0', kind: TOKEN, identity_sources: [method.request.header.Authorization], result_ttl_seconds: 60 }
    default_authorizer: idp
    routes:
      - { method: GET, path: /orders, function: hello, authorization_scopes: [orders:read] }
      - { method: GET, path: /health, function: hello, authorizer: NONE }
      - { method: GET, path: /admin, function: hello, authorizer: gate }
`;

const SECRET = 'a-shared-secret-of-at-least-32-bytes!';
const load = (text: string) =>
  parseProject(text, '/p/switchyard.yaml', { env: { JWT_SECRET: SECRET }, readFile: async () => 'export const handler = async () => ({ statusCode: 200 });' });

describe('authorizers in switchyard.yaml', () => {
  it('applies them, exports them (secret as a placeholder) and plans nothing on the way back', async () => {
    const api = new FakeProjectApi();
    const { project } = await load(FILE);
    expect(project.apis[0].authorizers[0]).toEqual({
      name: 'idp',
      type: 'jwt',
      issuer: 'https://idp.example.com/',
      audience: ['shop'],
      jwksUrl: 'https://idp.example.com/jwks.json',
      identitySource: '$request.header.Authorization',
      leewaySeconds: 5,
    });
    expect((project.apis[0].authorizers[1] as { secret?: string }).secret).toBe(SECRET);
    await applyPlan(planProject(project, await readServerState(api, project)), api);
    expect(api.apis[0].defaultAuthorizer).toBe('idp');
    expect(api.apis[0].routes.find((r) => r.path === '/orders')!.authorizationScopes).toEqual(['orders:read']);
    expect(api.apis[0].routes.find((r) => r.path === '/admin')!.authorizer).toBe('gate');

    const exported = await exportProject(api);
    const text = exported.files['switchyard.yaml'];
    expect(text).not.toContain(SECRET);
    const doc = parseYaml(text) as { apis: Record<string, any> };
    expect(doc.apis.shop.default_authorizer).toBe('idp');
    expect(doc.apis.shop.authorizers[1].secret).toMatch(/^\$\{env:[A-Z0-9_]+\}$/);
    expect(doc.apis.shop.authorizers[2]).toMatchObject({ function: 'gate', payload_format_version: '1.0', kind: 'TOKEN', result_ttl_seconds: 60 });
    expect(doc.apis.shop.routes[1]).toEqual({ method: 'GET', path: '/health', function: 'hello', authorizer: 'NONE' });
    const variable = /^\$\{env:([A-Z0-9_]+)\}$/.exec(doc.apis.shop.authorizers[1].secret)![1];
    const back = await parseProject(text, '/x/switchyard.yaml', {
      env: { [variable]: SECRET },
      envFrom: [variable],
      readFile: async (p) => exported.files[p.replace('/x/', '')],
    });
    expect(planProject(back.project, await readServerState(api, back.project)).changes).toEqual([]);
  });

  it("plans a route's new authorizer or scopes as an update of the route", async () => {
    const api = new FakeProjectApi();
    const first = await load(FILE);
    await applyPlan(planProject(first.project, await readServerState(api, first.project)), api);
    const { project } = await load(FILE.replace('authorization_scopes: [orders:read]', 'authorization_scopes: [orders:write]').replace('authorizer: gate', 'authorizer: shared'));
    const plan = planProject(project, await readServerState(api, project));
    expect(plan.changes.map((c) => [c.name, c.fields])).toEqual([
      ['GET /orders', ['authorization_scopes']],
      ['GET /admin', ['authorizer']],
    ]);
  });

  it('reports names that point nowhere and authorizers the server would refuse', async () => {
    const bad = FILE.replace('default_authorizer: idp', 'default_authorizer: nobody').replace('authorizer: gate', 'authorizer: ghost').replace('result_ttl_seconds: 60', 'result_ttl_seconds: 60, enable_simple_responses: true');
    await expect(load(bad)).rejects.toMatchObject({
      problems: expect.arrayContaining([
        expect.objectContaining({ path: 'apis.shop.default_authorizer' }),
        expect.objectContaining({ path: 'apis.shop.routes[2].authorizer' }),
        expect.objectContaining({ path: 'apis.shop.authorizers[2].enable_simple_responses' }),
      ]),
    });
  });
});
