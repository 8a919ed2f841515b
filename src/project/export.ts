/**
 * Export: the server's functions, APIs, routes and webhooks as a project
 * (a switchyard.yaml and one file per function), such that applying it plans
 * nothing. Values the API never shows (function env, sensitive webhook
 * headers, webhook secrets) become `${env:NAME}` placeholders, listed in
 * `env_vars`: set them to the real values before applying the export.
 * A function's schedules, events and async settings are written when not the
 * default, its destinations by name (`{webhook: name}`, `{function: name}`).
 */
import { stringify } from 'yaml';
import type { ProjectApi, RemoteWebhook } from './api.js';
import { PROJECT_DEFAULTS } from './defaults.js';
import { exportTriggers } from './function-triggers.js';
import { hasMaskedCredential } from '../webhooks/masking.js';

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

export async function exportProject(api: ProjectApi): Promise<ExportedProject> {
  const [functions, apis, webhooks] = await Promise.all([api.listFunctions(), api.listApis(), api.listWebhooks()]);
  const files: Record<string, string> = {};
  const envVars: ExportedProject['env_vars'] = [];
  const notes: string[] = [];
  const fd = PROJECT_DEFAULTS.function;

  // An env key held by one function is read from the variable of the same name; one held by several, from FUNCTION_KEY.
  const holders = new Map<string, number>();
  for (const fn of functions) for (const key of fn.env_keys) holders.set(key, (holders.get(key) ?? 0) + 1);

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
    const entry: Record<string, unknown> = { file };
    if (fn.handler !== null) entry.handler = fn.handler;
    if (fn.event_format !== fd.event_format) entry.event_format = fn.event_format;
    if (fn.env_keys.length > 0) {
      const env: Record<string, string> = {};
      for (const key of fn.env_keys) {
        const name = holders.get(key) === 1 ? envName(key) : envName(fn.name, key);
        env[key] = `\${env:${name}}`;
        envVars.push({ name, for: `functions.${fn.name}.env.${key}` });
      }
      entry.env = env;
    }
    if (fn.timeout_ms !== fd.timeout_ms) entry.timeout_ms = fn.timeout_ms;
    if (fn.memory_mb !== fd.memory_mb) entry.memory_mb = fn.memory_mb;
    Object.assign(entry, exportTriggers(fn, (id) => hookNames.get(id), notes));
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
      routes: a.routes.map((r) => ({ method: r.method, path: r.path, function: r.function })),
    };
  }

  const hookDoc: Record<string, unknown> = {};
  for (const w of webhooks) {
    if (w.name in hookDoc) {
      notes.push(`webhook ${w.id} is not exported: another webhook is named '${w.name}'`);
      continue;
    }
    hookDoc[w.name] = webhookEntry(w, apiNames, invokeUrls, envVars);
  }

  const doc: Record<string, unknown> = { version: 1 };
  if (Object.keys(fnDoc).length > 0) doc.functions = fnDoc;
  if (Object.keys(apiDoc).length > 0) doc.apis = apiDoc;
  if (Object.keys(hookDoc).length > 0) doc.webhooks = hookDoc;
  const header =
    '# Exported by `switchyard export`. Values the server never shows are ${env:NAME} placeholders:\n' +
    (envVars.length > 0 ? envVars.map((v) => `#   ${v.name}: ${v.for}\n`).join('') : '#   (none)\n');
  files['switchyard.yaml'] = header + stringify(doc, { lineWidth: 0 });
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
  envVars: ExportedProject['env_vars'],
): Record<string, unknown> {
  const wd = PROJECT_DEFAULTS.webhook;
  const target = apiTarget(w.target_url, invokeUrls);
  const entry: Record<string, unknown> = target ? { target } : { target_url: w.target_url };
  if (!target && hasMaskedCredential(w.target_url)) {
    // Its credentials were masked: the real URL comes from the environment, like a masked header.
    const variable = envName('WEBHOOK', w.name, 'TARGET_URL');
    entry.target_url = `\${env:${variable}}`;
    envVars.push({ name: variable, for: `webhooks.${w.name}.target_url` });
  }
  entry.method = w.method;
  if (Object.keys(w.headers).length > 0) {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(w.headers)) {
      if (value.startsWith('***')) {
        const variable = envName('WEBHOOK', w.name, name);
        headers[name] = `\${env:${variable}}`;
        envVars.push({ name: variable, for: `webhooks.${w.name}.headers.${name}` });
      } else headers[name] = value;
    }
    entry.headers = headers;
  }
  entry.payload_template = w.payload_template;
  if (w.cron !== null) entry.cron = w.cron;
  if (w.timezone !== wd.timezone) entry.timezone = w.timezone;
  if (w.mock_endpoint) entry.mock_endpoint = { api: apiNames.get(w.mock_endpoint.api_id) ?? w.mock_endpoint.api_id, path: w.mock_endpoint.path };
  if (w.events.length > 0) entry.events = w.events;
  if (w.enabled !== wd.enabled) entry.enabled = w.enabled;
  if (w.has_secret) {
    const variable = envName('WEBHOOK', w.name, 'SECRET');
    entry.secret = `\${env:${variable}}`;
    envVars.push({ name: variable, for: `webhooks.${w.name}.secret` });
  }
  if (w.retry.max_attempts !== wd.max_attempts || w.retry.schedule_s) entry.retry = w.retry;
  if (w.timeout_ms !== wd.timeout_ms) entry.timeout_ms = w.timeout_ms;
  return entry;
}
