/**
 * Reads what the server holds, for the plan. Env values and sensitive webhook
 * values are write-only (never answered), so for the resources the file
 * names, the server itself compares them: a `?dry_run=true` update carrying
 * only those values answers whether it would change them, and writes nothing.
 */
import type { ProjectApi, RemoteApi, RemoteEventType, RemoteFunction, RemoteUsagePlan, RemoteWebhook } from './api.js';
import type { Project } from './types.js';
import { maskUrl } from '../webhooks/masking.js';
import type { RemoteApplication } from './applications.js';

export interface ServerState {
  functions: RemoteFunction[];
  apis: RemoteApi[];
  webhooks: RemoteWebhook[];
  /** Absent when the caller's ProjectApi has no usage plans: read as none. */
  usage_plans?: RemoteUsagePlan[];
  /** Absent when the caller's ProjectApi has no event types: read as none. */
  event_types?: RemoteEventType[];
  /** Absent when the caller's ProjectApi has no applications: read as none. */
  applications?: RemoteApplication[];
  /** Names of functions whose env values (same keys) differ from the file's. */
  env_differs: string[];
  /** Webhook name -> write-only fields (`headers`, `secret`, credentials of `target_url`) whose values differ from the file's. */
  write_only_differs: Record<string, string[]>;
}

const sameKeys = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join('\0') === [...b].sort().join('\0');

export async function readServerState(api: ProjectApi, desired?: Project): Promise<ServerState> {
  const [functions, apis, webhooks, plans, eventTypes, applications] = await Promise.all([
    api.listFunctions(),
    api.listApis(),
    api.listWebhooks(),
    api.listUsagePlans ? api.listUsagePlans() : undefined,
    api.listEventTypes ? api.listEventTypes() : undefined,
    api.listApplications ? api.listApplications() : undefined,
  ]);
  const state: ServerState = { functions, apis, webhooks, env_differs: [], write_only_differs: {} };
  if (plans) state.usage_plans = plans;
  if (eventTypes) state.event_types = eventTypes;
  if (applications) state.applications = applications;
  if (!desired) return state;

  // By name once: a find per function is quadratic in a project of thousands.
  const byName = new Map(functions.map((f) => [f.name, f]));
  for (const fn of desired.functions) {
    const current = byName.get(fn.name);
    const keys = Object.keys(fn.env);
    if (!current || keys.length === 0 || !sameKeys(keys, current.env_keys)) continue;
    const check = await api.checkFunction({ name: fn.name, env: fn.env }, true);
    if (check.changes.includes('env')) state.env_differs.push(fn.name);
  }

  for (const hook of desired.webhooks) {
    const matches = webhooks.filter((w) => w.name === hook.name);
    if (matches.length !== 1) continue;
    const current = matches[0];
    const body: { headers?: Record<string, string>; secret?: string; target_url?: string } = {};
    // Credentials in the URL come back masked: when the rest matches, the server compares them.
    const url = hook.target_url;
    if (url !== null && maskUrl(url) !== url && maskUrl(url) === current.target_url) body.target_url = url;
    if (Object.keys(hook.headers).length > 0 && sameKeys(Object.keys(hook.headers), Object.keys(current.headers))) {
      body.headers = hook.headers;
    }
    if (hook.secret && !hook.secret.startsWith('generate') && current.has_secret) body.secret = hook.secret;
    if (Object.keys(body).length === 0) continue;
    const check = await api.checkWebhook(body, current.id);
    const differs = check.changes.filter((c) => c === 'headers' || c === 'secret' || c === 'target_url');
    if (differs.length > 0) state.write_only_differs[hook.name] = differs;
  }
  return state;
}
