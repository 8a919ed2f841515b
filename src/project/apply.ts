/**
 * Executes a plan through a ProjectApi. First every function and webhook to
 * write is checked by the server with `?dry_run=true` (full validation,
 * function code compiled in a worker); any problem stops the apply before
 * the first write. Then the changes run in the plan's order. An API's route
 * changes go in one `PUT /api/apis/:id` (its routes replaced at once, the
 * routes the file does not name kept unless pruning). A function's `async`
 * destinations are resolved to the API's `{type, id|name}` at the moment of
 * each write; those the plan marks pending are left out of the first write
 * and set by the plan's later `destinations` change, once the webhooks (and
 * functions) they name exist.
 */
import type { ApiBody, FunctionBody, FunctionPatchBody, ProjectApi, RemoteApi, RemoteWebhook, UsagePlanBody, WebhookBody } from './api.js';
import type { Plan, PlanChange } from './plan.js';
import { routePolicyOf } from '../types.js';
import { routeKey, webhookTargetUrl } from './plan.js';
import { asyncWithout, isDefaultAsync, remoteSchedules, resolveAsync, TRIGGER_FIELDS, type DestinationLookup } from './function-triggers.js';
import { FUNCTION_FIELDS, isDefault, WEBHOOK_FIELD_DEFAULTS, WEBHOOK_FIELDS } from './fields.js';
import { routePolicyBody } from './route-policy.js';
import { ProjectApiError, ProjectError, sharedFileNote, type Project, type ProjectFunction, type ProjectProblem, type ProjectUsagePlan, type ProjectWebhook } from './types.js';
import { API_POLICY_DEFAULTS } from '../types.js';
import { SECRET_OVERLAP_DEFAULT_S } from '../webhooks/types.js';
import { applicationBody, applicationResolver, matchApplication, type ApplicationBody } from './applications.js';

/** A webhook's endpoint-health settings: newer than the rest of its fields. */
const HEALTH_KEYS: readonly string[] = ['breaker', 'rate_limit', 'auto_disable'];

export interface ApplyOptions {
  /** Names the project file in problems (default `switchyard.yaml`). */
  file?: string;
  /** Called after each change is applied (progress output). */
  onChange?(change: PlanChange): void;
}

export interface ApplyResult {
  applied: PlanChange[];
  /** Webhook name -> the secret the server generated (`secret: generate`), shown only this once. */
  generated_secrets: Record<string, string>;
}

/** Resolves nothing: for callers that write a function whose destinations are all null. */
const NO_LOOKUP: DestinationLookup = { webhookId: () => undefined, hasFunction: () => false };

/**
 * The create body. Schedules, events and async go only when not the
 * default (a server without them takes a project that does not use them);
 * `pending` destinations are left out (set by a later write).
 */
export function functionBody(fn: ProjectFunction, lookup: DestinationLookup = NO_LOOKUP, pending: PlanChange['pending'] = []): FunctionBody {
  const body: Record<string, unknown> = {};
  for (const key of FUNCTION_FIELDS) {
    // Sent only when set (else the server's default), as are the triggers below.
    if (key === 'handler') {
      if (fn.handler !== null) body.handler = fn.handler;
    } else if (key === 'project') {
      // Sent only when set, so a server older than owners takes a file without a project.
      if (fn.project !== null) body.project = fn.project;
    } else if (!(TRIGGER_FIELDS as readonly string[]).includes(key)) body[key] = fn[key];
  }
  if (fn.schedules.length > 0) body.schedules = remoteSchedules(fn.schedules);
  if (fn.events.length > 0) body.events = [...fn.events];
  const async = asyncWithout(fn.async, pending ?? []);
  if (!isDefaultAsync(async)) body.async = resolveAsync(async, lookup);
  return body as FunctionBody;
}

function functionPatch(fn: ProjectFunction, fields: string[], lookup: DestinationLookup, pending: PlanChange['pending'] = []): FunctionPatchBody {
  const full = functionBody(fn, lookup, pending) as unknown as Record<string, unknown>;
  // Left out of the create body when default, but an update to the default sends it.
  full.schedules = remoteSchedules(fn.schedules);
  full.events = [...fn.events];
  full.async = resolveAsync(asyncWithout(fn.async, pending ?? []), lookup);
  const patch: Record<string, unknown> = {};
  for (const field of fields) patch[field] = full[field] ?? null;
  return patch as FunctionPatchBody;
}

/** Where a webhook's `target: {api}` goes while its API is still to be created (dry run only; the write sends the real URL). */
const PENDING_API_URL = 'https://example.com/api/invoke/fn/pending';

function webhookBody(
  hook: ProjectWebhook,
  apiId: (name: string) => string | undefined,
  invokeUrlOf: (name: string) => string | undefined,
  fields?: string[],
  applicationId: (ref: string) => string | undefined = () => undefined,
): Partial<WebhookBody> {
  const mockId = hook.mock_endpoint ? apiId(hook.mock_endpoint.api) : undefined;
  const full: Record<string, unknown> = {};
  for (const key of WEBHOOK_FIELDS) {
    if (key === 'target_url') full.target_url = webhookTargetUrl(hook, invokeUrlOf) ?? PENDING_API_URL + (hook.target?.path ?? '');
    else if (key === 'mock_endpoint') full.mock_endpoint = hook.mock_endpoint && mockId ? { api_id: mockId, path: hook.mock_endpoint.path } : null;
    // Write-only, and sent only when set: last, as it always was.
    else if (key === 'secret') continue;
    // Sent only when not the default, so that a server older than endpoint health takes a project that leaves it alone.
    else if (HEALTH_KEYS.includes(key) && !fields && isDefault(hook[key], WEBHOOK_FIELD_DEFAULTS[key])) continue;
    else if (key === 'project' && !fields && hook.project === null) continue;
    else full[key] = hook[key];
  }
  if (hook.secret !== null) full.secret = hook.secret;
  // An application this apply creates has no id before it is written: a dry run goes without it.
  const owner = typeof hook.application === 'string' ? applicationId(hook.application) : hook.application;
  if (owner !== undefined) full.application_id = owner;
  if (!fields) return full as WebhookBody;
  const patch: Record<string, unknown> = {};
  for (const field of fields) {
    if (field === 'application') {
      if (owner !== undefined) patch.application_id = owner;
    } else patch[field] = full[field] ?? null;
  }
  // A changed secret rotates: the one it replaces keeps signing for the default overlap, so receivers
  // still holding it take the deliveries while they move to the new one (a generated one has nothing to overlap with).
  if (typeof patch.secret === 'string' && !patch.secret.startsWith('generate')) patch.secret_overlap_s = SECRET_OVERLAP_DEFAULT_S;
  return patch as Partial<WebhookBody>;
}

/**
 * The server names a function's code after the function (`hello.js`, as its
 * stack traces do), which is no file of the project: the file the project
 * names stands in its place.
 */
function ownFileName(message: string, fn: ProjectFunction | undefined): string {
  if (!fn) return message;
  return message.replace(`(${fn.name}.${fn.runtime === 'typescript' ? 'ts' : 'js'}, `, `(${fn.file}, `);
}

function problemFrom(file: string, path: string, err: unknown, fn?: ProjectFunction): ProjectProblem {
  if (err instanceof ProjectApiError) {
    const details = err.details as { field?: unknown; line?: unknown; column?: unknown } | undefined;
    const field = details?.field;
    const message = err.code === 'invalid_code' ? ownFileName(err.message, fn) : err.message;
    const problem: ProjectProblem = { file, path: typeof field === 'string' ? `${path}.${field}` : path, message };
    if (err.code === 'invalid_code' && typeof details?.line === 'number') {
      problem.code_position = { line: details.line, column: typeof details.column === 'number' ? details.column : null };
    }
    return problem;
  }
  throw err;
}

/** Destinations looked up in what the server holds now (webhook name -> id, function names), as the apply goes. */
function lookupOf(hooks: Map<string, string>, functions: Set<string>): DestinationLookup {
  return { webhookId: (name) => hooks.get(name), hasFunction: (name) => functions.has(name) };
}

/** Each list of the plan by name, built on first use: a scan per change is quadratic in a project of thousands. */
const indexes = new WeakMap<object, Map<string, unknown>>();

const find = <T extends { name: string }>(items: T[], name: string): T => {
  let index = indexes.get(items) as Map<string, T> | undefined;
  if (!index) {
    index = new Map();
    for (const item of items) if (!index.has(item.name)) index.set(item.name, item);
    indexes.set(items, index);
  }
  const found = index.get(name);
  if (!found) throw new Error(`plan names '${name}', which the project does not hold`);
  return found;
};

/** Asks the server to validate every function and webhook the plan writes; throws ProjectError listing the refusals. */
export async function checkPlan(plan: Plan, api: ProjectApi, options: ApplyOptions = {}): Promise<void> {
  const file = options.file ?? 'switchyard.yaml';
  const problems: ProjectProblem[] = [];
  const apiIds = new Map(plan.current.apis.map((a) => [a.name, a.id]));
  const invokeUrls = new Map(plan.current.apis.map((a) => [a.name, a.invokeUrl]));
  const hooks = new Map(plan.current.webhooks.map((w) => [w.name, w.id]));
  const lookup = lookupOf(hooks, new Set(plan.current.functions.map((f) => f.name)));
  // Functions sharing a file fail alike: one problem per file and message, naming the others.
  const sameCode = new Map<string, { problem: ProjectProblem; others: string[] }>();
  for (const change of plan.changes) {
    // A second write of destinations names what this apply creates: nothing to check it against yet.
    if (change.action === 'delete' || change.destinations) continue;
    const fn = change.kind === 'function' ? find(plan.desired.functions, change.name) : undefined;
    try {
      if (fn) {
        const body =
          change.action === 'create'
            ? functionBody(fn, lookup, change.pending)
            : { name: fn.name, ...functionPatch(fn, change.fields ?? [], lookup, change.pending) };
        await api.checkFunction(body, change.action === 'update');
      } else if (change.kind === 'webhook') {
        const hook = find(plan.desired.webhooks, change.name);
        // A mock endpoint on an API this apply creates cannot be checked yet: checked without it.
        // So is a target on such an API: checked with a stand-in URL.
        const applicationId = (ref: string) => applicationResolver(plan.desired.applications ?? [], plan.current.applications ?? [])(ref)?.remote?.id;
        const body = webhookBody(hook, (n) => apiIds.get(n), (n) => invokeUrls.get(n), change.action === 'update' ? change.fields : undefined, applicationId);
        await api.checkWebhook(body, change.action === 'update' ? hooks.get(change.name) : undefined);
      }
    } catch (err) {
      const problem = problemFrom(file, `${fn ? 'functions' : 'webhooks'}.${change.name}`, err, fn);
      const key = fn && err instanceof ProjectApiError && err.code === 'invalid_code' ? `${fn.file}\n${problem.message}` : null;
      const earlier = key === null ? undefined : sameCode.get(key);
      if (earlier) {
        earlier.others.push(change.name);
        earlier.problem.message = `${problem.message} ${sharedFileNote(earlier.others, fn!.file)}`;
        continue;
      }
      if (key !== null) sameCode.set(key, { problem: { ...problem }, others: [] });
      problems.push(key !== null ? sameCode.get(key)!.problem : problem);
    }
  }
  if (problems.length > 0) throw new ProjectError(problems);
}

/**
 * The API's optional settings to send (cors, minimumCompressionSize,
 * binaryMediaTypes, errorFormat, exposeErrors): those the file sets, and those it leaves out that the
 * server has set (sent as null, to reset them), so a server older than them
 * takes a file that does not use them.
 */
function apiSettings(desired: Project['apis'][number], existing: RemoteApi | undefined): Partial<ApiBody> {
  const out: Partial<ApiBody> = {};
  if (desired.cors !== null || (existing?.cors ?? null) !== null) out.cors = desired.cors;
  if (desired.minimum_compression_size !== null || (existing?.minimumCompressionSize ?? null) !== null) {
    out.minimumCompressionSize = desired.minimum_compression_size;
  }
  if (desired.binary_media_types !== null || (existing?.binaryMediaTypes ?? null) !== null) {
    out.binaryMediaTypes = desired.binary_media_types;
  }
  if (desired.authorizers.length > 0 || (existing?.authorizers ?? []).length > 0) out.authorizers = desired.authorizers;
  if (desired.default_authorizer !== null || (existing?.defaultAuthorizer ?? null) !== null) out.defaultAuthorizer = desired.default_authorizer;
  // The API takes no null for these two: left out of the file means their defaults.
  const errorFormat = desired.error_format ?? API_POLICY_DEFAULTS.errorFormat;
  if (desired.error_format !== null || (existing?.errorFormat ?? errorFormat) !== errorFormat) out.errorFormat = errorFormat;
  const exposeErrors = desired.expose_errors ?? API_POLICY_DEFAULTS.exposeErrors;
  if (desired.expose_errors !== null || (existing?.exposeErrors ?? exposeErrors) !== exposeErrors) out.exposeErrors = exposeErrors;
  if (desired.throttle !== null || (existing?.throttle ?? null) !== null) out.throttle = desired.throttle;
  if (desired.project !== null || (existing?.project ?? null) !== null) out.project = desired.project;
  return out;
}

/**
 * Routes to send for an API: the file's, plus the server's routes the file
 * does not name unless the plan deletes them (with prune it deletes them all;
 * a caller may narrow a plan to some deletions, as `switchyard dev` does).
 */
function routesFor(desired: Project['apis'][number], existing: RemoteApi | undefined, deleted: Set<string>): ApiBody['routes'] {
  // A route's policy as the file sets it (what it leaves out, none); a route the file does not name keeps the server's.
  const routes: ApiBody['routes'] = desired.routes.map((r) => ({
    method: r.method,
    path: r.path,
    function: r.function,
    ...routePolicyBody(r),
  }));
  if (existing) {
    const named = new Set(routes.map(routeKey));
    for (const r of existing.routes) {
      if (!named.has(routeKey(r)) && !deleted.has(routeKey(r))) routes.push({ ...routePolicyOf(r), method: r.method, path: r.path, function: r.function });
    }
  }
  return routes;
}

/** A usage plan's body: its APIs by id, looked up as the apply goes (they are written before it). */
function usagePlanBody(plan: ProjectUsagePlan, apiId: (name: string) => string | undefined): UsagePlanBody {
  const apiIds = plan.apis.map((name) => {
    const id = apiId(name);
    if (id === undefined) throw new Error(`usage_plans.${plan.name}.apis: API '${name}' does not exist on the server`);
    return id;
  });
  return { name: plan.name, apiIds, throttle: plan.throttle, quota: plan.quota };
}

/** The usage plan calls of a ProjectApi, or an error saying the caller has none (a project with usage_plans needs them). */
function planCalls(api: ProjectApi): Required<Pick<ProjectApi, 'createUsagePlan' | 'updateUsagePlan' | 'deleteUsagePlan'>> {
  if (!api.createUsagePlan || !api.updateUsagePlan || !api.deleteUsagePlan) throw new Error('this client cannot write usage plans');
  return { createUsagePlan: api.createUsagePlan.bind(api), updateUsagePlan: api.updateUsagePlan.bind(api), deleteUsagePlan: api.deleteUsagePlan.bind(api) };
}

/** The application calls of a ProjectApi, or an error saying the caller has none (a project with applications needs them). */
function applicationCalls(api: ProjectApi): Required<Pick<ProjectApi, 'createApplication' | 'updateApplication' | 'deleteApplication'>> {
  if (!api.createApplication || !api.updateApplication || !api.deleteApplication) throw new Error('this client cannot write applications');
  return {
    createApplication: api.createApplication.bind(api),
    updateApplication: api.updateApplication.bind(api),
    deleteApplication: api.deleteApplication.bind(api),
  };
}

/** The event-type calls of a ProjectApi, or an error saying the caller has none (a project with event_types needs them). */
function eventTypeCalls(api: ProjectApi): Required<Pick<ProjectApi, 'createEventType' | 'updateEventType' | 'deleteEventType'>> {
  if (!api.createEventType || !api.updateEventType || !api.deleteEventType) throw new Error('this client cannot write event types');
  return { createEventType: api.createEventType.bind(api), updateEventType: api.updateEventType.bind(api), deleteEventType: api.deleteEventType.bind(api) };
}

export async function applyPlan(plan: Plan, api: ProjectApi, options: ApplyOptions = {}): Promise<ApplyResult> {
  await checkPlan(plan, api, options);
  const applied: PlanChange[] = [];
  const generated: Record<string, string> = {};
  const keepSecret = (name: string, answer: RemoteWebhook & { secret?: string }) => {
    if (answer.secret) generated[name] = answer.secret;
  };
  const done = (change: PlanChange) => {
    applied.push(change);
    options.onChange?.(change);
  };
  const apis = new Map(plan.current.apis.map((a) => [a.name, a]));
  const hooks = new Map(plan.current.webhooks.map((w) => [w.name, w.id]));
  const apiId = (name: string) => apis.get(name)?.id;
  const invokeUrlOf = (name: string) => apis.get(name)?.invokeUrl;
  const writtenApis = new Set<string>();
  const usagePlans = new Map((plan.current.usage_plans ?? []).map((p) => [p.name, p.id]));
  const functions = new Set(plan.current.functions.map((f) => f.name));
  const lookup = lookupOf(hooks, functions);
  // The server's applications as the apply goes: one it creates is named by the webhooks after it.
  const remoteApplications = [...(plan.current.applications ?? [])];
  const applicationId = (ref: string) => applicationResolver(plan.desired.applications ?? [], remoteApplications)(ref)?.remote?.id;
  const ownerOf = (hook: ProjectWebhook) => {
    if (typeof hook.application === 'string' && applicationId(hook.application) === undefined) {
      throw new Error(`webhooks.${hook.name}.application: application '${hook.application}' does not exist on the server`);
    }
  };

  for (const change of plan.changes) {
    if (change.kind === 'function') {
      if (change.action === 'create') {
        await api.createFunction(functionBody(find(plan.desired.functions, change.name), lookup, change.pending));
        functions.add(change.name);
      } else if (change.action === 'update') {
        const fn = find(plan.desired.functions, change.name);
        const patch = functionPatch(fn, change.fields ?? [], lookup, change.destinations ? [] : change.pending);
        if (change.destinations) {
          const missing = (['on_success', 'on_failure'] as const).filter((k) => fn.async[k] !== null && patch.async?.[k] === null);
          if (missing.length > 0) throw new Error(`functions.${fn.name}.async: ${missing.join(', ')} names what this apply did not create`);
        }
        await api.updateFunction(change.name, patch);
      } else {
        await api.deleteFunction(change.name);
        functions.delete(change.name);
      }
      done(change);
    } else if (change.kind === 'api' || change.kind === 'route') {
      const apiName = change.kind === 'api' ? change.name : change.api!;
      const existing = apis.get(apiName);
      if (change.action === 'delete' && !plan.desired.apis.some((a) => a.name === apiName)) {
        // Pruned API: its routes go with it.
        if (change.kind === 'api' && existing) await api.deleteApi(existing.id);
        done(change);
        continue;
      }
      if (!writtenApis.has(apiName)) {
        writtenApis.add(apiName);
        const desired = find(plan.desired.apis, apiName);
        const deleted = new Set(plan.changes.filter((c) => c.kind === 'route' && c.action === 'delete' && c.api === apiName).map((c) => c.name));
        const routes = routesFor(desired, existing, deleted);
        const settings = apiSettings(desired, existing);
        const written = existing
          ? await api.updateApi(existing.id, { basePath: desired.base_path, routes, ...settings })
          : await api.createApi({ name: apiName, basePath: desired.base_path, routes, ...settings });
        apis.set(apiName, written);
      }
      done(change);
    } else if (change.kind === 'event_type') {
      const calls = eventTypeCalls(api);
      if (change.action === 'delete') await calls.deleteEventType(change.name);
      else {
        const t = find(plan.desired.event_types ?? [], change.name);
        const project = plan.desired.project ?? null;
        const body = { description: t.description, mode: t.mode, deprecated: t.deprecated, ...(t.schema ? { schema: t.schema, examples: t.examples } : {}) };
        if (change.action === 'create') await calls.createEventType({ name: t.name, ...body, project });
        else await calls.updateEventType(t.name, { ...body, ...(change.fields?.includes('project') ? { project } : {}) });
      }
      done(change);
    } else if (change.kind === 'application') {
      const calls = applicationCalls(api);
      const project = plan.desired.project ?? null;
      if (change.action === 'delete') {
        // Its webhooks, their deliveries and its portal tokens go with it (the server's cascade).
        await calls.deleteApplication(change.id!);
        done(change);
        continue;
      }
      const app = find(plan.desired.applications ?? [], change.name);
      if (change.action === 'create') remoteApplications.push(await calls.createApplication(applicationBody(app, project) as ApplicationBody));
      else if (change.action === 'update') {
        const existing = matchApplication(app, plan.current.applications ?? [])!;
        const written = await calls.updateApplication(existing.id, applicationBody(app, project, change.fields));
        remoteApplications[remoteApplications.indexOf(existing)] = written;
      }
      done(change);
    } else if (change.kind === 'usage_plan') {
      const calls = planCalls(api);
      const id = usagePlans.get(change.name);
      if (change.action === 'delete') await calls.deleteUsagePlan(id!);
      else {
        const body = usagePlanBody(find(plan.desired.usage_plans ?? [], change.name), apiId);
        if (change.action === 'create') usagePlans.set(change.name, (await calls.createUsagePlan(body)).id);
        else await calls.updateUsagePlan(id!, body);
      }
      done(change);
    } else {
      if (change.action === 'delete') {
        // One of a pruned application's goes with it (the application's change after it).
        if (change.application === undefined) await api.deleteWebhook(hooks.get(change.name)!);
        hooks.delete(change.name);
      } else {
        const hook = find(plan.desired.webhooks, change.name);
        ownerOf(hook);
        if (change.action === 'create') {
          const created = await api.createWebhook(webhookBody(hook, apiId, invokeUrlOf, undefined, applicationId) as WebhookBody);
          hooks.set(hook.name, created.id);
          keepSecret(hook.name, created);
        }
        else keepSecret(hook.name, await api.updateWebhook(hooks.get(change.name)!, webhookBody(hook, apiId, invokeUrlOf, change.fields, applicationId)));
      }
      done(change);
    }
  }
  return { applied, generated_secrets: generated };
}
