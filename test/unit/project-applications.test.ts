/**
 * The plan of `applications:` and a webhook's `application:` against a
 * server state written by hand: identity by uid (a rename is an update),
 * else by name; a webhook compared through its application, not the app_ id;
 * left-out `application` keeps the owner; a file's uid given twice is refused.
 */
import { describe, expect, it } from 'vitest';
import { parseProject, planProject, ProjectError, type ServerState } from '../../src/project/index.js';
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

async function planOf(text: string, current: Partial<ServerState>) {
  const { project } = await parseProject(text, '/p/switchyard.yaml', { env: {} });
  const state: ServerState = { functions: [], apis: [], webhooks: [], env_differs: [], write_only_differs: {}, ...current };
  return planProject(project, state);
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
