/**
 * A route's request model (`request` of switchyard.yaml) from what the
 * imported files write: serverless.yml's `http.request` (`schemas` per
 * content type, `parameters.querystrings` / `headers`) and SAM's Api event
 * `RequestModel` (a model of the Api's `Models`, validated as
 * `ValidateBody` / `ValidateParameters` say) and `RequestParameters`
 * (`method.request.querystring.<name>` with `Required`). API Gateway's models
 * are draft-04 JSON Schema: one without `$schema` is marked draft-04 so it
 * means here what it meant there. Whatever is not carried is listed by name.
 */
import { checkRequestModel, RequestModelError } from '../json-schema.js';
import type { RequestModel } from '../types.js';
import { isObj, type Obj } from './import-common.js';

const DRAFT_04 = 'http://json-schema.org/draft-04/schema#';

/** A model's schema as API Gateway reads it: draft-04 unless it names its dialect. */
function asDraft04(schema: Obj): Obj {
  return schema.$schema === undefined ? { $schema: DRAFT_04, ...schema } : schema;
}

/** The model, if the gateway can take it; else null, with the reason in the notes. */
function checked(model: RequestModel, where: string, notes: string[]): RequestModel | null {
  if (model.body === undefined && model.querystrings === undefined && model.headers === undefined) return null;
  try {
    checkRequestModel(model);
    return model;
  } catch (err) {
    if (!(err instanceof RequestModelError)) throw err;
    notes.push(`${where}: the request model is not carried (${err.key === '' ? '' : `${err.key} `}${err.message})`);
    return null;
  }
}

/** `{name: true}` or `{name: {required: true}}` (serverless.yml), as a map of name to required. */
function serverlessParameters(raw: unknown, where: string, notes: string[]): Record<string, boolean> | undefined {
  if (raw === undefined) return undefined;
  if (!isObj(raw)) {
    notes.push(`${where}: not a mapping of names; not carried`);
    return undefined;
  }
  const out: Record<string, boolean> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === 'boolean') out[name] = value;
    else if (isObj(value) && (value.required === undefined || typeof value.required === 'boolean')) {
      out[name] = value.required === true;
      const other = Object.keys(value).filter((k) => k !== 'required');
      if (other.length > 0) notes.push(`${where}.${name}: ${other.join(', ')} not carried (a parameter here is required or not)`);
    } else notes.push(`${where}.${name}: ${JSON.stringify(value)} is not true, false or {required}; not carried`);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * serverless.yml's `http.request` of one event. `globalSchemas` are
 * `provider.apiGateway.request.schemas`, which an event's schema may name.
 */
export function serverlessRequest(request: unknown, globalSchemas: Obj, where: string, notes: string[]): RequestModel | null {
  if (!isObj(request)) {
    notes.push(`${where}: not a mapping; not carried`);
    return null;
  }
  const model: RequestModel = {};
  const other = Object.keys(request).filter((k) => k !== 'schemas' && k !== 'schema' && k !== 'parameters');
  if (other.length > 0) notes.push(`${where}: ${other.join(', ')} not carried (a route's request model has a body schema, query strings and headers)`);
  // `schema` is the Framework's older name of `schemas`.
  const schemasKey = request.schemas !== undefined ? 'schemas' : 'schema';
  const schemas = request[schemasKey];
  if (schemas !== undefined) {
    if (!isObj(schemas)) notes.push(`${where}.${schemasKey}: not a mapping of content types; not carried`);
    else {
      for (const [type, entry] of Object.entries(schemas)) {
        const at = `${where}.${schemasKey}.${type}`;
        if (type.split(';')[0].trim().toLowerCase() !== 'application/json') {
          notes.push(`${at}: not carried (only JSON bodies are validated)`);
          continue;
        }
        // A name of provider.apiGateway.request.schemas, an {schema, name, description}, or the schema itself.
        const named = typeof entry === 'string' ? globalSchemas[entry] : entry;
        const schema = isObj(named) && isObj(named.schema) ? named.schema : named;
        if (!isObj(schema)) {
          notes.push(`${at}: ${typeof entry === 'string' ? `'${entry}' (a file or variable?) cannot be read here` : 'not a JSON Schema'}; not carried`);
          continue;
        }
        model.body = asDraft04(schema);
      }
    }
  }
  const parameters = request.parameters;
  if (parameters !== undefined) {
    if (!isObj(parameters)) notes.push(`${where}.parameters: not a mapping; not carried`);
    else {
      const querystrings = serverlessParameters(parameters.querystrings, `${where}.parameters.querystrings`, notes);
      const headers = serverlessParameters(parameters.headers, `${where}.parameters.headers`, notes);
      if (querystrings) model.querystrings = querystrings;
      if (headers) model.headers = headers;
      const rest = Object.keys(parameters).filter((k) => k !== 'querystrings' && k !== 'headers');
      if (rest.length > 0) notes.push(`${where}.parameters: ${rest.join(', ')} not carried (a route's path parameters are always present)`);
    }
  }
  return checked(model, where, notes);
}

/**
 * SAM's `RequestModel` and `RequestParameters` of one Api event. `models`
 * are the Api's `Models` (or Globals.Api's). As SAM has it, a validator
 * exists only when `ValidateBody` or `ValidateParameters` is set: the body is
 * checked with ValidateBody true, required parameters with ValidateParameters
 * true; parameters not validated are kept as documented only (false).
 */
export function samRequest(props: Obj, models: Obj, where: string, notes: string[]): RequestModel | null {
  const model: RequestModel = {};
  const rm = props.RequestModel;
  let validateParameters = false;
  if (rm !== undefined) {
    const at = `${where}.RequestModel`;
    if (!isObj(rm) || typeof rm.Model !== 'string') notes.push(`${at}: needs Model; not carried`);
    else {
      validateParameters = rm.ValidateParameters === true;
      const schema = models[rm.Model];
      if (rm.ValidateBody !== true) {
        notes.push(`${at}: Model ${rm.Model} is not carried: API Gateway validates the body with it only under ValidateBody: true`);
      } else if (!isObj(schema)) {
        notes.push(`${at}: Model ${rm.Model} is not in the Api's Models; not carried`);
      } else {
        model.body = asDraft04(schema);
      }
      const other = Object.keys(rm).filter((k) => !['Model', 'Required', 'ValidateBody', 'ValidateParameters'].includes(k));
      if (other.length > 0) notes.push(`${at}: ${other.join(', ')} not carried`);
    }
  }
  const params = props.RequestParameters;
  if (params !== undefined) {
    const at = `${where}.RequestParameters`;
    const entries: Array<[string, unknown]> = [];
    for (const item of Array.isArray(params) ? params : [params]) {
      if (typeof item === 'string') entries.push([item, undefined]);
      else if (isObj(item)) entries.push(...Object.entries(item));
      else notes.push(`${at}: ${JSON.stringify(item)} is not a parameter; not carried`);
    }
    for (const [key, settings] of entries) {
      const m = /^method\.request\.(querystring|header|path)\.(.+)$/.exec(key);
      if (!m) {
        notes.push(`${at}: ${key} is not method.request.querystring|header.<name>; not carried`);
        continue;
      }
      if (m[1] === 'path') {
        notes.push(`${at}: ${key} not carried (a route's path parameters are always present)`);
        continue;
      }
      const required = isObj(settings) && settings.Required === true;
      if (isObj(settings) && settings.Caching !== undefined) notes.push(`${at}: ${key}: Caching not carried (there is no response cache)`);
      if (required && !validateParameters) {
        notes.push(`${at}: ${key} is kept as not required: API Gateway checks it only under RequestModel.ValidateParameters: true`);
      }
      const map = m[1] === 'querystring' ? (model.querystrings ??= {}) : (model.headers ??= {});
      map[m[2]] = required && validateParameters;
    }
  }
  return checked(model, where, notes);
}
