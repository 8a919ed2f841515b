/**
 * A route's request model (`request` of src/types.ts) checked and compiled:
 * the JSON Schema of its body with ajv (2020-12 by default; draft-07 and
 * draft-04, SAM's models, when `$schema` names them; ajv-formats), and its
 * parameter maps. The same checks run when a route is written (the
 * management API, a project file) and when the gateway loads the API, so a
 * schema the gateway could not compile never gets stored.
 *
 * Schemas are user input, compiled into code: their size and nesting are
 * bounded, nothing is fetched (a `$ref` that is not inside the schema fails
 * to compile), `$data` stays off, strict mode refuses unknown keywords and
 * formats (a typo would otherwise validate nothing), and allErrors stays off
 * so a failing body costs one error's work.
 *
 * The event catalogue (src/events/) and the workers' emit rules
 * (src/runtime/emit-rules.ts) compile their schemas here too, so a schema
 * means the same to a route, a publish and a function's emit().
 */
import { Ajv, MissingRefError, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import AjvDraft04Module from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { valueTooDeep } from './json-limits.js';
import { REQUEST_MODEL_LIMITS } from './schema/apis.js';
import type { RequestModel } from './types.js';

export { REQUEST_MODEL_LIMITS };

type Dialect = '2020-12' | 'draft-07' | 'draft-04';

const DIALECTS: ReadonlyArray<[RegExp, Dialect, string]> = [
  [/^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/, '2020-12', 'https://json-schema.org/draft/2020-12/schema'],
  [/^https?:\/\/json-schema\.org\/draft-07\/schema#?$/, 'draft-07', 'http://json-schema.org/draft-07/schema#'],
  [/^https?:\/\/json-schema\.org\/draft-04\/schema#?$/, 'draft-04', 'http://json-schema.org/draft-04/schema#'],
];

/** A request model the gateway cannot take; `key` is where in `request` (`body`, `headers`). */
export class RequestModelError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(message);
    this.name = 'RequestModelError';
  }
}

// A CommonJS module whose class is both module.exports and its `default`; TypeScript sees only the latter.
const AjvDraft04 = AjvDraft04Module.default;
type AnyAjv = Ajv | Ajv2020 | InstanceType<typeof AjvDraft04>;

function newAjv(dialect: Dialect): AnyAjv {
  const options = {
    strict: true,
    // Type and tuple hints are advice, not errors, and would only be logged.
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allErrors: false,
    $data: false,
    // Nothing compiled is kept under its $id: routes' schemas never see one another.
    addUsedSchema: false,
    logger: false as const,
  };
  const ajv: AnyAjv = dialect === 'draft-04' ? new AjvDraft04(options) : dialect === 'draft-07' ? new Ajv(options) : new Ajv2020(options);
  addFormats.default(ajv as Ajv);
  // OpenAPI's habit in models: an example value, never validated.
  ajv.addKeyword('example');
  return ajv;
}

/**
 * Ajv keeps every compiled schema's code and regular expressions in its
 * instance for good, so one instance for all compiles would grow with every
 * API reload. An instance is replaced after this many compiles: its memory
 * goes once the validators compiled with it do, and the cost of building one
 * (a few ms) is spread over many compiles.
 */
const COMPILES_PER_INSTANCE = 100;
const instances = new Map<Dialect, { ajv: AnyAjv; compiles: number }>();

function ajvFor(dialect: Dialect): AnyAjv {
  let entry = instances.get(dialect);
  if (entry === undefined || entry.compiles >= COMPILES_PER_INSTANCE) {
    entry = { ajv: newAjv(dialect), compiles: 0 };
    instances.set(dialect, entry);
  }
  entry.compiles++;
  return entry.ajv;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Compiles a body schema, or throws RequestModelError (key `body`) saying why it cannot be taken. */
export function compileBodySchema(schema: unknown): ValidateFunction {
  if (!isPlainObject(schema)) throw new RequestModelError('body', 'must be a JSON Schema object');
  if (valueTooDeep(schema, REQUEST_MODEL_LIMITS.schemaDepth)) {
    throw new RequestModelError('body', `nests deeper than ${REQUEST_MODEL_LIMITS.schemaDepth} levels`);
  }
  const bytes = Buffer.byteLength(JSON.stringify(schema));
  if (bytes > REQUEST_MODEL_LIMITS.schemaBytes) {
    throw new RequestModelError('body', `is ${bytes} bytes of JSON; at most ${REQUEST_MODEL_LIMITS.schemaBytes}`);
  }
  let dialect: Dialect = '2020-12';
  let given = schema;
  if (schema.$schema !== undefined) {
    const found = typeof schema.$schema === 'string' ? DIALECTS.find(([re]) => re.test(schema.$schema as string)) : undefined;
    if (found === undefined) {
      throw new RequestModelError(
        'body',
        `$schema ${JSON.stringify(String(schema.$schema)).slice(0, 200)} is not supported: leave it out for 2020-12, or name draft-07 or draft-04`,
      );
    }
    dialect = found[1];
    // Ajv knows each meta-schema under one spelling (`#` or not).
    given = { ...schema, $schema: found[2] };
  }
  const ajv = ajvFor(dialect);
  try {
    return ajv.compile(given);
  } catch (err) {
    if (err instanceof MissingRefError) {
      throw new RequestModelError(
        'body',
        `$ref ${JSON.stringify(err.missingRef)} cannot be resolved: only references inside the schema (#/...) are allowed, nothing is fetched`,
      );
    }
    let message = (err as Error).message.replace(/^strict mode: /, '');
    // Ajv lists every way the schema fails its meta-schema; the first says where.
    if (message.startsWith('schema is invalid') && !ajv.validateSchema(given) && ajv.errors?.[0]) {
      const first = ajv.errors[0];
      message = `schema is invalid: ${first.instancePath || '/'} ${first.message ?? 'is invalid'}`;
    }
    throw new RequestModelError('body', message.slice(0, 500));
  } finally {
    // The instance's cache holds schemas by object identity: leave nothing keyed by this one.
    ajv.removeSchema(given);
  }
}

/** ajv's first error as a path and a reason (allErrors is off: there is one). */
export function firstFailure(validate: ValidateFunction): { path: string; message: string } {
  const e = validate.errors?.[0];
  if (!e) return { path: '', message: 'is invalid' };
  const missing = e.keyword === 'required' ? (e.params as { missingProperty?: string }).missingProperty : undefined;
  return { path: e.instancePath, message: missing === undefined ? (e.message ?? 'is invalid') : `must have required property '${missing}'` };
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function checkNames(key: 'querystrings' | 'headers', map: unknown): void {
  if (map === undefined) return;
  if (!isPlainObject(map)) throw new RequestModelError(key, 'must map names to true (required) or false');
  const names = Object.keys(map);
  if (names.length > REQUEST_MODEL_LIMITS.parameters) throw new RequestModelError(key, `names ${names.length}; at most ${REQUEST_MODEL_LIMITS.parameters}`);
  for (const name of names) {
    if (typeof map[name] !== 'boolean') throw new RequestModelError(`${key}.${name}`, 'must be true (required) or false');
    if (name.length === 0 || name.length > REQUEST_MODEL_LIMITS.nameLength) {
      throw new RequestModelError(key, `names must have 1 to ${REQUEST_MODEL_LIMITS.nameLength} characters`);
    }
    if (key === 'headers' && !HEADER_NAME.test(name)) throw new RequestModelError(key, `${JSON.stringify(name)} is not a header name`);
  }
  if (key === 'headers' && new Set(names.map((n) => n.toLowerCase())).size !== names.length) {
    throw new RequestModelError(key, 'names the same header twice (header names are case-insensitive)');
  }
}

/**
 * Checks a whole request model as a route would store it; throws
 * RequestModelError naming the key at fault. Compiles the body schema to know
 * it compiles (the compiled function is not kept: the gateway compiles its own).
 */
export function checkRequestModel(model: RequestModel): void {
  if (!isPlainObject(model)) throw new RequestModelError('', 'must be an object with body, querystrings or headers');
  for (const key of Object.keys(model)) {
    if (key !== 'body' && key !== 'querystrings' && key !== 'headers') {
      throw new RequestModelError(key, 'is not a known field (body, querystrings, headers)');
    }
  }
  checkNames('querystrings', model.querystrings);
  checkNames('headers', model.headers);
  if (model.body !== undefined) compileBodySchema(model.body);
}
