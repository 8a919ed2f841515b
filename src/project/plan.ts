/**
 * The plan: what to create, update and delete so the server matches the
 * project. Identity is the name (functions, APIs, webhooks) and method +
 * path within an API (routes). Functions compare by code sha256 and every
 * setting; env values and sensitive webhook values by the server's own dry
 * run (state.ts). Without `prune` nothing is deleted. The plan is pure data:
 * it renders as text and as JSON, and apply.ts executes it.
 *
 * A function's `async` destination may name a webhook (or a function) that
 * this apply creates: the function is written first without it, and a second
 * change `~ function f (async)`, marked `destinations: true`, sets it once
 * the webhooks are written.
 */
import { createHash } from 'node:crypto';
import type { RemoteApi, RemoteEventType, RemoteFunction, RemoteRoute, RemoteUsagePlan, RemoteWebhook } from './api.js';
import type { ServerState } from './state.js';
import { maskedAuthorizers } from './authorizers.js';
import { canonicalJson as canonical } from '../canonical-json.js';
import { maskUrl } from '../webhooks/masking.js';
import { asyncWithout, pendingDestinations, remoteAsync, triggerChanges, TRIGGER_FIELDS, type DestinationLookup } from './function-triggers.js';
import { FUNCTION_FIELDS, isDefault, WEBHOOK_FIELD_DEFAULTS, WEBHOOK_FIELDS } from './fields.js';
import { keptSetting } from './webhook-settings.js';
import { API_POLICY_DEFAULTS } from '../types.js';
import { routePolicyChanges } from './route-policy.js';
import { Owners, ownershipProblems } from './ownership.js';
import { applicationChanges, applicationRefNames, applicationResolver, matchApplication } from './applications.js';
import { closest } from '../did-you-mean.js';
import {
  ProjectError,
  type Project,
  type ProjectApiDef,
  type ProjectFunction,
  type ProjectProblem,
  type ProjectRoute,
  type ProjectUsagePlan,
  type ProjectEventType,
  type ProjectWebhook,
} from './types.js';

export type ChangeAction = 'create' | 'update' | 'delete';
export type ChangeKind = 'function' | 'api' | 'route' | 'webhook' | 'usage_plan' | 'event_type' | 'application';

export interface PlanChange {
  action: ChangeAction;
  kind: ChangeKind;
  /** Function, API, webhook, usage plan or application name; for a route, `METHOD /path`. */
  name: string;
  /** For routes: the API's name. */
  api?: string;
  /** For routes: the function it calls (the new one on create and update). */
  function?: string;
  /** For updates: the fields that change. */
  fields?: string[];
  /**
   * For a function: the second write that sets the `async` destinations
   * naming a webhook or function this apply creates (after the webhooks).
   */
  destinations?: true;
  /** For a function's first write: the destinations left out until the second one. */
  pending?: Array<'on_success' | 'on_failure'>;
  /** For a pruned application: the server's id (names may repeat); for a webhook that goes with it: the application's name. */
  id?: string;
  application?: string;
}

export interface Plan {
  prune: boolean;
  /** In the order apply runs them. */
  changes: PlanChange[];
  desired: Project;
  current: ServerState;
  /**
   * With `deferRefusals`: the objects another project owns that the plan
   * would change (its changes to them are left out), for the caller to
   * report with the server's own findings in one round.
   */
  refused?: ProjectProblem[];
}

export interface PlanOptions {
  prune?: boolean;
  /** Names the project file in problems (default `switchyard.yaml`). */
  file?: string;
  /** Change (and prune) objects another project, or none, owns: they become this file's project's (ownership.ts). */
  takeOver?: boolean;
  /** Plan only this function of the file (`apply --only`): its own writes, nothing else. */
  only?: string;
  /** Ownership refusals in `plan.refused` rather than thrown (runProject reports them with the server's checks). */
  deferRefusals?: boolean;
}

export function codeSha256(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}


const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);
const sortedKeys = (o: Record<string, unknown>) => Object.keys(o).sort();

export function functionChanges(
  fn: ProjectFunction,
  current: RemoteFunction,
  envDiffers: boolean,
  webhookNameOf: (id: string) => string | undefined = () => undefined,
): string[] {
  const triggers = new Set<string>(triggerChanges(fn, current, webhookNameOf));
  // What the server does not answer as the file holds it (code by its hash, env by its keys, triggers); every other field compares as is.
  const differs: Record<string, () => boolean> = {
    code: () => codeSha256(fn.code) !== current.code_sha256,
    env: () => envDiffers || !same(sortedKeys(fn.env), [...current.env_keys].sort()),
    name: () => false,
    // A server older than owners answers none.
    project: () => (fn.project ?? null) !== (current.project ?? null),
    ...Object.fromEntries(TRIGGER_FIELDS.map((k) => [k, () => triggers.has(k)])),
  };
  // Scalars compare strictly (a server that leaves a field out differs from null), objects by their JSON.
  const unequal = (a: unknown, b: unknown) => a !== b && (typeof a !== 'object' || a === null || !same(a, b));
  return FUNCTION_FIELDS.filter((key) =>
    key in differs ? differs[key]() : unequal((fn as Record<string, unknown>)[key], (current as Record<string, unknown>)[key]),
  );
}

export const routeKey = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

/**
 * The URL a webhook sends to: its `target_url`, or for `target: {api, path}`
 * the API's invoke URL on the server (absolute, as the server answers it) +
 * path; undefined while that API does not exist there.
 */
export function webhookTargetUrl(hook: ProjectWebhook, invokeUrlOf: (apiName: string) => string | undefined): string | undefined {
  if (hook.target_url !== null) return hook.target_url;
  if (!hook.target) return undefined;
  const base = invokeUrlOf(hook.target.api);
  return base === undefined ? undefined : base + hook.target.path;
}

export function webhookChanges(
  hook: ProjectWebhook,
  current: RemoteWebhook,
  apiNameOf: (id: string) => string | undefined,
  writeOnly: string[],
  invokeUrlOf: (apiName: string) => string | undefined = () => undefined,
): string[] {
  // What the file writes its own way, or the server shows masked; every other field compares as is.
  const differs: Record<string, () => boolean> = {
    name: () => false,
    // An API the server lacks gets a new invoke URL: the target changes.
    // The server shows the URL's credentials masked (and compared them itself: writeOnly).
    target_url: () => {
      if (writeOnly.includes('target_url')) return true;
      const targetUrl = webhookTargetUrl(hook, invokeUrlOf) ?? null;
      return !same(targetUrl === null ? null : maskUrl(targetUrl), current.target_url);
    },
    headers: () =>
      writeOnly.includes('headers') ||
      !same(sortedKeys(hook.headers), sortedKeys(current.headers)) ||
      // Values the server shows (the non-sensitive ones) compare here; masked ones were compared by the server.
      Object.entries(current.headers).some(([name, value]) => !value.startsWith('***') && hook.headers[name] !== value),
    mock_endpoint: () => {
      const mock = current.mock_endpoint ? { api: apiNameOf(current.mock_endpoint.api_id), path: current.mock_endpoint.path } : null;
      return !same(hook.mock_endpoint, mock);
    },
    events: () => !same([...hook.events].sort(), [...current.events].sort()),
    secret: () => (hook.secret === null && current.has_secret) || (hook.secret !== null && !current.has_secret) || writeOnly.includes('secret'),
  };
  return WEBHOOK_FIELDS.filter((key) => {
    if (key in differs) return differs[key]();
    const wanted = (hook as Record<string, unknown>)[key];
    const remote = (current as Record<string, unknown>)[key];
    // A server older than the field has it at its default.
    if (remote === undefined) return !isDefault(wanted, WEBHOOK_FIELD_DEFAULTS[key]);
    // A file may leave to the server what it derives from the value (a rate limit's burst).
    return !same(keptSetting(key, wanted), keptSetting(key, remote));
  });
}

/** Items by name (APIs and webhooks may share names on the server), built once: a scan per name is quadratic. */
function groupByName<T extends { name: string }>(items: T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(item.name);
    if (group) group.push(item);
    else groups.set(item.name, [item]);
  }
  return groups;
}

/** The one server item with this name; two of them is a problem (APIs and webhooks may share names on the server). */
function byName<T extends { name: string }>(groups: Map<string, T[]>, name: string, path: string, file: string, problems: ProjectProblem[]): T | undefined {
  const found = groups.get(name) ?? [];
  if (found.length > 1) {
    problems.push({ file, path, message: `the server holds ${found.length} items named '${name}'; rename or delete the extra ones first` });
  }
  return found[0];
}

/**
 * Compares the project with the server state and lists the changes in a safe
 * order: functions created and updated first, then APIs and their routes
 * (which may reference them), then webhooks (which may render from an API's
 * mock endpoint); deletions last, webhooks before APIs (a mock endpoint holds
 * its API), applications after the webhooks' moves (deleting one deletes its
 * webhooks), APIs and routes before functions (a route holds its function).
 */
export function planProject(desired: Project, current: ServerState, options: PlanOptions = {}): Plan {
  const prune = options.prune ?? false;
  const file = options.file ?? 'switchyard.yaml';
  const problems: ProjectProblem[] = [];
  const project = desired.project ?? null;
  const owners = new Owners(current, desired.applications ?? []);
  const mayChange = (owner: string | null | undefined) => options.takeOver === true || owner === undefined || owner === project;
  if (options.only !== undefined && !desired.functions.some((f) => f.name === options.only)) {
    throw new ProjectError([{ file, path: 'functions', message: `no function '${options.only}' in this file (--only names one of its functions)` }]);
  }
  const functionWrites: PlanChange[] = [];
  const apiWrites: PlanChange[] = [];
  const webhookWrites: PlanChange[] = [];
  const planWrites: PlanChange[] = [];
  const deletions: { webhooks: PlanChange[]; plans: PlanChange[]; apis: PlanChange[]; functions: PlanChange[] } = { webhooks: [], plans: [], apis: [], functions: [] };

  const webhookNames = new Map(current.webhooks.map((w) => [w.id, w.name]));
  const webhookNameOf = (id: string) => webhookNames.get(id);
  const currentFunctions = new Map<string, RemoteFunction>();
  for (const f of current.functions) if (!currentFunctions.has(f.name)) currentFunctions.set(f.name, f);
  const currentApis = groupByName(current.apis);
  const currentWebhooks = groupByName(current.webhooks);
  const envDiffers = new Set(current.env_differs);
  // What exists before this apply writes anything: a destination naming anything else waits for the second write.
  const before: DestinationLookup = {
    webhookId: (name) => {
      const found = currentWebhooks.get(name) ?? [];
      return found.length === 1 ? found[0].id : undefined;
    },
    hasFunction: (name) => currentFunctions.has(name),
  };
  const destinationWrites: PlanChange[] = [];
  for (const fn of desired.functions) {
    const existing = currentFunctions.get(fn.name);
    const pending = pendingDestinations(fn.async, before);
    if (pending.length > 0) {
      destinationWrites.push({ action: 'update', kind: 'function', name: fn.name, fields: ['async'], destinations: true });
    }
    const marks = pending.length > 0 ? { pending } : {};
    if (!existing) functionWrites.push({ action: 'create', kind: 'function', name: fn.name, ...marks });
    else {
      let fields = functionChanges(fn, existing, envDiffers.has(fn.name), webhookNameOf);
      // The first write sets async only when it changes something besides the destinations that wait.
      if (pending.length > 0 && fields.includes('async') && same(asyncWithout(fn.async, pending), remoteAsync(existing.async, webhookNameOf))) {
        fields = fields.filter((f) => f !== 'async');
      }
      if (fields.length > 0) functionWrites.push({ action: 'update', kind: 'function', name: fn.name, fields, ...marks });
    }
  }

  for (const api of desired.apis) {
    const existing = byName(currentApis, api.name, `apis.${api.name}`, file, problems);
    apiWrites.push(...apiChanges(api, existing, prune));
  }

  const apiNames = new Map(current.apis.map((a) => [a.id, a.name]));
  const invokeUrlOf = (name: string) => currentApis.get(name)?.[0].invokeUrl;
  const resolveApplication = applicationResolver(desired.applications ?? [], current.applications ?? []);
  for (const hook of desired.webhooks) {
    const existing = byName(currentWebhooks, hook.name, `webhooks.${hook.name}`, file, problems);
    const ref = hook.application;
    const owner = typeof ref === 'string' ? resolveApplication(ref) : undefined;
    if (typeof ref === 'string' && !owner) {
      const guess = closest(ref, applicationRefNames(desired.applications ?? [], current.applications ?? []));
      problems.push({
        file,
        path: `webhooks.${hook.name}.application`,
        message: `no application '${ref}' in this file or on the server${guess === null ? '' : `; did you mean ${guess}?`}`,
      });
    }
    if (!existing) webhookWrites.push({ action: 'create', kind: 'webhook', name: hook.name });
    else {
      const fields = webhookChanges(hook, existing, (id) => apiNames.get(id), current.write_only_differs[hook.name] ?? [], invokeUrlOf);
      // Through the application (the server answers its app_ id): one this apply creates is a change.
      if (ref !== undefined) {
        const wanted = ref === null ? null : owner?.remote?.id;
        if (wanted !== (existing.application_id ?? null)) fields.push('application');
      }
      if (fields.length > 0) webhookWrites.push({ action: 'update', kind: 'webhook', name: hook.name, fields });
    }
  }

  // Usage plans name APIs: written once the APIs exist.
  const currentPlans = groupByName(current.usage_plans ?? []);
  for (const plan of desired.usage_plans ?? []) {
    const existing = byName(currentPlans, plan.name, `usage_plans.${plan.name}`, file, problems);
    if (!existing) planWrites.push({ action: 'create', kind: 'usage_plan', name: plan.name });
    else {
      const fields = usagePlanChanges(plan, existing, (id) => apiNames.get(id));
      if (fields.length > 0) planWrites.push({ action: 'update', kind: 'usage_plan', name: plan.name, fields });
    }
  }

  // Event types: the file's schema is the latest version's; a different one makes a new version.
  const eventTypeWrites: PlanChange[] = [];
  const currentTypes = new Map((current.event_types ?? []).map((t) => [t.name, t]));
  for (const t of desired.event_types ?? []) {
    const existing = currentTypes.get(t.name);
    if (!existing) eventTypeWrites.push({ action: 'create', kind: 'event_type', name: t.name });
    else {
      const fields = eventTypeChanges(t, existing, project);
      if (fields.length > 0) eventTypeWrites.push({ action: 'update', kind: 'event_type', name: t.name, fields });
    }
  }
  const eventTypeDeletions: PlanChange[] = [];

  // Applications first: the webhooks of the file may belong to them.
  const applicationWrites: PlanChange[] = [];
  const applicationDeletions: PlanChange[] = [];
  const currentApplications = current.applications ?? [];
  const matched = new Set<string>();
  for (const app of desired.applications ?? []) {
    const existing = matchApplication(app, currentApplications);
    if (!existing) applicationWrites.push({ action: 'create', kind: 'application', name: app.name });
    else {
      matched.add(existing.id);
      const fields = applicationChanges(app, existing, project);
      if (fields.length > 0) applicationWrites.push({ action: 'update', kind: 'application', name: app.name, fields });
    }
  }
  // Webhooks the server's cascade deletes with a pruned application: each shown going with it, as a pruned API's routes are.
  const goneWithApplication = new Set<string>();
  if (prune && options.only === undefined && project !== null) {
    const fileHooks = new Map(desired.webhooks.map((h) => [h.name, h]));
    for (const a of currentApplications) {
      // Only the project's own: most applications are made per customer, by hand or by the operator's code, and none are in a file.
      if (matched.has(a.id) || (a.project ?? null) !== project) continue;
      for (const w of current.webhooks) {
        if (w.application_id !== a.id) continue;
        const hook = fileHooks.get(w.name);
        // The file's webhook moves (its writes come before deletions) unless it stays with the application.
        if (hook && typeof hook.application === 'string' && resolveApplication(hook.application)?.remote?.id === a.id) {
          const message = `application '${hook.application}' is not in this file, so --prune deletes it and its webhooks: add it under applications, or name another application`;
          problems.push({ file, path: `webhooks.${hook.name}.application`, message });
        } else if (hook && hook.application === undefined) {
          const message =
            `the webhook belongs to application '${a.uid ?? a.name}', which --prune deletes as it is not in this file: ` +
            'add it under applications, or set application (null: a global webhook)';
          problems.push({ file, path: `webhooks.${hook.name}.application`, message });
        }
        if (hook) continue;
        goneWithApplication.add(w.name);
        applicationDeletions.push({ action: 'delete', kind: 'webhook', name: w.name, application: a.name });
      }
      applicationDeletions.push({ action: 'delete', kind: 'application', name: a.name, id: a.id });
    }
  }

  if (prune && options.only === undefined) {
    const named = (items: Array<{ name: string }>) => new Set(items.map((i) => i.name));
    // Only the project's own types: a catalogue is often written by hand or by other projects.
    const types = named(desired.event_types ?? []);
    for (const t of current.event_types ?? []) {
      if (!types.has(t.name) && project !== null && t.project === project) eventTypeDeletions.push({ action: 'delete', kind: 'event_type', name: t.name });
    }
    // Before the APIs they name. A plan that API keys are on is refused by the server (409 usage_plan_in_use).
    const plans = named(desired.usage_plans ?? []);
    for (const p of current.usage_plans ?? []) if (!plans.has(p.name)) deletions.plans.push({ action: 'delete', kind: 'usage_plan', name: p.name });
    const hooks = named(desired.webhooks);
    const apis = named(desired.apis);
    const fns = named(desired.functions);
    for (const w of current.webhooks) if (!hooks.has(w.name) && !goneWithApplication.has(w.name)) deletions.webhooks.push({ action: 'delete', kind: 'webhook', name: w.name });
    for (const a of current.apis) {
      if (apis.has(a.name)) continue;
      for (const r of a.routes) deletions.apis.push({ action: 'delete', kind: 'route', name: routeKey(r), api: a.name, function: r.function });
      deletions.apis.push({ action: 'delete', kind: 'api', name: a.name });
    }
    for (const f of current.functions) if (!fns.has(f.name)) deletions.functions.push({ action: 'delete', kind: 'function', name: f.name });
  } else if (options.only === undefined) {
    // Without prune a route may keep calling a function the file does not name: it must still exist.
    checkReferences(desired, current, file, problems);
  }

  let writes = [...applicationWrites, ...functionWrites, ...apiWrites, ...webhookWrites, ...planWrites, ...eventTypeWrites, ...destinationWrites];
  // A file without a project leaves owners as they are (an export of a server holding several projects applies back as nothing to do).
  if (project === null && options.takeOver !== true) {
    writes = writes.flatMap((c) => {
      if (c.action !== 'update' || !c.fields?.includes('project') || c.kind === 'route') return [c];
      const fields = c.fields.filter((f) => f !== 'project');
      return fields.length > 0 ? [{ ...c, fields }] : [];
    });
  }
  // `--only`: the one function's writes (its destinations included); nothing else is written or deleted.
  if (options.only !== undefined) writes = writes.filter((c) => c.kind === 'function' && c.name === options.only);
  const refused = options.takeOver === true ? [] : ownershipProblems(writes, owners, project, file);
  if (!options.deferRefusals) problems.push(...refused);
  else if (refused.length > 0) writes = writes.filter((c) => mayChange(owners.owner(c)));
  if (problems.length > 0) throw new ProjectError(problems);
  // Prune deletes only what this project owns: another project's objects are not "left out of this file".
  const prunable = (c: PlanChange) => mayChange(owners.owner(c.kind === 'route' ? c : { ...c, action: 'update' }));
  return {
    prune,
    changes: [
      ...writes,
      ...deletions.webhooks.filter(prunable),
      // After the webhooks' moves (writes) and before the APIs (a webhook's mock endpoint holds its API).
      ...applicationDeletions,
      ...deletions.plans,
      ...eventTypeDeletions,
      ...deletions.apis.filter(prunable),
      ...deletions.functions.filter(prunable),
    ],
    desired,
    current,
    ...(options.deferRefusals && refused.length > 0 ? { refused } : {}),
  };
}

function checkReferences(desired: Project, current: ServerState, file: string, problems: ProjectProblem[]): void {
  const fns = new Set([...desired.functions.map((f) => f.name), ...current.functions.map((f) => f.name)]);
  for (const api of desired.apis) {
    api.routes.forEach((r, i) => {
      if (!fns.has(r.function)) problems.push({ file, path: `apis.${api.name}.routes[${i}].function`, message: `no function '${r.function}'` });
    });
  }
}

function apiChanges(api: ProjectApiDef, existing: RemoteApi | undefined, prune: boolean): PlanChange[] {
  const routeChange = (action: ChangeAction, r: ProjectRoute | RemoteRoute, fields?: string[]): PlanChange => ({
    action,
    kind: 'route',
    name: routeKey(r),
    api: api.name,
    function: r.function,
    ...(fields ? { fields } : {}),
  });
  if (!existing) {
    return [{ action: 'create', kind: 'api', name: api.name }, ...api.routes.map((r) => routeChange('create', r))];
  }
  const out: PlanChange[] = [];
  const fields: string[] = [];
  if (api.base_path !== existing.basePath) fields.push('base_path');
  // A server older than these fields answers without them: read as unset (`cors`: none).
  if (canonical(api.cors) !== canonical(existing.cors ?? null)) fields.push('cors');
  if (api.minimum_compression_size !== (existing.minimumCompressionSize ?? null)) fields.push('minimum_compression_size');
  if (canonical(api.binary_media_types) !== canonical(existing.binaryMediaTypes ?? null)) fields.push('binary_media_types');
  if (canonical(maskedAuthorizers(api.authorizers)) !== canonical(existing.authorizers ?? [])) fields.push('authorizers');
  if (api.default_authorizer !== (existing.defaultAuthorizer ?? null)) fields.push('default_authorizer');
  if ((api.error_format ?? API_POLICY_DEFAULTS.errorFormat) !== (existing.errorFormat ?? API_POLICY_DEFAULTS.errorFormat)) fields.push('error_format');
  if ((api.expose_errors ?? API_POLICY_DEFAULTS.exposeErrors) !== (existing.exposeErrors ?? API_POLICY_DEFAULTS.exposeErrors)) fields.push('expose_errors');
  if (canonical(api.throttle) !== canonical(existing.throttle ?? null)) fields.push('throttle');
  if ((api.project ?? null) !== (existing.project ?? null)) fields.push('project');
  if (fields.length > 0) out.push({ action: 'update', kind: 'api', name: api.name, fields });
  const have = new Map(existing.routes.map((r) => [routeKey(r), r]));
  const want = new Set(api.routes.map(routeKey));
  for (const r of api.routes) {
    const cur = have.get(routeKey(r));
    if (!cur) out.push(routeChange('create', r));
    else {
      const changed: string[] = [];
      if (cur.function !== r.function) changed.push('function');
      changed.push(...routePolicyChanges(r, cur));
      if (changed.length > 0) out.push(routeChange('update', r, changed));
    }
  }
  if (prune) for (const r of existing.routes) if (!want.has(routeKey(r))) out.push(routeChange('delete', r));
  return out;
}

/** The keys of a usage plan (as the file writes them) that differ from the server's; its APIs compared by name. */
export function usagePlanChanges(plan: ProjectUsagePlan, current: RemoteUsagePlan, apiNameOf: (id: string) => string | undefined): string[] {
  const fields: string[] = [];
  const apis = current.apiIds.map((id) => apiNameOf(id) ?? id).sort();
  if (!same([...plan.apis].sort(), apis)) fields.push('apis');
  if (!same(plan.throttle, current.throttle ?? null)) fields.push('throttle');
  if (!same(plan.quota, current.quota ?? null)) fields.push('quota');
  return fields;
}

/** The fields of an event type the file changes; `schema` and `examples` compare with the latest version. */
export function eventTypeChanges(t: ProjectEventType, current: RemoteEventType, project: string | null): string[] {
  const fields: string[] = [];
  const latest = current.versions.at(-1);
  if (t.description !== current.description) fields.push('description');
  if (t.mode !== current.mode) fields.push('mode');
  if (t.deprecated !== current.deprecated) fields.push('deprecated');
  if (t.schema !== null && !same(t.schema, latest?.schema ?? null)) fields.push('schema');
  else if (t.schema !== null && !same(t.examples, latest?.examples ?? [])) fields.push('examples');
  if ((current.project ?? null) !== project) fields.push('project');
  return fields;
}

/** `+ function hello`, `~ function hello (code, timeout_ms)`, `- route GET /x (api users)`; one line per change. */
export function renderPlan(plan: Plan): string {
  if (plan.changes.length === 0) return 'No changes: the server matches the project.';
  const sign = { create: '+', update: '~', delete: '-' } as const;
  const lines = plan.changes.map((c) => {
    let line = `${sign[c.action]} ${c.kind} ${c.name}`;
    if (c.kind === 'route') {
      line += ` (api ${c.api})${c.action === 'delete' ? '' : ` -> ${c.function}`}`;
      // A change of the function says itself (`-> fn`); a change of the route's policy names the keys.
      const policy = (c.fields ?? []).filter((f) => f !== 'function');
      if (policy.length > 0) line += ` (${policy.join(', ')})`;
    }
    else if (c.destinations) line += ' (async destinations, once they exist)';
    else if (c.application !== undefined) line += ` (application ${c.application})`;
    else if (c.fields) line += ` (${c.fields.join(', ')})`;
    return line;
  });
  const count = (a: ChangeAction) => plan.changes.filter((c) => c.action === a).length;
  lines.push('', `Plan: ${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete.`);
  return lines.join('\n');
}

/** The plan for scripts (`--json`). */
export function planToJson(plan: Plan): { prune: boolean; changes: PlanChange[] } {
  return { prune: plan.prune, changes: plan.changes };
}
