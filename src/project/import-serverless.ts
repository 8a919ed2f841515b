/**
 * `switchyard import serverless.yml`: a Serverless Framework service as a
 * project. `functions` become functions (`handler: file.export` split into
 * file and handler, `timeout` seconds, `memorySize`, `environment` merged
 * over `provider.environment`), `http` events routes of a REST API (aws-v1
 * events) and `httpApi` events routes of an HTTP API (aws-v2, or aws-v1 with
 * `provider.httpApi.payload: '1.0'`). Variables: `${self:...}`, `${sls:stage}`,
 * `${opt:stage}`/`${opt:region}` and fallbacks are resolved, and so is
 * `${file(./x.json):key}` of a file inside the service's folder (JSON or YAML
 * read, any other file's text whole; a `.js`/`.ts` file is never run); `${env:NAME}` is
 * kept (the project file reads it the same way, once allowed); an
 * environment value of any other source (`${ssm:...}`, a CloudFormation
 * value) is left unset and listed; anything else is reported.
 * `schedule` events become function schedules (AWS's rate() and cron()
 * translated by aws-schedule.ts, `input` as the payload), `eventBridge`
 * events with a `pattern.detail-type` list event subscriptions.
 */
import { ProjectError, type FileCors } from './types.js';
import { mergeCors, serverlessHttpApiCors, serverlessHttpCors } from './import-cors.js';
import { serverlessRequest } from './import-request.js';
import { serverlessUsagePlans } from './import-keys.js';
import { ServerlessAuthorizers } from './import-authorizers.js';
import { parseCfnYaml } from './cfn-yaml.js';
import { parse as parseYaml } from 'yaml';
import {
  ProjectBuilder,
  eventsFromPattern,
  functionName,
  scheduleFrom,
  memoryMb,
  resourceNote,
  retriesOf,
  routeMethod,
  uncarriedSettings,
  routePath,
  timeoutMs,
  isObj,
  type ImportOptions,
  type ImportResult,
  type Obj,
} from './import-common.js';


const VARIABLE = /\$\{([^${}]+)\}/;

/** `file(./secrets.json)`: the path of a `${file(...)}` source. */
const FILE_SOURCE = /^file\((.+)\)$/;

class Variables {
  constructor(
    private readonly doc: Obj,
    private notes: string[],
    private readonly readFile: (relativePath: string) => string | null = () => null,
  ) {}

  /** Files a `${file()}` of the value being resolved read: said in a note, since their values land in the project file. */
  private filesRead: string[] = [];

  /** `${file(path):a.b}`: the file's value at `a.b` (the whole text when there is no key). */
  private fromFile(path: string, address: string): string | undefined {
    const rel = path.trim().replace(/^['"]|['"]$/g, '');
    // A JavaScript or TypeScript file computes its value when run, which an import never does.
    if (/\.(c|m)?[jt]s$/i.test(rel)) return undefined;
    const text = this.readFile(rel);
    if (text === null) return undefined;
    this.filesRead.push(rel);
    if (address === '' && !/\.(json|ya?ml)$/i.test(rel)) return text;
    let value: unknown;
    try {
      value = /\.json$/i.test(rel) ? JSON.parse(text) : parseYaml(text);
    } catch {
      return undefined;
    }
    for (const key of address.split('.').filter(Boolean)) value = isObj(value) ? value[key] : undefined;
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
  }

  /** Where later notes go (the builder's, once the service's name has made it). */
  notesTo(notes: string[]): void {
    this.notes = notes;
  }

  private stage(): string {
    const provider = isObj(this.doc.provider) ? this.doc.provider : {};
    return typeof provider.stage === 'string' && !provider.stage.includes('${') ? provider.stage : 'dev';
  }

  private lookup(ref: string): string | undefined {
    const [source, ...rest] = ref.split(':');
    const address = rest.join(':').trim();
    const file = FILE_SOURCE.exec(source.trim());
    if (file) return this.fromFile(file[1], address);
    switch (source.trim()) {
      case 'self': {
        let value: unknown = this.doc;
        for (const key of address.split('.').filter(Boolean)) value = isObj(value) ? value[key] : undefined;
        return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
      }
      case 'sls':
        return address === 'stage' ? this.stage() : address === 'instanceId' ? 'local' : undefined;
      case 'opt':
        if (address === 'stage') return this.stage();
        if (address === 'region') {
          const provider = isObj(this.doc.provider) ? this.doc.provider : {};
          return typeof provider.region === 'string' ? provider.region : 'us-east-1';
        }
        return undefined;
      default: {
        const literal = /^\s*(['"])(.*)\1\s*$/.exec(ref);
        if (literal) return literal[2];
        if (/^\s*-?\d+(\.\d+)?\s*$/.test(ref)) return ref.trim();
        return undefined;
      }
    }
  }

  /**
   * Resolves the variables of one value. `${env:NAME}` stays (with its
   * fallback dropped); an unresolved one returns `undefined`, after a note
   * unless `quiet` (the caller lists it itself).
   */
  resolve(value: string, where: string, quiet = false): string | undefined {
    this.filesRead = [];
    const resolved = this.resolveText(value, where, quiet);
    if (resolved !== undefined && this.filesRead.length > 0) {
      // secrets.json is usually kept out of git; the project file it now fills is not, unless told.
      this.notes.push(`${where}: read from ${[...new Set(this.filesRead)].join(', ')} and written into this file: keep it as private as that file, or use \${env:NAME} with env_from`);
    }
    return resolved;
  }

  private resolveText(value: string, where: string, quiet: boolean): string | undefined {
    let text = value;
    const kept: string[] = [];
    for (let pass = 0; pass < 20; pass++) {
      const m = VARIABLE.exec(text);
      if (!m) break;
      const alternatives = m[1].split(',').map((a) => a.trim());
      const env = alternatives.find((a) => a.startsWith('env:'));
      let replacement: string | undefined;
      if (env) {
        if (alternatives.length > 1) this.notes.push(`${where}: the fallback of \${${m[1]}} is not carried; set ${env.slice(4)}`);
        kept.push(`\${env:${env.slice(4).trim()}}`);
        replacement = `\u0000${kept.length - 1}\u0000`;
      } else {
        for (const alt of alternatives) {
          replacement = this.lookup(alt);
          if (replacement !== undefined) break;
        }
      }
      if (replacement === undefined) {
        if (!quiet) this.notes.push(`${where}: \${${m[1]}} cannot be resolved here`);
        return undefined;
      }
      text = text.slice(0, m.index) + replacement + text.slice(m.index + m[0].length);
    }
    return text.replace(/\u0000(\d+)\u0000/g, (_, i: string) => kept[Number(i)]);
  }
}

/**
 * An `environment` mapping: the values that resolve, and the keys left unset
 * (listed by the builder) because only AWS can resolve their value.
 */
function envOf(raw: unknown, where: string, vars: Variables, b: ProjectBuilder): { env: Record<string, string>; unset: Set<string> } {
  const env: Record<string, string> = {};
  const unset = new Set<string>();
  if (!isObj(raw)) return { env, unset };
  for (const [key, value] of Object.entries(raw)) {
    const text =
      typeof value === 'string' ? vars.resolve(value, `${where}.${key}`, true) : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
    const resolved = b.envValue(`${where}.${key}`, key, value, text);
    if (resolved !== undefined) env[key] = resolved;
    else unset.add(key);
  }
  return { env, unset };
}

interface HttpEvent {
  kind: 'http' | 'httpApi';
  method: string;
  path: string;
  /** An `http` event's `cors` (true or its object form), as written. */
  cors?: unknown;
  /** An `http` event's `request` (schemas, parameters), as written. */
  request?: unknown;
  /** An `http` event's `private: true`: the route needs an API key. */
  private?: boolean;
  /** The event's `authorizer`, as written. */
  authorizer?: unknown;
}

function httpEvent(event: Obj, where: string, notes: string[]): HttpEvent | null {
  for (const kind of ['http', 'httpApi'] as const) {
    if (!(kind in event)) continue;
    const spec = event[kind];
    if (typeof spec === 'string') {
      if (spec.trim() === '*') return { kind, method: '*', path: '/{proxy+}' };
      const m = /^(\S+)\s+(\S+)$/.exec(spec.trim());
      if (!m) {
        notes.push(`${where}: '${spec}' is not 'METHOD path'; not carried`);
        return null;
      }
      return { kind, method: m[1], path: m[2] };
    }
    if (isObj(spec) && typeof spec.method === 'string' && typeof spec.path === 'string') {
      const carried = kind === 'http' ? ['method', 'path', 'cors', 'request', 'private', 'authorizer'] : ['method', 'path', 'authorizer'];
      const ignored = Object.keys(spec).filter((k) => !carried.includes(k));
      if (ignored.length > 0) notes.push(`${where}: ${ignored.join(', ')} not carried (Switchyard routes have method and path)`);
      const event: HttpEvent = { kind, method: spec.method, path: spec.path === '*' ? '/{proxy+}' : spec.path };
      if (kind === 'http' && spec.cors !== undefined && spec.cors !== false) event.cors = spec.cors;
      if (kind === 'http' && spec.request !== undefined) event.request = spec.request;
      if (kind === 'http' && spec.private === true) event.private = true;
      if (spec.authorizer !== undefined) event.authorizer = spec.authorizer;
      return event;
    }
    notes.push(`${where}: needs method and path; not carried`);
    return null;
  }
  return null;
}

/**
 * `maximumRetryAttempts` as `async.retries`; `destinations.onSuccess` /
 * `onFailure` naming another function of the service as a function
 * destination (an ARN, or `{type, arn}`, is reported: Switchyard has no
 * queues or topics; a webhook can stand in); `maximumEventAge` reported.
 */
function asyncSettings(b: ProjectBuilder, name: string, fn: Obj, where: string, functions: Obj): void {
  const retries = retriesOf(fn.maximumRetryAttempts, `${where}.maximumRetryAttempts`, b.notes);
  if (fn.maximumEventAge !== undefined) b.notes.push(`${where}.maximumEventAge: not carried (Switchyard keeps an invocation until its retries are spent)`);
  const destinations = isObj(fn.destinations) ? fn.destinations : {};
  const destination = (key: 'onSuccess' | 'onFailure') => {
    const value = destinations[key];
    if (value === undefined) return undefined;
    if (typeof value === 'string' && isObj(functions[value])) return { function: functionName(value, []) };
    b.notes.push(`${where}.destinations.${key}: ${JSON.stringify(value)} is not a function of this service; not carried (a webhook destination can stand in)`);
    return undefined;
  };
  b.setAsync(name, { retries, on_success: destination('onSuccess'), on_failure: destination('onFailure') });
}

/**
 * `url: true` or `url: {cors, authorizer, invokeMode}`: the function's URL
 * as an API of its own (the builder's addFunctionUrl). `authorizer:
 * aws_iam` has no counterpart (the URL is open) and a streamed response is
 * answered whole; both said.
 */
function functionUrl(b: ProjectBuilder, name: string, url: unknown, where: string): void {
  const spec = isObj(url) ? url : {};
  if (url !== true && !isObj(url)) {
    b.notes.push(`${where}: ${JSON.stringify(url)} is not true or a mapping; not carried`);
    return;
  }
  const cors = spec.cors === undefined || spec.cors === false ? null : serverlessHttpApiCors(spec.cors, ['*'], `${where}.cors`, b.notes);
  if (spec.authorizer !== undefined) b.notes.push(`${where}: authorizer not carried (IAM-signed calls have no counterpart: the URL's routes are open; give the API an authorizer)`);
  if (spec.invokeMode === 'RESPONSE_STREAM') b.notes.push(`${where}: invokeMode not carried (responses are answered whole, not streamed)`);
  const rest = Object.keys(spec).filter((k) => !['cors', 'authorizer', 'invokeMode'].includes(k));
  if (rest.length > 0) b.notes.push(`${where}: ${rest.join(', ')} not carried`);
  b.addFunctionUrl(name, where, cors);
}

/** Keys of a schedule event Switchyard has no use for (names, descriptions) and so drops without a word. */
const SCHEDULE_SILENT = ['name', 'description'];

/**
 * `schedule: rate(...)|cron(...)` or `{rate: [...], enabled, input, timezone,
 * ...}`: one function schedule per expression; a disabled one is reported
 * and skipped.
 */
function scheduleEvent(b: ProjectBuilder, fn: string, spec: unknown, at: string, vars: Variables): void {
  const text = (v: unknown, where: string) => (typeof v === 'string' ? (vars.resolve(v, where) ?? null) : v);
  if (typeof spec === 'string') {
    const expression = text(spec, at);
    if (expression === null) return;
    const schedule = scheduleFrom(expression, at, b.notes);
    if (schedule) b.addSchedule(fn, schedule, at);
    return;
  }
  if (!isObj(spec)) {
    b.notes.push(`${at}: schedule ${JSON.stringify(spec)} is not a rate(...) or cron(...) text or a mapping; not carried`);
    return;
  }
  const rates = Array.isArray(spec.rate) ? spec.rate : spec.rate === undefined ? [] : [spec.rate];
  if (spec.enabled === false) {
    b.notes.push(`${at}: schedule ${rates.map((r) => String(r)).join(', ')} is disabled (enabled: false); not carried`);
    return;
  }
  if (rates.length === 0) {
    b.notes.push(`${at}: schedule without a rate; not carried`);
    return;
  }
  const ignored = Object.keys(spec).filter((k) => !['rate', 'enabled', 'input', 'timezone', 'method', ...SCHEDULE_SILENT].includes(k));
  if (ignored.length > 0) b.notes.push(`${at}: ${ignored.join(', ')} not carried (a function schedule has a cron, a time zone and a payload)`);
  rates.forEach((rate, i) => {
    const where = rates.length > 1 ? `${at}.rate[${i}]` : at;
    const expression = text(rate, where);
    if (expression === null) return;
    const schedule = scheduleFrom(expression, where, b.notes, { input: spec.input, timezone: text(spec.timezone, `${at}.timezone`) });
    if (schedule) b.addSchedule(fn, schedule, where);
  });
}

/** `eventBridge` with a `pattern` whose `detail-type` lists names: the function subscribes to them; with a `schedule`, a schedule. */
function eventBridgeEvent(b: ProjectBuilder, fn: string, spec: unknown, at: string, vars: Variables): void {
  if (!isObj(spec)) {
    b.notes.push(`${at}: eventBridge ${JSON.stringify(spec)} is not a mapping; not carried`);
    return;
  }
  if (spec.enabled === false) {
    b.notes.push(`${at}: eventBridge rule is disabled (enabled: false); not carried`);
    return;
  }
  if (spec.schedule !== undefined) {
    scheduleEvent(b, fn, { rate: spec.schedule, input: spec.input }, at, vars);
    return;
  }
  const names = eventsFromPattern(spec.pattern, at, b.notes);
  if (names.length === 0) return;
  if (spec.eventBus !== undefined) b.notes.push(`${at}: eventBus not carried (Switchyard has one event bus)`);
  if (spec.input !== undefined || spec.inputPath !== undefined || spec.inputTransformer !== undefined) {
    b.notes.push(`${at}: input, inputPath and inputTransformer not carried (a subscribed function receives the event)`);
  }
  b.addEvents(fn, names, at);
}

/** Function keys the import reads, and those that change nothing here (names, tags, tracing, packaging). */
const FUNCTION_CARRIED = new Set(['handler', 'url', 'events', 'timeout', 'memorySize', 'environment', 'runtime', 'maximumRetryAttempts', 'maximumEventAge', 'destinations', 'image']);
const FUNCTION_SILENT = new Set(['name', 'description', 'tags', 'tracing', 'package', 'architecture', 'logRetentionInDays', 'disableLogs', 'versionFunction', 'runtimeManagement']);

/** Provider keys the import reads, and those that change nothing here (where and how AWS deploys, tags, log retention). */
const PROVIDER_READ = ['name', 'runtime', 'stage', 'region', 'environment', 'timeout', 'memorySize', 'apiGateway', 'httpApi', 'apiKeys', 'usagePlan'];
const PROVIDER_SILENT = [
  'profile', 'stackName', 'deploymentBucket', 'deploymentPrefix', 'deploymentMethod', 'tags', 'stackTags', 'architecture', 'logRetentionInDays',
  'versionFunctions', 'tracing', 'logs', 'disableRollback', 'lambdaHashingVersion', 'apiName', 'description',
];

/**
 * The provider's settings with no counterpart here (IAM, layers, VPC), said
 * once for every function; and `resources`, the CloudFormation of the
 * service (its tables, buckets, queues), one note per resource.
 */
function providerNotes(b: ProjectBuilder, provider: Obj, resources: unknown): void {
  const keys = ['iam', 'iamRoleStatements', 'iamManagedPolicies', 'role', 'rolePermissionsBoundary', 'layers', 'vpc'].filter((k) => provider[k] !== undefined);
  uncarriedSettings('provider', keys, b.notes);
  const others = Object.keys(provider).filter((k) => !keys.includes(k) && !PROVIDER_READ.includes(k) && !PROVIDER_SILENT.includes(k));
  uncarriedSettings('provider', others, b.notes);
  if (resources === undefined) return;
  const cfn = isObj(resources) && isObj(resources.Resources) ? resources.Resources : null;
  if (cfn === null) {
    b.notes.push('resources: not carried (CloudFormation of the service; Switchyard carries functions, their routes, schedules and events)');
    return;
  }
  for (const [id, resource] of Object.entries(cfn)) {
    const note = resourceNote(`resources.Resources.${id}`, isObj(resource) ? resource.Type : undefined);
    if (note) b.notes.push(note);
  }
}

/** Top-level keys the import reads (custom: through ${self:custom...}), and those that describe nothing a server runs. */
const SERVICE_READ = ['service', 'provider', 'functions', 'resources', 'custom'];
const SERVICE_SILENT = ['frameworkVersion', 'configValidationMode', 'variablesResolutionMode', 'deprecationNotificationMode', 'disabledDeprecations', 'org', 'app', 'console', 'dashboard'];
const SERVICE_WHY: Record<string, string> = {
  plugins: "plugins run in the Serverless Framework's deploy; what they add to the service is not here",
  package: 'apply, dev and deploy bundle each function file with its npm packages',
  layers: 'a function is one file: bundle what the layer holds into the functions that use it',
  useDotenv: 'apply reads only the variables env_from or --env-from allow',
  outputs: "a service's outputs have no counterpart",
};

/** The service's top-level keys with no counterpart, each by name. */
function serviceNotes(b: ProjectBuilder, doc: Obj): void {
  for (const key of Object.keys(doc)) {
    if (SERVICE_READ.includes(key) || SERVICE_SILENT.includes(key)) continue;
    b.notes.push(`${key}: not carried${SERVICE_WHY[key] ? ` (${SERVICE_WHY[key]})` : ''}`);
  }
}

/** `provider.apiGateway` keys the import reads. */
const API_GATEWAY_CARRIED = ['binaryMediaTypes', 'minimumCompressionSize', 'apiKeys', 'usagePlan'];

export function importServerless(yamlText: string, options: ImportOptions = {}): ImportResult {
  let doc: unknown;
  try {
    // CloudFormation's short tags parse too: a `!Ref` value is then a CloudFormation value, left unset.
    doc = parseCfnYaml(yamlText);
  } catch (err) {
    throw new ProjectError([{ file: options.file ?? 'serverless.yml', path: '', message: `YAML syntax: ${(err as Error).message.split('\n')[0]}` }]);
  }
  return importServerlessValue(doc, options);
}

/** The same, from the file already parsed (`switchyard import` parses it once to tell the format). */
export function importServerlessValue(doc: unknown, options: ImportOptions = {}): ImportResult {
  if (!isObj(doc) || !isObj(doc.functions)) {
    throw new ProjectError([{ file: options.file ?? 'serverless.yml', path: 'functions', message: 'a Serverless Framework service has a functions mapping' }]);
  }
  const notes: string[] = [];
  const vars = new Variables(doc, notes, options.readFile);
  const provider = isObj(doc.provider) ? doc.provider : {};
  // `service: { name: ... }` is the form of Serverless Framework 1.x (its other keys, such as awsKmsKeyArn, mean nothing here).
  const serviceRaw = isObj(doc.service) ? doc.service.name : doc.service;
  const service = (typeof serviceRaw === 'string' && vars.resolve(serviceRaw, isObj(doc.service) ? 'service.name' : 'service')) || 'service';
  const b = new ProjectBuilder(options, service);
  b.notes.push(...notes);
  vars.notesTo(b.notes);
  const providerEnv = envOf(provider.environment, 'provider.environment', vars, b);
  // provider.apiGateway.request.schemas: models an `http` event's request.schemas may name.
  const gatewayRequest = isObj(provider.apiGateway) && isObj(provider.apiGateway.request) ? provider.apiGateway.request : {};
  const globalSchemas = isObj(gatewayRequest.schemas) ? gatewayRequest.schemas : {};
  const httpApiPayload = isObj(provider.httpApi) ? String(provider.httpApi.payload ?? '2.0') : '2.0';
  const providerRuntime = typeof provider.runtime === 'string' ? provider.runtime : undefined;

  providerNotes(b, provider, doc.resources);
  serviceNotes(b, doc);
  const authorizers = new ServerlessAuthorizers(provider, doc.functions, (value, where) => vars.resolve(value, where), b.notes);

  const functions = Object.entries(doc.functions).filter(([, f]) => isObj(f)) as Array<[string, Obj]>;
  const kinds = new Set<string>();
  for (const [, fn] of functions) for (const e of Array.isArray(fn.events) ? fn.events : []) if (isObj(e)) for (const k in e) kinds.add(k);
  const apiName = (kind: 'http' | 'httpApi') =>
    kinds.has('http') && kinds.has('httpApi') ? `${service}-${kind === 'http' ? 'rest' : 'http'}` : service;
  // The REST API's settings (`http` events): binary media types and compression.
  if (isObj(provider.apiGateway)) {
    b.setApiSettings(apiName('http'), provider.apiGateway, 'provider.apiGateway');
    const rest = Object.keys(provider.apiGateway).filter((k) => !API_GATEWAY_CARRIED.includes(k));
    if (rest.length > 0) b.notes.push(`provider.apiGateway: ${rest.join(', ')} not carried`);
  }

  const restCors = new Map<string, { cors: FileCors | undefined; with: number; without: number }>();
  const httpApiMethods = new Set<string>();
  for (const [rawName, fn] of functions) {
    const where = `functions.${rawName}`;
    const name = functionName(rawName, b.notes);
    if (typeof fn.handler !== 'string') {
      b.notes.push(`${where}: no handler (an image function?); not carried`);
      continue;
    }
    uncarriedSettings(where, Object.keys(fn).filter((k) => !FUNCTION_CARRIED.has(k) && !FUNCTION_SILENT.has(k)), b.notes);
    const runtime = typeof fn.runtime === 'string' ? fn.runtime : providerRuntime;
    if (runtime && !runtime.startsWith('nodejs')) b.notes.push(`${where}: runtime ${runtime} is not JavaScript; its file is referenced as is`);
    const split = b.fileOf(vars.resolve(fn.handler, `${where}.handler`) ?? fn.handler, '', `${where}.handler`);
    if (!split) continue;
    const { file, handler } = split;
    const own = envOf(fn.environment, `${where}.environment`, vars, b);
    // A value of the function's own that is left unset is not replaced by the provider's.
    const env: Record<string, string> = { ...providerEnv.env, ...own.env };
    for (const key of own.unset) delete env[key];
    const spec: Parameters<ProjectBuilder['addFunction']>[1] = { file, handler, env };
    const timeout = timeoutMs(fn.timeout ?? provider.timeout);
    if (timeout !== undefined) spec.timeout_ms = timeout;
    const memory = memoryMb(fn.memorySize ?? provider.memorySize, where, b.notes);
    if (memory !== undefined) spec.memory_mb = memory;
    b.addFunction(name, spec);
    asyncSettings(b, name, fn, where, doc.functions as Obj);
    if (fn.url !== undefined && fn.url !== false) functionUrl(b, name, fn.url, `${where}.url`);

    (Array.isArray(fn.events) ? fn.events : []).forEach((event, i) => {
      const at = `${where}.events[${i}]`;
      if (!isObj(event)) return;
      const kind = Object.keys(event)[0];
      if (kind === 'schedule') {
        scheduleEvent(b, name, event.schedule, at, vars);
        return;
      }
      if (kind === 'eventBridge') {
        eventBridgeEvent(b, name, event.eventBridge, at, vars);
        return;
      }
      if (kind !== 'http' && kind !== 'httpApi') {
        b.notes.push(`${at}: ${kind} events are not carried`);
        return;
      }
      const http = httpEvent(event, at, b.notes);
      if (!http) return;
      const method = routeMethod(http.method);
      if (!method) {
        b.notes.push(`${at}: method ${http.method} is not carried`);
        return;
      }
      const format = http.kind === 'http' || httpApiPayload === '1.0' ? 'aws-v1' : 'aws-v2';
      const path = vars.resolve(http.path, `${at}.path`);
      if (path === undefined) return;
      const api = apiName(http.kind);
      const request = http.request === undefined ? null : serverlessRequest(http.request, globalSchemas, `${at}.http.request`, b.notes);
      const auth = http.authorizer === undefined ? {} : http.kind === 'http' ? authorizers.httpEvent(http.authorizer, `${at}.http`) : authorizers.httpApiEvent(http.authorizer, `${at}.httpApi`);
      const route = {
        method,
        path: routePath(path),
        function: b.functionFor(name, format),
        ...(request ? { request } : {}),
        ...(http.private ? { api_key_required: true } : {}),
        ...auth,
      };
      b.addRoute(api, route, at);
      // `httpApi: '*'` is the catch-all, which on AWS answers the root too ({proxy+} needs a segment).
      if (http.kind === 'httpApi' && http.method === '*' && route.path === '/{proxy+}') b.addRoute(api, { ...route, path: '/' }, at);
      if (http.kind === 'http') {
        const cors = http.cors === undefined ? null : serverlessHttpCors(http.cors, method, `${at}.http.cors`, b.notes);
        const seen = restCors.get(api) ?? { cors: undefined, with: 0, without: 0 };
        if (cors) seen.cors = mergeCors(seen.cors, cors);
        seen[cors ? 'with' : 'without']++;
        restCors.set(api, seen);
      } else httpApiMethods.add(method === 'ANY' ? '*' : method);
    });
  }
  // A REST API's CORS is per path in serverless.yml, per API here: one policy, each event's joined.
  for (const [api, seen] of restCors) {
    if (!seen.cors) continue;
    b.setCors(api, seen.cors);
    if (seen.without > 0 || seen.with > 1) {
      const events = (n: number) => `${n} http event${n === 1 ? '' : 's'}`;
      b.notes.push(
        `apis.${api}.cors: the cors of ${events(seen.with)} made one policy for the whole API` +
          (seen.without > 0 ? `, which its ${events(seen.without)} without cors share` : ''),
      );
    }
  }
  // API keys and usage plans (older services write them on provider itself): plans of the REST API; keys named in the notes only.
  const gateway = isObj(provider.apiGateway) ? provider.apiGateway : {};
  const keys = { apiKeys: gateway.apiKeys ?? provider.apiKeys, usagePlan: gateway.usagePlan ?? provider.usagePlan };
  b.addUsagePlans(serverlessUsagePlans(keys, service, apiName('http'), b.notes));
  const httpApiCors = isObj(provider.httpApi) ? provider.httpApi.cors : undefined;
  if (httpApiCors !== undefined && httpApiCors !== false && httpApiMethods.size > 0) {
    const cors = serverlessHttpApiCors(httpApiCors, [...httpApiMethods], 'provider.httpApi.cors', b.notes);
    if (cors) b.setCors(apiName('httpApi'), cors);
  }
  authorizers.finish(b, kinds.has('http') ? apiName('http') : undefined, kinds.has('httpApi') ? apiName('httpApi') : undefined);
  return b.result();
}
