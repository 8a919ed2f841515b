/**
 * Export: the server's functions, APIs, routes and webhooks as a project
 * (a switchyard.yaml and one file per function), such that applying it plans
 * nothing. Values the API never shows (function env, sensitive webhook
 * headers, webhook secrets) become `${env:NAME}` placeholders, listed in
 * `env_vars` and under the file's `env_from`: set them to the real values
 * before applying the export. Each placeholder names its function or webhook
 * (`ORDERS_API__DB_URL`), so applying an export never hands one function the
 * value the operator's shell holds for another's key of the same name.
 * A function's schedules, events and async settings are written when not the
 * default, its destinations by name (`{webhook: name}`, `{function: name}`).
 * The YAML, its comment included, is written through the `yaml` library's
 * document API, so a name cannot become a key of the file.
 */
import { Document } from 'yaml';
import { isServerVariable } from './env-names.js';
import type { ProjectApi, RemoteWebhook } from './api.js';
import { corsToFile } from './cors.js';
import { authorizersToFile } from './authorizers.js';
import type { Authorizer } from '../types.js';
import { routePolicyToFile } from './route-policy.js';
import { throttleToFile } from './throttle.js';
import { exportTriggers, TRIGGER_FIELDS } from './function-triggers.js';
import { FUNCTION_FIELD_DEFAULTS, FUNCTION_FIELDS, isDefault, WEBHOOK_FIELDS } from './fields.js';
import { writtenField } from './webhook-settings.js';
import { hasMaskedCredential } from '../webhooks/masking.js';
import { API_POLICY_DEFAULTS } from '../types.js';
import { applicationRefOf, applicationToFile } from './applications.js';

export interface ExportedProject {
  /** Relative path -> content: `switchyard.yaml` and `functions/<name>.<js|ts>`. */
  files: Record<string, string>;
  /** The environment variables the placeholders read, with what each stands for. */
  env_vars: Array<{ name: string; for: string }>;
  /** What could not be exported as is. */
  notes: string[];
}

/** `GREETING` -> `GREETING`; `x-api-key` -> `X_API_KEY`. */
export const envName = (...parts: string[]) =>
  parts
    .join('_')
    .toUpperCase()
    .replace(/[^A-Z0-9_]/g, '_')
    .replace(/^(?=[0-9])/, '_');

/** A function's env key as the variable its placeholder reads: `orders-api`, `DB_URL` -> `ORDERS_API__DB_URL`. */
export const functionVariable = (fn: string, key: string) => `${envName(fn)}__${envName(key)}`;

/**
 * The placeholders of one export: each name once (two names may read alike
 * once upper-cased: `a-b` and `a_b`, the later gets `_2`), never a
 * `SWITCHYARD_` one, which the loader refuses (`FN_` goes before it).
 */
class Placeholders {
  readonly list: ExportedProject['env_vars'] = [];
  private readonly taken = new Set<string>();

  add(wanted: string, what: string): string {
    const base = isServerVariable(wanted) ? `FN_${wanted}` : wanted;
    let name = base;
    for (let n = 2; this.taken.has(name); n++) name = `${base}_${n}`;
    this.taken.add(name);
    this.list.push({ name, for: what });
    return `\${env:${name}}`;
  }
}

export async function exportProject(api: ProjectApi): Promise<ExportedProject> {
  const [functions, apis, webhooks, plans, eventTypes, applications] = await Promise.all([
    api.listFunctions(),
    api.listApis(),
    api.listWebhooks(),
    api.listUsagePlans ? api.listUsagePlans() : [],
    api.listEventTypes ? api.listEventTypes() : [],
    api.listApplications ? api.listApplications() : [],
  ]);
  const files: Record<string, string> = {};
  const placeholders = new Placeholders();
  const notes: string[] = [];

  // Webhook names for destinations: only those the export writes (a duplicated name is left out below).
  const hookNames = new Map<string, string>();
  const seenHookNames = new Set<string>();
  for (const w of webhooks) {
    if (seenHookNames.has(w.name)) continue;
    seenHookNames.add(w.name);
    hookNames.set(w.id, w.name);
  }
  const fnDoc: Record<string, Record<string, unknown>> = {};
  for (const listed of functions) {
    const fn = await api.getFunction(listed.name);
    const file = `functions/${fn.name}.${fn.runtime === 'typescript' ? 'ts' : 'js'}`;
    files[file] = fn.code ?? '';
    const triggers = exportTriggers(fn, (id) => hookNames.get(id), notes);
    const entry: Record<string, unknown> = { file };
    // What the file writes its own way (the code is the file, env values placeholders, triggers by name); every other field unless the default.
    for (const key of FUNCTION_FIELDS) {
      // The owner is the file's (its top-level `project`), not each function's.
      if (key === 'name' || key === 'code' || key === 'runtime' || key === 'project') continue;
      if (key === 'env') {
        if (fn.env_keys.length === 0) continue;
        const env: Record<string, string> = {};
        for (const name of fn.env_keys) env[name] = placeholders.add(functionVariable(fn.name, name), `functions.${fn.name}.env.${name}`);
        entry.env = env;
      } else if ((TRIGGER_FIELDS as readonly string[]).includes(key)) {
        if (key in triggers) entry[key] = triggers[key];
      } else {
        const value = (fn as Record<string, unknown>)[key];
        if (!isDefault(value, FUNCTION_FIELD_DEFAULTS[key])) entry[key] = value;
      }
    }
    fnDoc[fn.name] = entry;
  }

  const apiDoc: Record<string, unknown> = {};
  const apiNames = new Map<string, string>();
  const invokeUrls = new Map<string, string>();
  for (const a of apis) {
    if (a.name in apiDoc) {
      notes.push(`API ${a.id} is not exported: another API is named '${a.name}' (names identify APIs in a project)`);
      continue;
    }
    apiNames.set(a.id, a.name);
    invokeUrls.set(a.name, a.invokeUrl);
    apiDoc[a.name] = {
      base_path: a.basePath,
      ...(a.minimumCompressionSize != null ? { minimum_compression_size: a.minimumCompressionSize } : {}),
      ...(a.binaryMediaTypes != null ? { binary_media_types: a.binaryMediaTypes } : {}),
      ...(a.errorFormat !== undefined && a.errorFormat !== API_POLICY_DEFAULTS.errorFormat ? { error_format: a.errorFormat } : {}),
      ...(a.exposeErrors !== undefined && a.exposeErrors !== API_POLICY_DEFAULTS.exposeErrors ? { expose_errors: a.exposeErrors } : {}),
      routes: a.routes.map((r) => ({
        method: r.method,
        path: r.path,
        function: r.function,
        ...routePolicyToFile(r),
      })),
      ...(a.throttle != null ? { throttle: throttleToFile(a.throttle) } : {}),
      ...(a.cors ? { cors: corsToFile(a.cors) } : {}),
      ...(a.authorizers && a.authorizers.length > 0
        ? {
            authorizers: authorizersToFile(a.authorizers as Authorizer[], (name) =>
              placeholders.add(envName('AUTHORIZER', `${a.name}_${name}`, 'SECRET'), `apis.${a.name}.authorizers.${name}.secret`),
            ),
          }
        : {}),
      ...(a.defaultAuthorizer ? { default_authorizer: a.defaultAuthorizer } : {}),
    };
  }

  const hookDoc: Record<string, unknown> = {};
  for (const w of webhooks) {
    if (w.name in hookDoc) {
      notes.push(`webhook ${w.id} is not exported: another webhook is named '${w.name}'`);
      continue;
    }
    const hook = webhookEntry(w, apiNames, invokeUrls, placeholders);
    // Its application by uid or name (the app_ id is the server's); a global one leaves the key out.
    const owner = w.application_id ? applications.find((a) => a.id === w.application_id) : undefined;
    if (owner) hook.application = applicationRefOf(owner);
    // A transformation is a file of its own beside the functions', named in the entry.
    if (w.transformation) {
      const file = `transforms/${w.name.replace(/[^A-Za-z0-9._-]/g, '-')}.js`;
      files[file] = w.transformation;
      hook.transformation = `./${file}`;
    }
    hookDoc[w.name] = hook;
  }

  // Usage plans name their APIs; API keys are secrets, never written to the file.
  const planDoc: Record<string, unknown> = {};
  for (const p of plans) {
    if (p.name in planDoc) {
      notes.push(`usage plan ${p.id} is not exported: another usage plan is named '${p.name}'`);
      continue;
    }
    const names = p.apiIds.map((id) => apiNames.get(id)).filter((n): n is string => n !== undefined);
    if (names.length < p.apiIds.length) notes.push(`usage_plans.${p.name}: ${p.apiIds.length - names.length} API id(s) that no exported API has are left out`);
    planDoc[p.name] = {
      apis: names,
      ...(p.throttle ? { throttle: throttleToFile(p.throttle) } : {}),
      ...(p.quota ? { quota: { limit: p.quota.limit, period: p.quota.period } } : {}),
    };
  }
  if (plans.length > 0) notes.push('API keys are not exported: they are secrets, made on the server (POST /api/api-keys or the dashboard) and put on a usage plan there');

  const envVars = placeholders.list;
  const doc: Record<string, unknown> = { version: 1 };
  // One project owning everything exported is the file's project, so the file applies back over what it made.
  const owners = new Set([...functions, ...apis, ...webhooks, ...applications].map((o) => o.project ?? null));
  const [owner] = owners;
  if (owners.size === 1 && owner) doc.project = owner;
  // The placeholders are the export's own: allowed, so the file applies once they are set.
  if (envVars.length > 0) doc.env_from = envVars.map((v) => v.name);
  if (Object.keys(fnDoc).length > 0) doc.functions = fnDoc;
  if (Object.keys(apiDoc).length > 0) doc.apis = apiDoc;
  if (Object.keys(hookDoc).length > 0) doc.webhooks = hookDoc;
  if (Object.keys(planDoc).length > 0) doc.usage_plans = planDoc;
  // By name, as the file keys them; two of one name cannot both be written (the second is said).
  const appDoc: Record<string, unknown> = {};
  for (const a of applications) {
    if (a.name in appDoc) notes.push(`application ${a.id} is not exported: another application is named '${a.name}'`);
    else appDoc[a.name] = applicationToFile(a);
  }
  if (Object.keys(appDoc).length > 0) doc.applications = appDoc;
  // Each type's latest version, its schema written in the file (older versions stay on the server).
  if (eventTypes.length > 0) {
    doc.event_types = Object.fromEntries(
      eventTypes.map((t) => {
        const latest = t.versions.at(-1);
        const entry: Record<string, unknown> = {};
        if (t.description) entry.description = t.description;
        if (t.mode !== 'off') entry.mode = t.mode;
        if (t.deprecated) entry.deprecated = true;
        if (latest) entry.schema = latest.schema;
        if (latest?.examples.length) entry.examples = latest.examples;
        return [t.name, entry];
      }),
    );
  }
  const yaml = new Document(doc);
  // Through the library: a name in the comment cannot end it, whatever it holds.
  yaml.commentBefore = [
    ' Exported by `switchyard export`. Values the server never shows are ${env:NAME} placeholders,',
    ' allowed under env_from; set them before applying:',
    ...(envVars.length > 0 ? envVars.map((v) => `   ${v.name}: ${v.for}`) : ['   (none)']),
  ].join('\n');
  files['switchyard.yaml'] = yaml.toString({ lineWidth: 0 });
  return { files, env_vars: envVars, notes };
}

/**
 * `{api, path}` when the URL is under the invoke URL of an exported API (the
 * longest one), so the export applies elsewhere; null for any other URL.
 */
export function apiTarget(url: string, invokeUrls: Map<string, string>): { api: string; path: string } | null {
  let best: { api: string; path: string } | null = null;
  for (const [api, base] of invokeUrls) {
    if (!base || !url.startsWith(base)) continue;
    const path = url.slice(base.length);
    if (!path.startsWith('/')) continue;
    if (!best || path.length < best.path.length) best = { api, path };
  }
  return best;
}

function webhookEntry(
  w: RemoteWebhook,
  apiNames: Map<string, string>,
  invokeUrls: Map<string, string>,
  placeholders: Placeholders,
): Record<string, unknown> {
  const entry: Record<string, unknown> = {};
  // What the file writes its own way (targets and mock endpoints by API name, write-only values as placeholders); every other field unless the default, an object's keys only where they differ.
  const own: Record<string, () => void> = {
    name: () => {},
    project: () => {},
    target_url: () => {
      const target = apiTarget(w.target_url, invokeUrls);
      if (target) entry.target = target;
      // Its credentials were masked: the real URL comes from the environment, like a masked header.
      else if (hasMaskedCredential(w.target_url)) entry.target_url = placeholders.add(envName('WEBHOOK', w.name, 'TARGET_URL'), `webhooks.${w.name}.target_url`);
      else entry.target_url = w.target_url;
    },
    headers: () => {
      if (Object.keys(w.headers).length === 0) return;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(w.headers)) {
        if (value.startsWith('***')) headers[name] = placeholders.add(envName('WEBHOOK', w.name, name), `webhooks.${w.name}.headers.${name}`);
        else headers[name] = value;
      }
      entry.headers = headers;
    },
    transformation: () => {},
    mock_endpoint: () => {
      if (w.mock_endpoint) entry.mock_endpoint = { api: apiNames.get(w.mock_endpoint.api_id) ?? w.mock_endpoint.api_id, path: w.mock_endpoint.path };
    },
    secret: () => {
      if (w.has_secret) entry.secret = placeholders.add(envName('WEBHOOK', w.name, 'SECRET'), `webhooks.${w.name}.secret`);
    },
  };
  for (const key of WEBHOOK_FIELDS) {
    if (key in own) own[key]();
    else {
      const written = writtenField(key, (w as Record<string, unknown>)[key]);
      if (written !== undefined) entry[key] = written;
    }
  }
  return entry;
}
