/**
 * Applications in a project file against a real server over HTTP: apply
 * creates them before the webhooks that name them (by uid or name), a second
 * plan is empty although the server answers app_ ids, a changed limit plans
 * an update, an export applies back as nothing to do, an unknown application
 * is a plan error with a did-you-mean, and prune leaves applications alone.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan, createHttpProjectApi, exportProject, loadProject, planProject, ProjectError, readServerState, renderPlan, type ProjectApi } from '../../src/project/index.js';
import { startService, type RunningService } from '../helpers/service.js';

let svc: RunningService;
let api: ProjectApi;
beforeAll(async () => {
  svc = await startService();
  api = createHttpProjectApi({ baseUrl: svc.url });
});
afterAll(async () => {
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

  it('prune deletes the webhooks the file leaves out but never an application', async () => {
    const smaller = projectDir(PROJECT.replace(/  global-audit:[\s\S]*$/, ''));
    const pruned = await plan(smaller, { prune: true });
    expect(pruned.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual(['delete webhook global-audit']);
    const withoutGlobex = projectDir(PROJECT.replace('  Globex: {}\n', '').replace('application: Globex', 'application: acme'));
    const kept = await plan(withoutGlobex, { prune: true });
    expect(kept.changes.some((c) => c.kind === 'application')).toBe(false);
  });
});
