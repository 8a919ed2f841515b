/**
 * An API's errorFormat and exposeErrors in switchyard.yaml (`error_format`,
 * `expose_errors`): loaded, planned, applied, exported and applied back as
 * nothing to do; reset when the file leaves them out; refused when invalid; and
 * `switchyard dev`'s default (expose_errors true unless the file says otherwise).
 * serverless.yml and SAM have no such setting: nothing to import.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { withApiDefaults } from '../../src/cli/project-run.js';
import { applyPlan, exportProject, parseProject, planProject, readServerState } from '../../src/project/index.js';
import { FakeProjectApi } from '../helpers/project-fake.js';

const FILE = `
version: 1
functions:
  hello: { file: hello.js, event_format: aws-v1 }
apis:
  site:
    base_path: /
    error_format: aws
    expose_errors: true
    routes: [{ method: GET, path: /, function: hello }]
`;
const WITHOUT = FILE.replace(/    (error_format|expose_errors): .*\n/g, '');

const load = (text: string) =>
  parseProject(text, '/p/switchyard.yaml', { readFile: async () => 'export const handler = async () => ({ statusCode: 200 });' });

describe('switchyard.yaml', () => {
  it('applies both settings, exports them and plans nothing on the way back', async () => {
    const api = new FakeProjectApi();
    const { project } = await load(FILE);
    expect(project.apis[0]).toMatchObject({ error_format: 'aws', expose_errors: true });
    await applyPlan(planProject(project, await readServerState(api, project)), api);
    expect(api.apis[0]).toMatchObject({ errorFormat: 'aws', exposeErrors: true });

    const exported = await exportProject(api);
    const doc = parseYaml(exported.files['switchyard.yaml']) as { apis: Record<string, Record<string, unknown>> };
    expect(doc.apis.site).toMatchObject({ error_format: 'aws', expose_errors: true });
    const back = await parseProject(exported.files['switchyard.yaml'], '/x/switchyard.yaml', {
      readFile: async (p) => exported.files[p.replace('/x/', '')],
    });
    expect(planProject(back.project, await readServerState(api, back.project)).changes).toEqual([]);
  });

  it('plans a setting the file drops as an update that resets it to the default; none exports neither key', async () => {
    const api = new FakeProjectApi();
    const first = await load(FILE);
    await applyPlan(planProject(first.project, await readServerState(api, first.project)), api);
    const { project } = await load(WITHOUT);
    expect(project.apis[0]).toMatchObject({ error_format: null, expose_errors: null });
    const plan = planProject(project, await readServerState(api, project));
    expect(plan.changes).toEqual([{ action: 'update', kind: 'api', name: 'site', fields: ['error_format', 'expose_errors'] }]);
    await applyPlan(plan, api);
    expect(api.apis[0]).toMatchObject({ errorFormat: 'switchyard', exposeErrors: false });
    expect(planProject(project, await readServerState(api, project)).changes).toEqual([]);
    const doc = parseYaml((await exportProject(api)).files['switchyard.yaml']) as { apis: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.apis.site)).toEqual(['base_path', 'routes']);
  });

  it('sends neither setting to a server for a file without them (a server older than them takes it)', async () => {
    const api = new FakeProjectApi();
    const sent: unknown[] = [];
    const create = api.createApi.bind(api);
    api.createApi = async (body) => {
      sent.push(body);
      return create(body);
    };
    const { project } = await load(WITHOUT);
    await applyPlan(planProject(project, await readServerState(api, project)), api);
    expect(sent[0]).not.toHaveProperty('errorFormat');
    expect(sent[0]).not.toHaveProperty('exposeErrors');
  });

  it('refuses values the API would refuse, naming the key', async () => {
    await expect(load(FILE.replace('error_format: aws', 'error_format: lambda'))).rejects.toThrow('error_format');
    await expect(load(FILE.replace('expose_errors: true', 'expose_errors: sometimes'))).rejects.toThrow('expose_errors');
  });
});

describe('switchyard dev', () => {
  it('turns expose_errors on for an API whose file leaves it out, and keeps what a file sets', async () => {
    const { project } = await load(WITHOUT.replace('  site:', '  quiet:\n    base_path: /q\n    expose_errors: false\n    routes: []\n  site:'));
    const dev = withApiDefaults(project, { expose_errors: true });
    expect(dev.apis.map((a) => [a.name, a.expose_errors, a.error_format])).toEqual([
      ['quiet', false, null],
      ['site', true, null],
    ]);
    const api = new FakeProjectApi();
    await applyPlan(planProject(dev, await readServerState(api, dev)), api);
    expect(api.apis.map((a) => [a.name, a.exposeErrors])).toEqual([
      ['quiet', false],
      ['site', true],
    ]);
    // A later `switchyard apply` of the same file sets the production default again.
    const plan = planProject(project, await readServerState(api, project));
    expect(plan.changes).toEqual([{ action: 'update', kind: 'api', name: 'site', fields: ['expose_errors'] }]);
  });
});
