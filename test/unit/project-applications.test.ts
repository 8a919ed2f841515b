/**
 * The plan of `applications:` and a webhook's `application:` against a
 * server state written by hand: identity by uid (a rename is an update),
 * else by name; a webhook compared through its application, not the app_ id;
 * left-out `application` keeps the owner; a file's uid given twice is refused;
 * owners (the file's project recorded, another project's refused unless taken
 * over) and prune (the project's own applications only, each with the
 * webhooks that go with it, after the file's webhooks have moved).
 */
import { describe, expect, it } from 'vitest';
import { parseProject, planProject, ProjectError, renderPlan, type PlanOptions, type ServerState } from '../../src/project/index.js';
import { applicationBody } from '../../src/project/applications.js';
import type { RemoteApplication } from '../../src/project/applications.js';
import type { RemoteWebhook } from '../../src/project/api.js';

const app = (over: Partial<RemoteApplication>): RemoteApplication => ({
  id: 'app_1',
  uid: null,
  name: 'Acme',
  metadata: {},
  limits: { max_endpoints: null, events_per_second: null, retention_days: null },
  portal: { allowed_parents: [], theme: { logo_url: null, primary_color: null, mode: 'auto' } },
  ...over,
});

async function planOf(text: string, current: Partial<ServerState>, options: PlanOptions = {}) {
  const { project } = await parseProject(text, '/p/switchyard.yaml', { env: {} });
  const state: ServerState = { functions: [], apis: [], webhooks: [], env_differs: [], write_only_differs: {}, ...current };
  return planProject(project, state, options);
}

const HOOK = `
webhooks:
  orders:
    target_url: https://example.com/hook
    method: POST
    payload_template: { event: '{{event}}' }
`;

/** The server's answer for HOOK as the plan reads it, owned by `application_id`. */
async function remoteHook(application_id: string | null): Promise<RemoteWebhook> {
  const { project } = await parseProject(HOOK, '/p/switchyard.yaml', { env: {} });
  const { target: _target, secret: _secret, ...hook } = project.webhooks[0];
  return { ...hook, id: 'wh_1', has_secret: false, mock_endpoint: null, application_id } as unknown as RemoteWebhook;
}

describe('applications in the plan', () => {
  it('matches by uid: a renamed application is an update of its name, not a second one', async () => {
    const plan = await planOf('applications:\n  Acme Inc: { uid: acme }\n', { applications: [app({ uid: 'acme' })] });
    expect(plan.changes).toEqual([{ action: 'update', kind: 'application', name: 'Acme Inc', fields: ['name'] }]);
  });

  it('matches by name without a uid, and plans nothing when every field is the same', async () => {
    expect((await planOf('applications:\n  Acme: {}\n', { applications: [app({})] })).changes).toEqual([]);
    const changed = await planOf('applications:\n  Acme: { limits: { retention_days: 3 } }\n', { applications: [app({})] });
    expect(changed.changes).toEqual([{ action: 'update', kind: 'application', name: 'Acme', fields: ['limits'] }]);
  });

  it('compares a webhook through its application (uid or name), not the server\'s app_ id', async () => {
    const applications = [app({ id: 'app_9', uid: 'acme' })];
    const webhooks = [await remoteHook('app_9')];
    for (const ref of ['acme', 'Acme']) {
      const text = `applications:\n  Acme: { uid: acme }\n${HOOK}    application: ${ref}\n`;
      expect((await planOf(text, { applications, webhooks })).changes).toEqual([]);
    }
    const global = await planOf(`applications:\n  Acme: { uid: acme }\n${HOOK}    application: null\n`, { applications, webhooks });
    expect(global.changes).toEqual([{ action: 'update', kind: 'webhook', name: 'orders', fields: ['application'] }]);
  });

  it('leaves the owner alone when the webhook does not name one', async () => {
    const plan = await planOf(HOOK, { applications: [app({})], webhooks: [await remoteHook('app_1')] });
    expect(plan.changes).toEqual([]);
  });

  it('refuses a uid given to two applications of the file', async () => {
    const err = await parseProject('applications:\n  A: { uid: same }\n  B: { uid: same }\n', '/p/switchyard.yaml', { env: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectError);
    expect((err as ProjectError).problems[0]).toMatchObject({ path: 'applications.B.uid' });
  });
});

describe('owners of applications', () => {
  it("records the file's project: sent on a create, an update when the owner differs", async () => {
    const created = await planOf('project: shop\napplications:\n  Acme: {}\n', {});
    expect(created.changes).toEqual([{ action: 'create', kind: 'application', name: 'Acme' }]);
    expect(applicationBody(created.desired.applications![0], 'shop')).toMatchObject({ name: 'Acme', project: 'shop' });
    // A file without a project sends none, so a server older than owners takes it.
    expect(applicationBody(created.desired.applications![0], null)).not.toHaveProperty('project');
    expect((await planOf('project: shop\napplications:\n  Acme: {}\n', { applications: [app({ project: 'shop' })] })).changes).toEqual([]);
    const partial = applicationBody(created.desired.applications![0], 'shop', ['limits']);
    expect(partial).not.toHaveProperty('project');
    expect(applicationBody(created.desired.applications![0], 'shop', ['project'])).toEqual({ project: 'shop' });
  });

  it("refuses another project's application (matched by uid) as a webhook is refused, and takes it over when told", async () => {
    const applications = [app({ uid: 'acme', project: 'blog' })];
    const text = 'project: shop\napplications:\n  Acme Inc: { uid: acme }\n';
    await expect(planOf(text, { applications })).rejects.toThrow(
      "applications.Acme Inc: application 'Acme Inc' belongs to project 'blog', and this file is project 'shop': pass --take-over to take it over, or give it another name here",
    );
    // One no project owns is refused too, from a file that names a project.
    await expect(planOf('project: shop\napplications:\n  Acme: {}\n', { applications: [app({})] })).rejects.toThrow(
      "application 'Acme' belongs to no project (made by hand or before owners were recorded)",
    );
    const taken = await planOf(text, { applications }, { takeOver: true });
    expect(taken.changes).toEqual([{ action: 'update', kind: 'application', name: 'Acme Inc', fields: ['name', 'project'] }]);
    // A file without a project leaves the owner as it is: the same application is nothing to do.
    expect((await planOf('applications:\n  Acme: { uid: acme }\n', { applications })).changes).toEqual([]);
  });
});

describe('prune of applications', () => {
  const own = app({ id: 'app_own', name: 'Old', project: 'shop' });
  const theirs = app({ id: 'app_theirs', name: 'Theirs', project: 'blog' });
  const loose = app({ id: 'app_loose', name: 'Loose', project: null });

  it("deletes the project's own application the file leaves out, showing the webhooks that go with it; never another project's or an unowned one", async () => {
    const orders = { ...(await remoteHook('app_own')), project: 'shop' };
    const other = { ...(await remoteHook('app_theirs')), id: 'wh_2', name: 'blog-hook', project: 'blog' };
    const byHand = { ...(await remoteHook('app_own')), id: 'wh_3', name: 'by-hand', project: null };
    const plan = await planOf('project: shop\n', { applications: [own, theirs, loose], webhooks: [orders, other, byHand] }, { prune: true });
    expect(renderPlan(plan).split('\n').slice(0, -2)).toEqual([
      // The unowned webhook too: the server deletes an application's webhooks with it.
      '- webhook orders (application Old)',
      '- webhook by-hand (application Old)',
      '- application Old',
    ]);
    expect(plan.changes.at(-1)).toEqual({ action: 'delete', kind: 'application', name: 'Old', id: 'app_own' });
    // Without prune, or from a file without a project, nothing is deleted.
    expect((await planOf('project: shop\n', { applications: [own] })).changes).toEqual([]);
    expect((await planOf('', { applications: [own, loose] }, { prune: true })).changes).toEqual([]);
    // Kept when in the file, matched by uid or name.
    expect((await planOf('project: shop\napplications:\n  Old: {}\n', { applications: [own] }, { prune: true })).changes).toEqual([]);
  });

  it("deletes it after the file's webhooks move off it, and refuses a file's webhook that would stay on it", async () => {
    const orders = { ...(await remoteHook('app_own')), project: 'shop' };
    const moved = await planOf(`project: shop\n${HOOK}    application: null\n`, { applications: [own], webhooks: [orders] }, { prune: true });
    expect(moved.changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual(['update webhook orders', 'delete application Old']);
    const kept = await planOf(`project: shop\n${HOOK}`, { applications: [own], webhooks: [orders] }, { prune: true }).catch((e: unknown) => e);
    expect(kept).toBeInstanceOf(ProjectError);
    expect((kept as ProjectError).problems).toEqual([
      expect.objectContaining({ path: 'webhooks.orders.application', message: expect.stringContaining("belongs to application 'Old', which --prune deletes") }),
    ]);
    const named = await planOf(`project: shop\n${HOOK}    application: Old\n`, { applications: [own], webhooks: [orders] }, { prune: true }).catch((e: unknown) => e);
    expect((named as ProjectError).problems).toEqual([
      expect.objectContaining({ path: 'webhooks.orders.application', message: expect.stringContaining('--prune deletes it and its webhooks') }),
    ]);
  });
});
