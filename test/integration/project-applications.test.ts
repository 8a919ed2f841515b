/**
 * Applications in a project file against a real server over HTTP: apply
 * creates them before the webhooks that name them (by uid or name), a second
 * plan is empty although the server answers app_ ids, a changed limit plans
 * an update, an export applies back as nothing to do, an unknown application
 * is a plan error with a did-you-mean; the file's project is recorded on its
 * applications, and `switchyard apply --prune` (the real CLI) deletes the
 * project's own application the file leaves out, with its webhooks, after the
 * file's webhooks have moved off it, but never another project's or one made
 * by hand; another project's application is refused unless taken over.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan, createHttpProjectApi, exportProject, loadProject, planProject, ProjectError, readServerState, renderPlan, type ProjectApi } from '../../src/project/index.js';
import { killLeftoverClis, runCliToEnd } from '../helpers/cli.js';
import { startService, type RunningService } from '../helpers/service.js';

let svc: RunningService;
let api: ProjectApi;
beforeAll(async () => {
  svc = await startService();
  api = createHttpProjectApi({ baseUrl: svc.url });
});
afterAll(async () => {
  killLeftoverClis();
  await svc?.stop();
});

function projectDir(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-project-apps-'));
  writeFileSync(join(dir, 'switchyard.yaml'), text);
  return dir;
}

async function plan(dir: string, opts: { prune?: boolean } = {}) {
  const { project } = await loadProject(join(dir, 'switchyard.yaml'), { env: {} });
  return planProject(project, await readServerState(api, project), { prune: opts.prune });
}

const PROJECT = `
project: apps-demo
applications:
  Acme Corp:
    uid: acme
    metadata: { plan: gold }
    limits: { max_endpoints: 5, events_per_second: 50 }
    portal:
      allowed_parents: [https://app.example.com]
      theme: { primary_color: '#112233', mode: dark }
  Globex: {}
webhooks:
  acme-orders:
    application: acme
    target_url: https://example.com/acme
    method: POST
    payload_template: { event: '{{event}}' }
  globex-orders:
    application: Globex
    target_url: https://example.com/globex
    method: POST
    payload_template: { event: '{{event}}' }
  global-audit:
    application: null
    target_url: https://example.com/audit
    method: POST
    payload_template: { event: '{{event}}' }
`;

describe('applications in a project file', () => {
  const dir = projectDir(PROJECT);

  it('creates the applications before their webhooks, and a second plan is empty', async () => {
    const first = await plan(dir);
    expect(renderPlan(first).split('\n').slice(0, 5)).toEqual([
      '+ application Acme Corp',
      '+ application Globex',
      '+ webhook acme-orders',
      '+ webhook globex-orders',
      '+ webhook global-audit',
    ]);
    await applyPlan(first, api);
    const apps = await api.listApplications!();
    const acme = apps.find((a) => a.uid === 'acme')!;
    const globex = apps.find((a) => a.name === 'Globex')!;
    expect(acme).toMatchObject({
      name: 'Acme Corp',
      metadata: { plan: 'gold' },
      limits: { max_endpoints: 5, events_per_second: 50, retention_days: null },
      portal: { allowed_parents: ['https://app.example.com'], theme: { primary_color: '#112233', mode: 'dark', logo_url: null } },
    });
    const hooks = await api.listWebhooks();
    expect(hooks.find((w) => w.name === 'acme-orders')!.application_id).toBe(acme.id);
    expect(hooks.find((w) => w.name === 'globex-orders')!.application_id).toBe(globex.id);
    expect(hooks.find((w) => w.name === 'global-audit')!.application_id).toBeNull();

    expect(renderPlan(await plan(dir))).toBe('No changes: the server matches the project.');
  });

  it('plans an update for a changed limit, and a moved webhook through its application', async () => {
    writeFileSync(
      join(dir, 'switchyard.yaml'),
      PROJECT.replace('max_endpoints: 5', 'max_endpoints: 7').replace('application: Globex', 'application: acme'),
    );
    const edited = await plan(dir);
    expect(edited.changes.map((c) => [c.action, c.kind, c.name, c.fields])).toEqual([
      ['update', 'application', 'Acme Corp', ['limits']],
      ['update', 'webhook', 'globex-orders', ['application']],
    ]);
    await applyPlan(edited, api);
    const acme = (await api.listApplications!()).find((a) => a.uid === 'acme')!;
    expect(acme.limits.max_endpoints).toBe(7);
    expect((await api.listWebhooks()).find((w) => w.name === 'globex-orders')!.application_id).toBe(acme.id);
    expect(renderPlan(await plan(dir))).toBe('No changes: the server matches the project.');
    writeFileSync(join(dir, 'switchyard.yaml'), PROJECT);
    await applyPlan(await plan(dir), api);
  });

  it('refuses an application that neither the file nor the server has, with a did-you-mean', async () => {
    const typo = projectDir(PROJECT.replace('application: acme', 'application: acmee'));
    const err = await plan(typo).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectError);
    expect((err as ProjectError).problems).toContainEqual(
      expect.objectContaining({ path: 'webhooks.acme-orders.application', message: expect.stringContaining('did you mean acme?') }),
    );
  });

  it('exports applications and their webhooks by uid or name: the export applies back as nothing to do', async () => {
    const exported = await exportProject(api);
    const yaml = exported.files['switchyard.yaml'];
    expect(yaml).toContain('applications:');
    expect(yaml).toMatch(/application: acme\n/);
    expect(yaml).toMatch(/application: Globex\n/);
    const back = projectDir(yaml);
    const { project } = await loadProject(join(back, 'switchyard.yaml'), { env: {}, envFrom: exported.env_vars.map((v) => v.name) });
    expect(project.applications?.map((a) => a.name).sort()).toEqual(['Acme Corp', 'Globex']);
    expect(renderPlan(planProject(project, await readServerState(api, project)))).toBe('No changes: the server matches the project.');
  });

  it("records the file's project on its applications, as the API shows it", async () => {
    const apps = await api.listApplications!();
    expect(apps.map((a) => [a.name, a.project])).toEqual(expect.arrayContaining([['Acme Corp', 'apps-demo'], ['Globex', 'apps-demo']]));
  });

  it("prune deletes the project's own application the file leaves out after its webhooks move off it; never another project's or one made by hand", async () => {
    const cli = (args: string[]) => runCliToEnd(args, { SWITCHYARD_URL: svc.url });
    // Made by hand (no project) and by another project: prune leaves both, and the webhook made by hand under one.
    const byHand = (await svc.request('POST', '/api/applications', { name: 'By Hand' })).json as { id: string; project: string | null };
    expect(byHand.project).toBeNull();
    const theirs = (await svc.request('POST', '/api/applications', { name: 'Theirs', project: 'other' })).json as { id: string; project: string | null };
    expect(theirs.project).toBe('other');
    const smaller = projectDir(PROJECT.replace(/  global-audit:[\s\S]*$/, ''));
    const pruned = await plan(smaller, { prune: true });
    expect(pruned.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual(['delete webhook global-audit']);

    // Globex left out: its webhook moves to acme first, so it does not go with Globex; a webhook made by hand under Globex does.
    const globex = (await api.listApplications!()).find((a) => a.name === 'Globex')!;
    const created = await svc.request('POST', '/api/webhooks', {
      name: 'globex-by-hand',
      target_url: 'https://example.com/by-hand',
      method: 'POST',
      payload_template: { event: '{{event}}' },
      application_id: globex.id,
    });
    expect(created.status).toBe(201);
    const withoutGlobex = projectDir(PROJECT.replace('  Globex: {}\n', '').replace('application: Globex', 'application: acme'));
    const run = await cli(['apply', '-f', withoutGlobex, '--prune']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    const at = (line: string) => lines.indexOf(line);
    expect(at('~ webhook globex-orders (application)')).toBeGreaterThanOrEqual(0);
    expect(at('- webhook globex-by-hand (application Globex)')).toBeGreaterThan(at('~ webhook globex-orders (application)'));
    expect(at('- application Globex')).toBeGreaterThan(at('- webhook globex-by-hand (application Globex)'));
    expect(run.stdout).not.toContain('By Hand');
    expect(run.stdout).not.toContain('Theirs');

    const apps = await api.listApplications!();
    expect(apps.map((a) => a.name).sort()).toEqual(['Acme Corp', 'By Hand', 'Theirs']);
    const hooks = await api.listWebhooks();
    const acme = apps.find((a) => a.uid === 'acme')!;
    expect(hooks.find((w) => w.name === 'globex-orders')!.application_id).toBe(acme.id);
    expect(hooks.some((w) => w.name === 'globex-by-hand')).toBe(false);
    expect((await svc.request('GET', `/api/webhooks/${(created.json as { id: string }).id}`)).status).toBe(404);
    expect(renderPlan(await plan(withoutGlobex, { prune: true }))).toBe('No changes: the server matches the project.');

    // Another project's application is refused by name and owner, and taken over with --take-over.
    const claim = projectDir(`${PROJECT.replace('  Globex: {}\n', '').replace('application: Globex', 'application: acme')}`.replace('applications:\n', 'applications:\n  Theirs: {}\n'));
    const refused = await cli(['apply', '-f', claim]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "applications.Theirs: application 'Theirs' belongs to project 'other', and this file is project 'apps-demo': pass --take-over to take it over, or give it another name here",
    );
    expect((await svc.request('GET', `/api/applications/${theirs.id}`)).json).toMatchObject({ project: 'other' });
    const taken = await cli(['apply', '-f', claim, '--take-over']);
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.stdout).toContain('~ application Theirs (project)');
    expect((await svc.request('GET', `/api/applications/${theirs.id}`)).json).toMatchObject({ project: 'apps-demo' });

    // Owners now differ (one application made by hand): the export names no project and still applies back as nothing to do.
    const exported = await exportProject(api);
    expect(exported.files['switchyard.yaml']).not.toMatch(/^project:/m);
    const { project } = await loadProject(join(projectDir(exported.files['switchyard.yaml']), 'switchyard.yaml'), { env: {}, envFrom: exported.env_vars.map((v) => v.name) });
    expect(renderPlan(planProject(project, await readServerState(api, project)))).toBe('No changes: the server matches the project.');
  });
});
