/**
 * An API's `cors:` in switchyard.yaml (snake_case, like every key of the
 * file): loaded in the API's form with its defaults, planned field by field
 * against the server, applied, exported back without its defaults, and
 * refused where browsers (and the server) refuse it.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { applyPlan, exportProject, parseProject, planProject, ProjectError, readServerState } from '../../src/project/index.js';
import { FakeProjectApi } from '../helpers/project-fake.js';

const FILES: Record<string, string> = { 'hello.js': 'export const handler = () => 1;' };

const yamlWith = (cors: string) => `
functions:
  hello:
    file: hello.js
apis:
  shop:
    base_path: /shop
    routes:
      - { method: GET, path: /items, function: hello }
${cors}`;

const CORS = `    cors:
      allow_origins: [https://app.example.com]
      allow_methods: [get, POST]
      allow_headers: [content-type]
      max_age: 300
      allow_credentials: true
`;

const load = (text: string) =>
  parseProject(text, '/p/switchyard.yaml', { readFile: async (p: string) => FILES[p.replace('/p/', '')] });

describe('cors in switchyard.yaml', () => {
  it('loads in the API form with the defaults filled, applies, plans nothing, and exports back as written', async () => {
    const { project } = await load(yamlWith(CORS));
    const expected = {
      allowOrigins: ['https://app.example.com'],
      allowMethods: ['GET', 'POST'],
      allowHeaders: ['content-type'],
      exposeHeaders: [],
      maxAge: 300,
      allowCredentials: true,
    };
    expect(project.apis[0].cors).toEqual(expected);

    const api = new FakeProjectApi();
    await applyPlan(planProject(project, await readServerState(api, project)), api);
    expect(api.apis[0].cors).toEqual(expected);
    expect(planProject(project, await readServerState(api, project)).changes).toEqual([]);

    const exported = await exportProject(api);
    const doc = parseYaml(exported.files['switchyard.yaml']) as { apis: Record<string, Record<string, unknown>> };
    expect(doc.apis.shop.cors).toEqual({
      allow_origins: ['https://app.example.com'],
      allow_methods: ['GET', 'POST'],
      allow_headers: ['content-type'],
      max_age: 300,
      allow_credentials: true,
    });
    const again = await parseProject(exported.files['switchyard.yaml'], '/x/switchyard.yaml', {
      readFile: async (p: string) => exported.files[p.replace('/x/', '')],
    });
    expect(planProject(again.project, await readServerState(api, again.project)).changes).toEqual([]);
  });

  it('plans a changed or removed policy as an update of the API, and applies it', async () => {
    const api = new FakeProjectApi();
    const first = (await load(yamlWith(CORS))).project;
    await applyPlan(planProject(first, await readServerState(api, first)), api);

    const changed = (await load(yamlWith(CORS.replace('max_age: 300', 'max_age: 60')))).project;
    const plan = planProject(changed, await readServerState(api, changed));
    expect(plan.changes).toEqual([{ action: 'update', kind: 'api', name: 'shop', fields: ['cors'] }]);
    await applyPlan(plan, api);
    expect(api.apis[0].cors?.maxAge).toBe(60);

    const none = (await load(yamlWith(''))).project;
    expect(none.apis[0].cors).toBeNull();
    const removal = planProject(none, await readServerState(api, none));
    expect(removal.changes).toEqual([{ action: 'update', kind: 'api', name: 'shop', fields: ['cors'] }]);
    await applyPlan(removal, api);
    expect(api.apis[0].cors).toBeNull();
    const exported = parseYaml((await exportProject(api)).files['switchyard.yaml']) as { apis: Record<string, Record<string, unknown>> };
    expect(exported.apis.shop).not.toHaveProperty('cors');
  });

  it('refuses credentials with the origin *, naming the key', async () => {
    const text = yamlWith(`    cors:\n      allow_origins: ['*']\n      allow_credentials: true\n`);
    const err = await load(text).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectError);
    expect((err as ProjectError).problems.map((p) => p.path)).toEqual(['apis.shop.cors.allow_credentials']);
  });

  it.each([
    [`    cors:\n      allowOrigins: [https://a.example]\n`, 'apis.shop.cors.allowOrigins'],
    [`    cors:\n      allow_origins: [https://a.example/app]\n`, 'apis.shop.cors.allow_origins[0]'],
    [`    cors:\n      allow_origins: [https://a.example]\n      max_age: 90000\n`, 'apis.shop.cors.max_age'],
  ])('refuses what the schema refuses: %s', async (cors, path) => {
    const err = await load(yamlWith(cors)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectError);
    expect((err as ProjectError).problems.map((p) => p.path)).toContain(path);
  });
});
