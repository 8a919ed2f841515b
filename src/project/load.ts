/**
 * Loads `switchyard.yaml`: YAML syntax (line and column on error), the
 * published JSON Schema (schema/switchyard.schema.json, ajv 2020-12), then
 * `${env:NAME}` values, the checks a schema cannot express (route paths,
 * references between functions, routes and webhooks) and the function files.
 * Every problem names the file, the key path and the reason; all of them are
 * reported at once, and nothing is returned unless the whole project is valid.
 *
 * Two rules keep a project someone else wrote from reaching what is the
 * operator's: `${env:NAME}` reads only variables the file lists under
 * `env_from` or the caller allows (`--env-from`), never a `SWITCHYARD_`
 * one (the server's own settings, its admin key among them); and a function's
 * file must lie in the project folder once symlinks are resolved, unless the
 * caller allows another folder (`--allow-outside`).
 */
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { LineCounter, isNode, type Document } from 'yaml';
import { authorizersFromFile, type FileAuthorizer } from './authorizers.js';
import { NO_AUTHORIZER } from '../types.js';
import { validateBasePath, validateRoutePath } from '../gateway/paths.js';
import { checkRequestModel, RequestModelError } from '../json-schema.js';
import { DEFAULT_VALIDATION_MODE, checkSchemaAndExamples } from '../events/catalogue.js';
import { checkUserEventName } from '../events/names.js';
import type { RequestModel } from '../types.js';
import { parseCron, validTimezone } from '../scheduler/cron.js';
import { normalizeSchedule } from './function-triggers.js';
import { RUNTIME_BY_EXTENSION } from './defaults.js';
import { FUNCTION_FIELD_DEFAULTS, FUNCTION_FIELDS, WEBHOOK_FIELDS, withDefault } from './fields.js';
import { webhookField } from './webhook-settings.js';
import { createConfinement, outsideMessage } from './confine.js';
import { readYaml, readYamlDocument } from './yaml-read.js';
import { InvalidRequestError } from '../errors.js';
import { corsFromFile, corsProblem } from './cors.js';
import { throttleFromFile } from './throttle.js';
import { closest } from '../did-you-mean.js';
import { ENV_REF, isServerVariable, SERVER_VARIABLE_REFUSAL } from './env-names.js';
import type { ErrorFormat } from '../types.js';
import { toProjectApplication, type FileApplication } from './applications.js';
import {
  ProjectError,
  sharedFileNote,
  type FunctionEntry,
  type Project,
  type FileCors,
  type FileThrottle,
  type FileUsagePlan,
  type FileEventType,
  type ProjectEventType,
  type ProjectApiDef,
  type ProjectUsagePlan,
  type ProjectFunction,
  type ProjectProblem,
  type ProjectWebhook,
} from './types.js';

export type EnvMap = Record<string, string | undefined>;

export interface LoadOptions {
  /** Where `${env:NAME}` values come from (the CLI passes process.env). Default: none. */
  env?: EnvMap;
  /** Variables `${env:}` may read besides the file's own `env_from` list (the CLI's `--env-from`). */
  envFrom?: readonly string[];
  /** The project folder: function files must lie in it. Default: the project file's folder. */
  root?: string;
  /** Folders outside the project that function files may lie in too (the CLI's `--allow-outside`). */
  allowOutside?: readonly string[];
  /** Reads a function's file (absolute path, symlinks resolved); default fs. */
  readFile?: (path: string) => Promise<string>;
  /** Function names that exist on the server: routes may name them without the file defining them. */
  knownFunctions?: Iterable<string>;
}

/** The JSON Schema of the project file, as published in the package. */
export const PROJECT_SCHEMA_URL = new URL('../../schema/switchyard.schema.json', import.meta.url);
let validator: ReturnType<Ajv2020['compile']> | undefined;
function schemaValidator() {
  if (!validator) {
    const schema = JSON.parse(readFileSync(PROJECT_SCHEMA_URL, 'utf8')) as object;
    // verbose: an error carries its schema, so an unknown key can be matched against the keys there are.
    validator = new Ajv2020({ allErrors: true, strict: false, verbose: true }).compile(schema);
  }
  return validator;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Path = Array<string | number>;

/** `['functions', 'hello', 'env', 0]` -> `functions.hello.env[0]` */
export function keyPath(path: Path): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${part}` : part;
  }
  return out;
}

class Problems {
  readonly list: ProjectProblem[] = [];
  constructor(
    readonly file: string,
    private readonly doc?: Document,
    private readonly lines?: LineCounter,
  ) {}

  add(path: Path, message: string): ProjectProblem {
    const problem: ProjectProblem = { file: this.file, path: keyPath(path), message };
    const node = this.doc && path.length > 0 ? this.doc.getIn(path, true) : undefined;
    const range = isNode(node) ? node.range : undefined;
    if (range && this.lines) {
      const pos = this.lines.linePos(range[0]);
      problem.line = pos.line;
      problem.column = pos.col;
    }
    this.list.push(problem);
    return problem;
  }

  throwIfAny(): void {
    if (this.list.length > 0) throw new ProjectError(this.list);
  }
}

function ajvPath(error: ErrorObject): Path {
  const parts: Path = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') parts.push(String(params.additionalProperty));
  if (error.keyword === 'required') parts.push(String(params.missingProperty));
  if (error.keyword === 'propertyNames' && typeof params.propertyName === 'string') parts.push(params.propertyName);
  // Array indexes back to numbers, for `routes[0]`.
  return parts.map((p) => (typeof p === 'string' && /^\d+$/.test(p) ? Number(p) : p));
}

/** What a pattern of the schema asks for, in words (the pattern itself means nothing to most readers). */
const PATTERN_WORDS: Record<string, string> = {
  '^/': 'must start with /',
  '\\.(js|mjs|cjs|ts|mts)$': 'must be a .js, .mjs, .cjs, .ts or .mts file',
  '^[A-Za-z_][A-Za-z0-9_]*$': 'must be an environment variable name: letters, digits and _, not starting with a digit',
  '^[A-Za-z_][A-Za-z0-9_]{0,127}$': 'must be an environment variable name: letters, digits and _, not starting with a digit, at most 128',
  '^[A-Za-z][A-Za-z0-9_-]{0,63}$': 'must be a function name: a letter, then up to 63 letters, digits, - or _',
  '^(?:[A-Za-z0-9_./-]+\\.)?[A-Za-z_$][A-Za-z0-9_$]*$': "must be an export name (handler) or Lambda's file.export (src/app.handler)",
};

/**
 * Keys people bring from serverless.yml, SAM or habit, and the key of this
 * file that says the same, when the object has it (else `closest` guesses).
 */
const KEY_HABITS: Record<string, string> = {
  timeout: 'timeout_ms',
  memory: 'memory_mb',
  memorysize: 'memory_mb',
  environment: 'env',
  variables: 'env',
  url: 'target_url',
  cron: 'schedules',
  schedule: 'schedules',
  basepath: 'base_path',
};
const KEY_UNITS: Record<string, string> = { timeout_ms: ' (milliseconds)', memory_mb: ' (MB)' };

function unknownKeyMessage(key: string, known: string[]): string {
  const habit = KEY_HABITS[key.toLowerCase()];
  const guess = habit !== undefined && known.includes(habit) ? habit : closest(key, known);
  if (guess !== null) return `unknown key; did you mean ${guess}${KEY_UNITS[guess] ?? ''}?`;
  return known.length > 0 && known.length <= 16 ? `unknown key (the keys here: ${known.join(', ')})` : 'unknown key';
}

function ajvMessage(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const properties = (error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
      return unknownKeyMessage(String(params.additionalProperty), Object.keys(properties ?? {}));
    }
    case 'required':
      return 'is required';
    case 'enum': {
      const allowed = params.allowedValues as unknown[];
      // Methods are taken in any case (normalizeCase): listed once, in capitals.
      const shown = allowed.filter((v) => typeof v !== 'string' || v === v.toUpperCase() || !allowed.includes(v.toUpperCase()));
      return `must be one of ${shown.map((v) => JSON.stringify(v)).join(', ')}${shown.length < allowed.length ? ' (any case)' : ''}`;
    }
    case 'propertyNames':
      return 'is not a valid name';
    case 'pattern':
      return PATTERN_WORDS[String(params.pattern)] ?? `does not have the expected form (${String(params.pattern)})`;
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} characters`;
    case 'maxLength':
      return `must be at most ${String(params.limit)} characters`;
    default:
      return error.message ?? 'is invalid';
  }
}

/**
 * Methods in any case (`get`, `Post`; a route's `*` is ANY), as `switchyard
 * import` takes them: written in capitals before the schema sees them. Only
 * a string is touched; anything else stays for the schema to name.
 */
function normalizeCase(raw: Record<string, unknown>): void {
  for (const api of Object.values(isRecord(raw.apis) ? raw.apis : {})) {
    if (!isRecord(api) || !Array.isArray(api.routes)) continue;
    for (const route of api.routes as unknown[]) {
      if (!isRecord(route) || typeof route.method !== 'string') continue;
      const method = route.method.trim().toUpperCase();
      route.method = method === '*' ? 'ANY' : method;
    }
  }
  for (const hook of Object.values(isRecord(raw.webhooks) ? raw.webhooks : {})) {
    if (isRecord(hook) && typeof hook.method === 'string') hook.method = hook.method.trim().toUpperCase();
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Serverless's and SAM's event kinds, which a function's `events` here is not. */
const SERVERLESS_EVENTS = new Set(['http', 'httpapi', 'schedule', 'eventbridge', 'sqs', 'sns', 's3', 'stream', 'websocket', 'cloudwatchevent', 'alb']);

/**
 * `events: - http: GET /greet` is how serverless.yml routes a function; here
 * `events` lists the event names the function subscribes to. Said in words,
 * with what to write instead, rather than "must be string".
 */
function serverlessEventHabit(fnName: string, value: unknown): string | null {
  if (!isRecord(value)) return null;
  const kind = Object.keys(value)[0];
  if (kind === undefined || !SERVERLESS_EVENTS.has(kind.toLowerCase())) return null;
  const spec = value[kind];
  if (kind.toLowerCase() === 'http' || kind.toLowerCase() === 'httpapi') {
    const text = typeof spec === 'string' ? spec.trim() : isRecord(spec) ? `${String(spec.method ?? 'GET')} ${String(spec.path ?? '/')}` : 'GET /';
    const [method = 'GET', path = '/'] = text.split(/\s+/);
    const route = `{ method: ${method.toUpperCase() === '*' ? 'ANY' : method.toUpperCase()}, path: ${path.startsWith('/') ? path : `/${path}`}, function: ${fnName} }`;
    return (
      `'${kind}:' is serverless.yml's way to route a function; here a route belongs to an API: ` +
      `apis: { <api name>: { base_path: /, routes: [ ${route} ] } }. ` +
      "A function's events lists event names it subscribes to (or run `switchyard import serverless.yml` to convert the whole file)"
    );
  }
  if (kind.toLowerCase() === 'schedule') {
    return "'schedule:' is serverless.yml's; here write schedules: [{ cron: '*/5 * * * *' }] on the function (five-field cron; `switchyard import` translates rate() and cron())";
  }
  return `'${kind}:' is a serverless.yml event source, which Switchyard does not have; a function's events lists event names it subscribes to`;
}

/** What `${env:}` may read: the file's `env_from` and the caller's list. */
interface EnvAccess {
  env: EnvMap;
  allowed: ReadonlySet<string>;
  used: Set<string>;
}

/**
 * Replaces `${env:NAME}` in every string of the document. A variable that is
 * not allowed, a `SWITCHYARD_` one or one that is not set is a problem naming
 * it, never an empty value.
 */
function interpolate(value: unknown, path: Path, access: EnvAccess, problems: Problems): unknown {
  if (typeof value === 'string') {
    return value.replace(ENV_REF, (whole, name: string) => {
      if (!ENV_NAME.test(name)) {
        problems.add(path, `\${env:${name}} is not a valid environment variable name`);
        return whole;
      }
      if (isServerVariable(name)) {
        problems.add(path, `\${env:${name}} is refused: ${SERVER_VARIABLE_REFUSAL}`);
        return whole;
      }
      if (!access.allowed.has(name)) {
        problems.add(path, `\${env:${name}} reads a variable the project does not allow: list ${name} under env_from, or pass --env-from ${name}`);
        return whole;
      }
      access.used.add(name);
      const found = access.env[name];
      if (found === undefined) {
        problems.add(path, `environment variable ${name} is not set (\${env:${name}})`);
        return whole;
      }
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, [...path, i], access, problems));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = interpolate(v, [...path, k], access, problems);
    return out;
  }
  return value;
}

/** The file's `env_from` and the caller's names; a `SWITCHYARD_` one in the file is a problem at its line. */
function allowedVariables(fromFile: string[], fromCaller: readonly string[], problems: Problems): Set<string> {
  const allowed = new Set<string>();
  fromFile.forEach((name, i) => {
    if (isServerVariable(name)) problems.add(['env_from', i], `${name} is refused: ${SERVER_VARIABLE_REFUSAL}`);
    else allowed.add(name);
  });
  // The CLI refuses these itself; a library caller gets the same rule.
  for (const name of fromCaller) if (!isServerVariable(name)) allowed.add(name);
  return allowed;
}

/** As written: `env` values may be numbers or booleans (made strings). */
type RawFunction = Omit<FunctionEntry, 'env'> & { env?: Record<string, string | number | boolean> };
interface RawApi {
  base_path: string;
  routes?: ProjectApiDef['routes'];
  cors?: FileCors | null;
  minimum_compression_size?: number | null;
  binary_media_types?: string[] | null;
  authorizers?: FileAuthorizer[];
  default_authorizer?: string | null;
  error_format?: ErrorFormat | null;
  expose_errors?: boolean | null;
  throttle?: FileThrottle | null;
}
type RawWebhook = Partial<Omit<ProjectWebhook, 'name' | 'retry'>> &
  Pick<ProjectWebhook, 'method' | 'payload_template'> & { retry?: Partial<ProjectWebhook['retry']> };
interface RawProject {
  version?: 1;
  project?: string;
  env_from?: string[];
  functions?: Record<string, RawFunction>;
  apis?: Record<string, RawApi>;
  webhooks?: Record<string, RawWebhook>;
  usage_plans?: Record<string, FileUsagePlan>;
  event_types?: Record<string, FileEventType>;
  applications?: Record<string, FileApplication>;
}

/** What `parseProject` returns besides the project: the variables `${env:}` read. */
export interface LoadedProject {
  file: string;
  project: Project;
  /** The environment variables the file's `${env:}` values read, sorted. */
  env_used: string[];
}

/**
 * Parses the text of a project file. `file` names it in problems and anchors
 * relative function paths. Throws ProjectError listing every problem.
 */
export async function parseProject(text: string, file: string, options: LoadOptions = {}): Promise<LoadedProject> {
  const lines = new LineCounter();
  const doc = readYamlDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ProjectError(
      doc.errors.slice(0, 1).map((e) => {
        const pos = e.linePos?.[0] ?? lines.linePos(e.pos[0]);
        const message = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
        return { file, path: '', message: `YAML syntax: ${message}`, line: pos?.line, column: pos?.col };
      }),
    );
  }
  const problems = new Problems(file, doc, lines);
  const raw = (doc.toJS() ?? {}) as unknown;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.add([], 'the file must be a mapping with functions, apis and webhooks');
    problems.throwIfAny();
  }
  normalizeCase(raw as Record<string, unknown>);
  const validate = schemaValidator();
  if (!validate(raw)) {
    const destinations = new Set<string>();
    const habits = new Set<string>();
    for (const error of validate.errors ?? []) {
      if (error.keyword === 'if') continue;
      // `events: - http: GET /x` under a function: one problem saying what to write instead.
      const habit = /^\/functions\/([^/]+)\/events\/(\d+)$/.exec(error.instancePath);
      if (habit) {
        const fnName = habit[1].replace(/~1/g, '/').replace(/~0/g, '~');
        const message = serverlessEventHabit(fnName, (raw as RawProject).functions?.[fnName]?.events?.[Number(habit[2])]);
        if (message !== null) {
          if (!habits.has(error.instancePath)) problems.add(ajvPath(error), message);
          habits.add(error.instancePath);
          continue;
        }
      }
      // A destination is null, {webhook} or {function}: one problem, not one per branch.
      if (error.schemaPath.startsWith('#/$defs/destination/')) {
        if (!destinations.has(error.instancePath)) {
          destinations.add(error.instancePath);
          problems.add(ajvPath({ ...error, keyword: 'oneOf' }), 'must be null, {webhook: <name>} or {function: <name>}');
        }
        continue;
      }
      // target_url or target, exactly one: said in build()'s own words.
      if (error.keyword === 'oneOf' || error.schemaPath.includes('/oneOf/')) continue;
      problems.add(ajvPath(error), ajvMessage(error));
    }
    problems.throwIfAny();
  }
  const fromFile = (raw as RawProject).env_from ?? [];
  const access: EnvAccess = { env: options.env ?? {}, allowed: allowedVariables(fromFile, options.envFrom ?? [], problems), used: new Set() };
  const resolved = interpolate(raw, [], access, problems) as RawProject;
  problems.throwIfAny();

  const project = await build(resolved, file, options, problems);
  problems.throwIfAny();
  return { file, project, env_used: [...access.used].sort() };
}

/** Reads and parses a project file from disk. */
export async function loadProject(file: string, options: LoadOptions = {}): Promise<LoadedProject> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ProjectError([{ file, path: '', message: `cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})` }]);
  }
  return parseProject(text, file, options);
}

/** A route's request model as the server will take it: a body schema that cannot compile is a problem at its line. */
function checkRouteRequest(model: RequestModel, at: Path, problems: Problems): void {
  try {
    checkRequestModel(model);
  } catch (err) {
    if (!(err instanceof RequestModelError)) throw err;
    problems.add([...at, ...(err.key === '' ? [] : err.key.split('.'))], err.message);
  }
}

/** A schedule's cron in Switchyard's dialect and its zone, checked here so the problem has a line. */
function checkSchedule(s: { cron: string; timezone?: string }, at: Path, problems: Problems): void {
  try {
    parseCron(s.cron);
  } catch (err) {
    problems.add([...at, 'cron'], (err as Error).message.replace(/^cron: /, ''));
  }
  if (s.timezone !== undefined && !validTimezone(s.timezone)) problems.add([...at, 'timezone'], `'${s.timezone}' is not an IANA time zone`);
}

async function build(raw: RawProject, file: string, options: LoadOptions, problems: Problems): Promise<Project> {
  const baseDir = dirname(resolve(file));
  const confinement = createConfinement({ root: options.root ?? baseDir, allowOutside: options.allowOutside });
  const reader = options.readFile ?? ((p: string) => readFile(p, 'utf8'));
  // Each path checked and each file read (or bundled) once: functions often share a file, a serverless.yml's always do.
  const verdicts = new Map<string, ReturnType<typeof confinement.check>>();
  const codes = new Map<string, Promise<string>>();
  const check = (path: string) => verdicts.get(path) ?? verdicts.set(path, confinement.check(path)).get(path)!;
  const read = (path: string) => codes.get(path) ?? codes.set(path, reader(path)).get(path)!;
  const functions: ProjectFunction[] = [];
  // A file that cannot be read or bundled is one problem, however many functions share it (a serverless.yml's do).
  const unreadable = new Map<string, { problem: ProjectProblem; message: string; others: string[] }>();
  // The file's project owns what its apply makes: recorded on each object, checked before any is changed (plan.ts).
  const owner = raw.project ?? null;
  for (const [name, fn] of Object.entries(raw.functions ?? {})) {
    const ext = extname(fn.file).toLowerCase() as keyof typeof RUNTIME_BY_EXTENSION;
    let code = '';
    try {
      const verdict = await check(resolve(baseDir, fn.file));
      if (!verdict.inside) {
        problems.add(['functions', name, 'file'], outsideMessage(fn.file, verdict.real, confinement.root));
      } else {
        // The real path: what was checked is what is read.
        code = await read(verdict.real);
        if (code.length === 0) problems.add(['functions', name, 'file'], `${fn.file} is empty`);
      }
    } catch (err) {
      // A reader of the caller's (the CLI bundles npm packages) may fail with a message of its own.
      const errno = (err as NodeJS.ErrnoException).code;
      const message = errno ? `cannot read ${fn.file} (${errno})` : (err as Error).message;
      const key = resolve(baseDir, fn.file);
      const earlier = unreadable.get(key);
      if (earlier && earlier.message === message) {
        earlier.others.push(name);
        earlier.problem.message = `${message}\n${sharedFileNote(earlier.others, fn.file)}`;
      } else {
        unreadable.set(key, { problem: problems.add(['functions', name, 'file'], message), message, others: [] });
      }
    }
    // What the file writes its own way; every other field of the API as given or its default.
    const own: Record<string, unknown> = {
      name,
      project: owner,
      file: fn.file,
      code,
      runtime: RUNTIME_BY_EXTENSION[ext],
      env: Object.fromEntries(Object.entries(fn.env ?? {}).map(([k, v]) => [k, String(v)])),
      schedules: (fn.schedules ?? []).map((s, i) => {
        checkSchedule(s, ['functions', name, 'schedules', i], problems);
        return normalizeSchedule(s);
      }),
    };
    const entry: Record<string, unknown> = { ...own };
    for (const key of FUNCTION_FIELDS) {
      if (!(key in own)) entry[key] = withDefault(fn[key as keyof RawFunction], FUNCTION_FIELD_DEFAULTS[key]);
    }
    functions.push(entry as ProjectFunction);
  }

  const known = new Set([...functions.map((f) => f.name), ...(options.knownFunctions ?? [])]);
  const apis: ProjectApiDef[] = [];
  for (const [name, api] of Object.entries(raw.apis ?? {})) {
    const baseProblem = validateBasePath(api.base_path);
    if (baseProblem) problems.add(['apis', name, 'base_path'], baseProblem);
    const routes = api.routes ?? [];
    const seen = new Map<string, number>();
    routes.forEach((route, i) => {
      const pathProblem = validateRoutePath(route.path);
      if (pathProblem) problems.add(['apis', name, 'routes', i, 'path'], pathProblem);
      if (!known.has(route.function)) {
        problems.add(['apis', name, 'routes', i, 'function'], `no function '${route.function}' in this file`);
      }
      if (route.request !== undefined) checkRouteRequest(route.request, ['apis', name, 'routes', i, 'request'], problems);
      const key = `${route.method} ${route.path}`;
      const earlier = seen.get(key);
      if (earlier !== undefined) problems.add(['apis', name, 'routes', i], `${key} is already routes[${earlier}]`);
      else seen.set(key, i);
    });
    const fromFile = authorizersFromFile(api.authorizers ?? []);
    if (fromFile.problem) {
      const { index, key, message } = fromFile.problem;
      problems.add(['apis', name, 'authorizers', index, ...(key ? [key] : [])], message);
    }
    const authorizerNames = new Set((api.authorizers ?? []).map((a) => a.name));
    const defaultAuthorizer = api.default_authorizer ?? null;
    if (defaultAuthorizer !== null && !authorizerNames.has(defaultAuthorizer)) {
      problems.add(['apis', name, 'default_authorizer'], `no authorizer '${defaultAuthorizer}' in this API`);
    }
    routes.forEach((route, i) => {
      if (route.authorizer !== undefined && route.authorizer !== NO_AUTHORIZER && !authorizerNames.has(route.authorizer)) {
        problems.add(['apis', name, 'routes', i, 'authorizer'], `no authorizer '${route.authorizer}' in this API`);
      }
    });
    const cors = corsFromFile(api.cors);
    const corsTrouble = cors && corsProblem(cors);
    if (corsTrouble) problems.add(['apis', name, 'cors', corsTrouble.key], corsTrouble.message);
    apis.push({
      name,
      base_path: api.base_path,
      routes: routes.map((r) => ({ ...r })),
      cors,
      minimum_compression_size: api.minimum_compression_size ?? null,
      binary_media_types: api.binary_media_types ?? null,
      authorizers: fromFile.authorizers,
      default_authorizer: defaultAuthorizer,
      error_format: api.error_format ?? null,
      expose_errors: api.expose_errors ?? null,
      throttle: throttleFromFile(api.throttle),
      project: owner,
    });
  }

  const webhookNames = new Set(Object.keys(raw.webhooks ?? {}));
  for (const fn of functions) {
    for (const key of ['on_success', 'on_failure'] as const) {
      const d = fn.async[key];
      const at = ['functions', fn.name, 'async', key];
      if (d && 'webhook' in d && !webhookNames.has(d.webhook)) problems.add([...at, 'webhook'], `no webhook '${d.webhook}' in this file`);
      if (d && 'function' in d && !known.has(d.function)) problems.add([...at, 'function'], `no function '${d.function}' in this file`);
    }
  }

  const apiNames = new Set(apis.map((a) => a.name));
  const webhooks: ProjectWebhook[] = [];
  for (const [name, w] of Object.entries(raw.webhooks ?? {})) {
    if (w.target_url && !/^https?:\/\//i.test(w.target_url)) {
      problems.add(['webhooks', name, 'target_url'], 'must be an absolute http(s) URL');
    }
    if (w.target_url !== undefined && w.target !== undefined) {
      problems.add(['webhooks', name, 'target'], 'give target_url or target, not both');
    } else if (w.target_url === undefined && w.target === undefined) {
      problems.add(['webhooks', name], 'target_url or target is required');
    }
    if (w.target && !apiNames.has(w.target.api)) {
      problems.add(['webhooks', name, 'target', 'api'], `no API '${w.target.api}' in this file`);
    }
    if (w.mock_endpoint && !apiNames.has(w.mock_endpoint.api)) {
      problems.add(['webhooks', name, 'mock_endpoint', 'api'], `no API '${w.mock_endpoint.api}' in this file`);
    }
    // The API's fields in its order, each as given or its default, as the server keeps it; `target` is the file's own, beside `target_url`.
    const hook: Record<string, unknown> = {};
    for (const key of WEBHOOK_FIELDS) {
      if (key === 'name') hook.name = name;
      else if (key === 'project') hook.project = owner;
      else if (key === 'target_url') Object.assign(hook, { target_url: w.target_url ?? null, target: w.target ?? null });
      else if (key === 'transformation') hook.transformation = null;
      else hook[key] = webhookField(key, w[key]);
    }
    if (w.application !== undefined) hook.application = w.application;
    // The file names a file of JavaScript; the API takes its text. Read through the same confinement as functions' files.
    const source = (w as { transformation?: string | null }).transformation;
    if (typeof source === 'string') {
      const at = ['webhooks', name, 'transformation'];
      try {
        const verdict = await check(resolve(baseDir, source));
        if (!verdict.inside) problems.add(at, outsideMessage(source, verdict.real, confinement.root));
        else {
          const code = await readFile(verdict.real, 'utf8');
          if (code.trim().length === 0) problems.add(at, `${source} is empty`);
          else hook.transformation = code;
        }
      } catch (err) {
        problems.add(at, `cannot read ${source} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      }
    }
    webhooks.push(hook as ProjectWebhook);
  }

  const project: Project = { functions, apis, webhooks, project: owner };
  if (raw.usage_plans !== undefined) project.usage_plans = usagePlans(raw.usage_plans, apiNames, problems);
  if (raw.event_types !== undefined) {
    project.event_types = await eventTypes(raw.event_types, baseDir, (path) => check(path), reader, confinement.root, problems);
  }
  if (raw.applications !== undefined) {
    project.applications = Object.entries(raw.applications).map(([name, app]) => toProjectApplication(name, app));
    const uids = new Map<string, string>();
    for (const app of project.applications) {
      if (app.uid === null) continue;
      const other = uids.get(app.uid);
      if (other !== undefined) problems.add(['applications', app.name, 'uid'], `uid '${app.uid}' is also applications.${other}'s`);
      else uids.set(app.uid, app.name);
    }
  }
  return project;
}

/**
 * `event_types:`: each schema read from its file (inside the project folder, as
 * function files are; JSON or YAML) or taken as written, then checked as the
 * server will check it (it compiles, the examples match), each problem at its key.
 */
async function eventTypes(
  raw: Record<string, FileEventType>,
  baseDir: string,
  check: (path: string) => Promise<{ inside: boolean; real: string }>,
  reader: (path: string) => Promise<string>,
  root: string,
  problems: Problems,
): Promise<ProjectEventType[]> {
  const out: ProjectEventType[] = [];
  for (const [name, t] of Object.entries(raw)) {
    let schema: Record<string, unknown> | null = null;
    if (typeof t.schema === 'string') {
      const verdict = await check(resolve(baseDir, t.schema));
      if (!verdict.inside) problems.add(['event_types', name, 'schema'], outsideMessage(t.schema, verdict.real, root));
      else {
        try {
          const parsed = readYaml(await reader(verdict.real));
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) problems.add(['event_types', name, 'schema'], `${t.schema} does not hold a JSON Schema object`);
          else schema = parsed as Record<string, unknown>;
        } catch (err) {
          const errno = (err as NodeJS.ErrnoException).code;
          problems.add(['event_types', name, 'schema'], errno ? `cannot read ${t.schema} (${errno})` : `${t.schema}: ${(err as Error).message.split('\n')[0]}`);
        }
      }
    } else if (t.schema !== undefined) schema = t.schema;
    try {
      checkUserEventName(name, 'name');
      checkSchemaAndExamples(schema ?? undefined, schema ? t.examples : undefined);
      if (!schema && t.examples?.length) throw new InvalidRequestError('examples: belong to a schema; give one', { field: 'examples' });
    } catch (err) {
      if (!(err instanceof InvalidRequestError)) throw err;
      const field = String((err.details as { field?: string } | undefined)?.field ?? '');
      const at = field === 'name' ? ['event_types', name] : ['event_types', name, ...field.replace(/\[(\d+)\]/g, '.$1').split('.').filter(Boolean)];
      problems.add(at, field === 'name' ? err.message.replace(/^name/, 'the name') : err.message.replace(/^[^ ]+ /, ''));
    }
    out.push({ name, description: t.description ?? '', mode: t.mode ?? DEFAULT_VALIDATION_MODE, deprecated: t.deprecated ?? false, schema, examples: t.examples ?? [] });
  }
  return out;
}

/** `usage_plans:`: each plan's APIs must be APIs of this file (named, not by id). */
function usagePlans(raw: Record<string, FileUsagePlan>, apiNames: Set<string>, problems: Problems): ProjectUsagePlan[] {
  return Object.entries(raw).map(([name, plan]) => {
    plan.apis.forEach((api, i) => {
      if (!apiNames.has(api)) problems.add(['usage_plans', name, 'apis', i], `no API '${api}' in this file`);
    });
    return { name, apis: [...plan.apis], throttle: throttleFromFile(plan.throttle), quota: plan.quota ? { ...plan.quota } : null };
  });
}
