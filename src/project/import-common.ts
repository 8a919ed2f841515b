/**
 * What the serverless.yml and SAM importers share: Lambda's `file.export`
 * handler split into a file and an export, methods and paths in API Gateway
 * syntax, limits clamped to Switchyard's, and the project document they
 * build with the notes on what was not carried.
 *
 * An import may come from someone else, so it hands nothing of the
 * operator's to the project: a value it cannot resolve (`${ssm:...}`,
 * `!GetAtt`) is left unset and listed, never turned into a `${env:}` that
 * apply would fill from the operator's shell; and a function file outside
 * the imported file's folder is refused. The YAML is written through the
 * `yaml` library's document API, comments included, so no name or note can
 * become a key of the file.
 */
import { isAbsolute, normalize, sep } from 'node:path';
import { Document } from 'yaml';
import { validateRoutePath } from '../gateway/paths.js';
import type { EventFormat, RouteMethod } from '../types.js';
import { OutsideProjectError, type FileCors, type FileThrottle, type FileUsagePlan, type ProjectApiSettings, type ProjectDocument, type ProjectProblem, type ProjectRoute } from './types.js';
import type { FileAuthorizer } from './types.js';
import { awsScheduleToCron } from './aws-schedule.js';
import { envNames, isServerVariable, SERVER_VARIABLE_REFUSAL } from './env-names.js';
import { prefixNames, projectPrefix } from './import-names.js';

type FunctionSpec = NonNullable<ProjectDocument['functions']>[string];
type ScheduleSpec = NonNullable<FunctionSpec['schedules']>[number];

/** An AWS schedule's `input`: a JSON object (or its text) becomes the payload; anything else is reported. */
export function schedulePayload(input: unknown, where: string, notes: string[]): Record<string, unknown> | undefined {
  if (input === undefined || input === null) return undefined;
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch {
      notes.push(`${where}: the input is not JSON; not carried`);
      return undefined;
    }
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  notes.push(`${where}: the input ${JSON.stringify(value)} is not a JSON object (a schedule's payload is one); not carried`);
  return undefined;
}

/**
 * An AWS schedule expression as a function schedule, or undefined after a
 * note saying why it cannot be (see aws-schedule.ts for the translation).
 */
export function scheduleFrom(
  expression: unknown,
  where: string,
  notes: string[],
  extra: { timezone?: unknown; input?: unknown } = {},
): ScheduleSpec | undefined {
  if (typeof expression !== 'string') {
    notes.push(`${where}: schedule ${JSON.stringify(expression)} is not a rate(...) or cron(...) text; not carried`);
    return undefined;
  }
  const result = awsScheduleToCron(expression);
  if ('refused' in result) {
    notes.push(`${where}: ${result.refused}; not carried`);
    return undefined;
  }
  if (result.note) notes.push(`${where}: ${expression.trim()} is '${result.cron}' (${result.note})`);
  const spec: ScheduleSpec = { cron: result.cron };
  if (typeof extra.timezone === 'string' && extra.timezone !== 'UTC') spec.timezone = extra.timezone;
  const payload = schedulePayload(extra.input, where, notes);
  if (payload) spec.payload = payload;
  return spec;
}

/**
 * An EventBridge pattern's `detail-type` list as event names to subscribe
 * to; the rest of the pattern (`source`, `detail`...) is reported, since
 * Switchyard matches on the event name alone.
 */
export function eventsFromPattern(pattern: unknown, where: string, notes: string[]): string[] {
  const p = typeof pattern === 'object' && pattern !== null && !Array.isArray(pattern) ? (pattern as Record<string, unknown>) : {};
  const types = p['detail-type'];
  const names = Array.isArray(types) ? types.filter((t): t is string => typeof t === 'string' && t.length > 0 && t.length <= 200) : [];
  if (names.length === 0 || (Array.isArray(types) && names.length !== types.length)) {
    notes.push(`${where}: only a pattern with a detail-type list of names maps to function events; not carried`);
    return [];
  }
  const rest = Object.keys(p).filter((k) => k !== 'detail-type');
  if (rest.length > 0) notes.push(`${where}: ${rest.join(', ')} of the pattern not carried (functions subscribe by event name: the detail-type)`);
  return names;
}

/** Why a function setting of AWS's has no counterpart here, by the setting's name in lower case (SAM's and serverless.yml's). */
const WHY_NOT: Record<string, string> = {
  layers: 'a function is one file: bundle what the layer held into it; apply, dev and deploy bundle the npm packages in node_modules',
  role: 'functions have no AWS identity: give the code credentials through env if it calls AWS',
  policies: 'functions have no AWS identity: give the code credentials through env if it calls AWS',
  iam: 'functions have no AWS identity: give the code credentials through env if it calls AWS',
  iamrolestatements: 'functions have no AWS identity: give the code credentials through env if it calls AWS',
  iammanagedpolicies: 'functions have no AWS identity: give the code credentials through env if it calls AWS',
  permissionsboundary: 'functions have no AWS identity: give the code credentials through env if it calls AWS',
  rolepermissionsboundary: 'functions have no AWS identity: give the code credentials through env if it calls AWS',
  assumerolepolicydocument: 'functions have no AWS identity: give the code credentials through env if it calls AWS',
  vpc: 'functions reach what the server reaches',
  vpcconfig: 'functions reach what the server reaches',
  deadletterqueue: 'a failed asynchronous run goes to an async.on_failure destination',
  onerror: 'a failed asynchronous run goes to an async.on_failure destination',
  reservedconcurrentexecutions: 'functions run in the server\'s pool of isolates',
  reservedconcurrency: 'functions run in the server\'s pool of isolates',
  provisionedconcurrencyconfig: 'functions run in the server\'s pool of isolates',
  provisionedconcurrency: 'functions run in the server\'s pool of isolates',
  filesystemconfigs: 'functions have no file system',
  filesystemconfig: 'functions have no file system',
};

/**
 * One note per reason for the settings of `keys` Switchyard does not carry
 * (`Resources.Fn.Properties: Role, Policies not carried (functions have no
 * AWS identity: ...)`); the others without a reason of their own together.
 */
export function uncarriedSettings(where: string, keys: string[], notes: string[]): void {
  const byReason = new Map<string, string[]>();
  for (const key of keys) {
    const reason = WHY_NOT[key.toLowerCase()] ?? '';
    byReason.set(reason, [...(byReason.get(reason) ?? []), key]);
  }
  for (const [reason, group] of byReason) notes.push(`${where}: ${group.join(', ')} not carried${reason ? ` (${reason})` : ''}`);
}

/** What a CloudFormation resource of a template (or serverless.yml's `resources`) that is not a function becomes: a note, or nothing for those that mean nothing here. */
export function resourceNote(where: string, type: unknown): string | null {
  const t = typeof type === 'string' ? type : JSON.stringify(type);
  if (t === 'AWS::Serverless::SimpleTable' || t === 'AWS::DynamoDB::Table' || t === 'AWS::DynamoDB::GlobalTable') {
    return `${where}: ${t} is not carried: Switchyard has no tables; keep the data in a database of your own and give the functions its address in env`;
  }
  if (t === 'AWS::Serverless::LayerVersion' || t === 'AWS::Lambda::LayerVersion') {
    return `${where}: ${t} is not carried: a function is one file; bundle what the layer holds into the functions that use it`;
  }
  if (t.startsWith('AWS::IAM::')) return `${where}: ${t} is not carried: functions have no AWS identity`;
  // Permissions to invoke a function and its log group mean nothing here.
  if (t === 'AWS::Lambda::Permission' || t === 'AWS::Logs::LogGroup') return null;
  return `${where}: ${t} is not carried (Switchyard carries functions, their routes, schedules and events)`;
}

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface ImportOptions {
  /** Whether a file exists, relative to the imported file: picks the handler file's extension. Default: `.js`. */
  exists?: (relativePath: string) => boolean;
  /**
   * Where a function file relative to the imported file really lies when
   * that is outside the folder (symlinks resolved, allowed folders taken
   * into account), else null. Default: the path's text alone (absolute, or
   * `..` out of the folder).
   */
  outside?: (relativePath: string) => string | null;
  /**
   * The text of a file of the project, relative to the imported file, for
   * Serverless's `${file(./secrets.json):KEY}`; null when it is not there or
   * lies outside the folder (an import never reads anything of yours).
   * Default: no file is read.
   */
  readFile?: (relativePath: string) => string | null;
  /** The imported file's name, for problems. */
  file?: string;
  /**
   * Prefix every function, API and usage plan with the project's name
   * (import-names.ts); default false (the names as the file writes them).
   */
  prefixNames?: boolean;
  /** The project's name: default the Serverless `service`, or for SAM `sam-app` (what `sam init` names a stack). */
  project?: string;
}

/** An environment value the import could not resolve: left unset. */
export interface UnresolvedValue {
  /** Where in the imported file (`provider.environment.DB_URL`). */
  where: string;
  /** The variable of the function(s) left unset. */
  key: string;
  /** The value as written (`${ssm:/db/url}`, `{"Fn::GetAtt":["Db","Arn"]}`). */
  value: string;
}

/** A handler file the import did not find (any of the extensions a handler may have). */
export interface MissingFile {
  /** Where the file names it (`functions.hello.handler`). */
  where: string;
  /** The path relative to the imported file's folder, as the project writes it. */
  file: string;
}

export interface ImportResult {
  /** The project's name (written as the file's `project`): apply records it as the owner of what it creates. */
  project: string;
  /** The project, as switchyard.yaml would hold it (paths relative to the imported file's folder). */
  document: ProjectDocument;
  /** The same, as YAML text. */
  yaml: string;
  /** What was not carried over, or was changed on the way. */
  notes: string[];
  /** Environment values left unset because only their platform can resolve them. */
  unresolved: UnresolvedValue[];
  /** Environment variables the project reads (`${env:NAME}` kept from serverless.yml): apply needs them allowed. */
  reads: string[];
  /** Handler files not found: the file is written, but apply fails until they exist. */
  missing: MissingFile[];
}

/** The lexical rule: absolute, or leaving the folder through `..`. */
export function lexicallyOutside(relativePath: string): boolean {
  if (isAbsolute(relativePath) || /^[A-Za-z]:/.test(relativePath)) return true;
  const n = normalize(relativePath);
  return n === '..' || n.startsWith(`..${sep}`) || n.startsWith('../');
}

const EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts', '.mts'];
const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** `src/handler.hello` -> `{ file: 'src/handler.js', handler: 'hello' }` (the extension found on disk, else .js). */
export function splitHandler(handler: string, dir: string, options: ImportOptions): { file: string; handler: string; found: boolean } {
  const dot = handler.lastIndexOf('.');
  const base = dot > 0 ? handler.slice(0, dot) : handler;
  const exported = dot > 0 ? handler.slice(dot + 1) : 'handler';
  const prefix = dir ? `${dir.replace(/\/+$/, '').replace(/^\.\//, '')}/` : '';
  const stem = `${prefix}${base.replace(/^\.\//, '')}`;
  const found = EXTENSIONS.map((ext) => stem + ext).find((f) => options.exists?.(f));
  return { file: found ?? `${stem}.js`, handler: exported, found: found !== undefined || options.exists === undefined };
}

export function functionName(name: string, notes: string[]): string {
  if (NAME.test(name)) return name;
  const fixed = (/^[A-Za-z]/.test(name) ? name : `fn-${name}`).replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 64);
  // JSON quoting: a name with line breaks or control characters stays on one line of the notes.
  notes.push(`function ${JSON.stringify(name)} is named '${fixed}' (names are letters, digits, _ and -)`);
  return fixed;
}

/** `get` -> GET, `any` and `*` -> ANY. */
export function routeMethod(method: string): RouteMethod | null {
  const m = method.trim().toUpperCase();
  if (m === '*' || m === 'ANY') return 'ANY';
  return (['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const).find((x) => x === m) ?? null;
}

/** `users/{id}` -> `/users/{id}`; a trailing slash dropped. */
export function routePath(path: string): string {
  const p = `/${path.trim().replace(/^\/+/, '')}`;
  return p.length > 1 ? p.replace(/\/+$/, '') : p;
}

/** Lambda's MaximumRetryAttempts (0 to 2) as `async.retries`; undefined when absent or not a number. */
export function retriesOf(value: unknown, where: string, notes: string[]): number | undefined {
  if (value === undefined || value === null) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    notes.push(`${where}: ${JSON.stringify(value)} is not a number of retries; not carried`);
    return undefined;
  }
  if (n > 5) {
    notes.push(`${where}: ${n} retries is above Switchyard's 5; set to 5`);
    return 5;
  }
  return n;
}

/** Lambda's seconds to timeout_ms, within Switchyard's 1 to 900000. */
export function timeoutMs(seconds: unknown): number | undefined {
  const n = Number(seconds);
  return Number.isFinite(n) && n > 0 ? Math.min(Math.round(n * 1000), 900_000) : undefined;
}

/** Lambda's MemorySize to memory_mb: Switchyard's isolates take 8 to 1024 MB. */
export function memoryMb(mb: unknown, where: string, notes: string[]): number | undefined {
  const n = Number(mb);
  if (!Number.isFinite(n) || n <= 0) return undefined;
  if (n > 1024) {
    notes.push(`${where}: memory ${n} MB is above Switchyard's 1024 MB; set to 1024`);
    return 1024;
  }
  return Math.max(8, Math.round(n));
}

/** A media type as binaryMediaTypes takes it (schema/switchyard.schema.json's pattern). */
const MEDIA_TYPE = /^(\*|[A-Za-z0-9!#$&^_.+-]+)\/(\*|[A-Za-z0-9!#$&^_.+-]+)$/;

/** Builds the document, one function per (name, event format): a function on both a REST and an HTTP API is split. */
export class ProjectBuilder {
  readonly document: ProjectDocument = { version: 1, functions: {}, apis: {} };
  readonly notes: string[] = [];
  readonly unresolved: UnresolvedValue[] = [];
  /** Handler files not found beside the imported file (each once): listed, the import still written. */
  readonly missing: MissingFile[] = [];
  /** Function files outside the imported file's folder: the import is refused. */
  private readonly outside: ProjectProblem[] = [];
  /** `METHOD path` of each API's routes, for the duplicate check (a scan of the routes was quadratic). */
  private readonly routeKeys = new Map<string, Set<string>>();
  /** Each API's settings, written when its first route makes it (an API without routes is not imported). */
  private readonly apiSettings = new Map<string, ProjectApiSettings>();

  /** The project's name, as the importer read it from the file (a Serverless `service`) unless the options give one. */
  project: string;

  constructor(private readonly options: ImportOptions = {}, project = 'sam-app') {
    this.project = options.project ?? project;
  }

  /**
   * An API's `minimumCompressionSize` and `binaryMediaTypes` as the imported
   * file sets them (SAM's `~1` for `/` read as `/`); a value that is not
   * one is listed in the notes, never dropped silently.
   */
  setApiSettings(api: string, given: { minimumCompressionSize?: unknown; binaryMediaTypes?: unknown }, where: string): void {
    const settings: ProjectApiSettings = { ...this.apiSettings.get(api) };
    const size = given.minimumCompressionSize;
    if (size !== undefined && size !== null) {
      const n = typeof size === 'string' && /^\d+$/.test(size) ? Number(size) : size;
      if (typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 10_485_760) settings.minimum_compression_size = n;
      else this.notes.push(`${where}.minimumCompressionSize: ${JSON.stringify(size)} is not carried (an integer from 0 to 10485760)`);
    }
    const types = given.binaryMediaTypes;
    if (types !== undefined && types !== null) {
      const list: string[] = [];
      for (const t of Array.isArray(types) ? types : [types]) {
        const type = typeof t === 'string' ? t.replaceAll('~1', '/').trim() : '';
        if (MEDIA_TYPE.test(type)) list.push(type);
        else this.notes.push(`${where}.binaryMediaTypes: ${JSON.stringify(t)} is not carried (a media type such as image/png or image/*)`);
      }
      if (list.length > 0) settings.binary_media_types = list;
    }
    this.apiSettings.set(api, settings);
    const existing = this.document.apis![api];
    if (existing) Object.assign(existing, settings);
  }

  /** The handler's file and export; null (and the import refused) when the file lies outside the folder. */
  fileOf(handler: string, dir: string, where: string): { file: string; handler: string } | null {
    const { found, ...split } = splitHandler(handler, dir, this.options);
    const real = this.options.outside ? this.options.outside(split.file) : lexicallyOutside(split.file) ? split.file : null;
    if (real === null) {
      // Said now rather than at apply: a handler path written for a build step (dist/, .build/) is the usual cause.
      if (!found && !this.missing.some((m) => m.file === split.file)) this.missing.push({ where, file: split.file });
      return split;
    }
    const leads = real !== split.file ? ` (it resolves to ${real})` : '';
    this.outside.push({
      file: this.options.file ?? 'the imported file',
      path: where,
      message: `the function file ${split.file} is outside the folder of the imported file${leads}; pass --allow-outside <folder> to allow a folder outside it`,
    });
    return null;
  }

  /** An environment value that cannot be resolved here: left unset, listed (never read from the operator's environment). */
  leaveUnset(where: string, key: string, value: unknown): void {
    this.unresolved.push({ where, key, value: typeof value === 'string' ? value : JSON.stringify(value) });
  }

  /**
   * An environment value as the importer resolved it (undefined: it could
   * not), or undefined after listing it as unset. One that reads a
   * `SWITCHYARD_` variable is unset too: the loader would refuse it.
   */
  envValue(where: string, key: string, raw: unknown, resolved: string | undefined): string | undefined {
    if (resolved !== undefined && !envNames(resolved).some(isServerVariable)) return resolved;
    this.leaveUnset(where, key, resolved === undefined ? raw : `${resolved} (${SERVER_VARIABLE_REFUSAL})`);
    return undefined;
  }

  addFunction(name: string, spec: NonNullable<ProjectDocument['functions']>[string]): void {
    this.document.functions![name] = spec;
  }
  /** A schedule of the function (at most 20, as the server takes). */
  addSchedule(name: string, schedule: ScheduleSpec, where: string): void {
    const fn = this.document.functions![name];
    fn.schedules ??= [];
    if (fn.schedules.length >= 20) {
      this.notes.push(`${where}: a function has at most 20 schedules; not carried`);
      return;
    }
    fn.schedules.push(schedule);
  }

  /**
   * Lambda's asynchronous invocation settings: `retries` (Lambda's 0 to 2
   * fit Switchyard's 0 to 5), and destinations that name another function of
   * the file (checked in result(): one the import did not carry is dropped).
   */
  setAsync(name: string, async: NonNullable<FunctionSpec['async']>): void {
    const fn = this.document.functions![name];
    const out: NonNullable<FunctionSpec['async']> = {};
    if (async.retries !== undefined) out.retries = async.retries;
    if (async.on_success) out.on_success = async.on_success;
    if (async.on_failure) out.on_failure = async.on_failure;
    if (Object.keys(out).length > 0) fn.async = out;
  }

  /** Event names the function subscribes to (once each, at most 50). */
  addEvents(name: string, names: string[], where: string): void {
    const fn = this.document.functions![name];
    fn.events ??= [];
    for (const event of names) {
      if (fn.events.includes(event)) continue;
      if (fn.events.length >= 50) {
        this.notes.push(`${where}: a function subscribes to at most 50 events; '${event}' not carried`);
        continue;
      }
      fn.events.push(event);
    }
  }

  /** The function to route for this event format: the function itself, or a copy named `<name>-v1`/`-v2` for the other format. */
  functionFor(name: string, format: EventFormat): string {
    const fns = this.document.functions!;
    const fn = fns[name];
    if (fn.event_format === undefined) {
      fn.event_format = format;
      return name;
    }
    if (fn.event_format === format) return name;
    const copy = `${name}-${format === 'aws-v1' ? 'v1' : 'v2'}`.slice(0, 64);
    if (!fns[copy]) {
      // The copy serves HTTP only: schedules and events stay with the function, or they would run twice.
      const { schedules: _schedules, events: _events, ...http } = fn;
      fns[copy] = { ...http, event_format: format };
      this.notes.push(`function '${name}' serves both a REST and an HTTP API: '${copy}' is a copy with the ${format} event format`);
    }
    return copy;
  }

  addRoute(api: string, route: ProjectRoute, where: string): void {
    const problem = validateRoutePath(route.path);
    if (problem) {
      this.notes.push(`${where}: ${route.method} ${route.path} is not carried (${problem})`);
      return;
    }
    const apis = this.document.apis!;
    // Imported from API Gateway: its clients read API Gateway's error answers ({"message": "Unauthorized"}).
    apis[api] ??= { base_path: '/', error_format: 'aws', ...this.apiSettings.get(api), routes: [] };
    let keys = this.routeKeys.get(api);
    if (!keys) this.routeKeys.set(api, (keys = new Set()));
    const key = `${route.method} ${route.path}`;
    if (keys.has(key)) {
      this.notes.push(`${where}: ${route.method} ${route.path} is already routed in API '${api}'; kept the first`);
      return;
    }
    keys.add(key);
    apis[api].routes!.push(route);
  }

  /**
   * A function URL as an API of its own (`<function>-url`): `ANY /` and
   * `ANY /{proxy+}` to the function, which gets Lambda's payload 2.0 as a
   * URL's invocations do; its CORS the URL's.
   */
  addFunctionUrl(name: string, where: string, cors: FileCors | null): void {
    const api = `${name}-url`.slice(0, 200);
    const fn = this.functionFor(name, 'aws-v2');
    this.addRoute(api, { method: 'ANY', path: '/', function: fn }, where);
    this.addRoute(api, { method: 'ANY', path: '/{proxy+}', function: fn }, where);
    if (cors) this.setCors(api, cors);
  }

  /** A throttle for each route of the API that has none of its own (AWS's stage default applies per method or route). */
  setRouteThrottles(api: string, throttle: FileThrottle): void {
    for (const route of this.document.apis?.[api]?.routes ?? []) route.throttle ??= { ...throttle };
  }

  /** Usage plans; in result(), each covers only the APIs the import wrote (the others are listed). */
  addUsagePlans(plans: Record<string, FileUsagePlan>): void {
    if (Object.keys(plans).length === 0) return;
    this.document.usage_plans = { ...this.document.usage_plans, ...plans };
  }

  /** The API's `cors`, once it has routes (an API without routes is not written). */
  setCors(api: string, cors: FileCors): void {
    const entry = this.document.apis?.[api];
    if (entry) entry.cors = cors;
  }

  /** The API's `authorizers` and `default_authorizer`, once it has routes (import-authorizers.ts checks them first). */
  setAuthorizers(api: string, authorizers: FileAuthorizer[], defaultAuthorizer: string | null): void {
    const entry = this.document.apis?.[api];
    if (!entry || authorizers.length === 0) return;
    entry.authorizers = authorizers;
    if (defaultAuthorizer !== null) entry.default_authorizer = defaultAuthorizer;
  }

  result(): ImportResult {
    if (this.outside.length > 0) throw new OutsideProjectError(this.outside);
    // The name as the project file's `project` takes it (what a prefix may hold: a folder may be named anything).
    const project = projectPrefix(this.project) ?? 'app';
    if (this.options.prefixNames) prefixNames(this.document, project);
    const grouped = groupNotes(this.notes);
    this.notes.length = 0;
    this.notes.push(...grouped);
    const fns = this.document.functions!;
    for (const [name, fn] of Object.entries(fns)) {
      for (const key of ['on_success', 'on_failure'] as const) {
        const d = fn.async?.[key];
        if (d && 'function' in d && !fns[d.function]) {
          this.notes.push(`functions.${name}: the ${key} destination '${d.function}' was not carried; left out`);
          delete fn.async![key];
        }
      }
      if (fn.async && Object.keys(fn.async).length === 0) delete fn.async;
      // A function no HTTP event calls still gets a Lambda event format: its code expects one.
      if (fn.event_format === undefined) fn.event_format = 'aws-v2';
      if (Object.keys(fn.env ?? {}).length === 0) delete fn.env;
    }
    for (const [name, plan] of Object.entries(this.document.usage_plans ?? {})) {
      const missing = plan.apis.filter((a) => !this.document.apis![a]);
      if (missing.length === 0) continue;
      plan.apis = plan.apis.filter((a) => this.document.apis![a]);
      this.notes.push(`usage_plans.${name}: API ${missing.join(', ')} has no route here; left out of the plan`);
      if (plan.apis.length === 0) delete this.document.usage_plans![name];
    }
    if (this.document.usage_plans && Object.keys(this.document.usage_plans).length === 0) delete this.document.usage_plans;
    if (Object.keys(this.document.apis!).length === 0) delete this.document.apis;
    const reads = [...new Set(stringsOf(this.document).flatMap(envNames))].sort();
    const { version, ...rest } = this.document;
    const doc = new Document({ version, project, ...rest });
    // Comments through the library: each line of a note is a comment line, whatever it holds.
    doc.commentBefore = importHeader(this.notes, this.unresolved, reads, this.missing);
    this.document.project = project;
    return { project, document: this.document, yaml: doc.toString({ lineWidth: 0 }), notes: this.notes, unresolved: this.unresolved, reads, missing: this.missing };
  }
}

/** `functions.a.events[0]: cors not carried`: the place (a key path), then what. */
const PLACED = /^([A-Za-z0-9_$.[\]{}/-]+): (.+)$/s;

/**
 * The same note at several places is one note naming them all
 * (`functions.create.events[0], functions.list.events[0]: cors not
 * carried`), at the first one's turn; a note said twice at one place, once.
 */
export function groupNotes(notes: readonly string[]): string[] {
  const places = new Map<string, string[]>();
  for (const note of notes) {
    const m = PLACED.exec(note);
    const [where, what] = m ? [m[1], m[2]] : ['', note];
    const list = places.get(what);
    if (!list) places.set(what, [where]);
    else if (!list.includes(where)) list.push(where);
  }
  return [...places].map(([what, wheres]) => (wheres[0] === '' && wheres.length === 1 ? what : `${wheres.filter(Boolean).join(', ')}: ${what}`));
}

/** Every string of a document, keys left out. */
function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsOf(v, out);
  return out;
}

/** The comment at the top of an imported file: what changed, what was left unset, what it reads. */
function importHeader(notes: string[], unresolved: UnresolvedValue[], reads: string[], missing: MissingFile[]): string | null {
  const parts: string[] = [];
  if (missing.length > 0) parts.push(' Handler files not found (apply fails until they exist):', ...missing.map((m) => `   - ${m.file} (${m.where})`));
  if (notes.length > 0) parts.push(' Imported; not carried or changed:', ...notes.map((n) => `   - ${n}`));
  if (unresolved.length > 0) {
    parts.push(' Left unset (only the platform can resolve these; set them under env yourself):', ...unresolved.map((u) => `   - ${u.where}: ${u.value}`));
  }
  if (reads.length > 0) {
    parts.push(` Reads the environment variables ${reads.join(', ')}: apply reads them only once allowed (env_from, or --env-from).`);
  }
  return parts.length > 0 ? parts.join('\n') : null;
}
