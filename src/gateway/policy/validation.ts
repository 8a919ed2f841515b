/**
 * Request validation, a REST API's request validator: a route's `request`
 * model (src/types.ts RequestModel) compiled once when the gateway loads the
 * API, checked after the route's other checks and before its function runs.
 * Required query strings and headers first (present and not blank, as AWS
 * has it), then the body: JSON (within the body size limit and nesting bound
 * every body has) that the route's schema accepts. A request that fails is a
 * 400 `request_invalid` naming what failed; the function does not run.
 */
import { isUtf8 } from 'node:buffer';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { PolicyRefusalError } from '../../errors.js';
import { jsonTextTooDeep } from '../../json-limits.js';
import type { Api, RequestModel, Route } from '../../types.js';
import { parseQuery, type RequestFacts } from '../event.js';
import { compileBodySchema, RequestModelError } from '../../json-schema.js';

/**
 * What the check reads of guards.ts's PolicyRequest, and a RouteGuard's shape,
 * written here: guards.ts imports this module to list its compiler, and an
 * import back (even of types) would be a cycle.
 */
interface CheckedRequest {
  req: RequestFacts;
  route: Route;
}
/** What the check hands on: the body it parsed, so the event builder does not parse it again (guard-types.ts PolicyGrant). */
interface ParsedBodyGrant {
  parsedBody?: { value: unknown };
}
interface Guard {
  check(request: CheckedRequest, grant: ParsedBodyGrant): void;
}

/** One failure, as the refusal's `details.errors` lists it. */
export interface RequestFailure {
  where: 'body' | 'querystring' | 'header';
  /** For the body, a JSON Pointer into it (`/items/0/price`; '' for the whole body); else the parameter's name. */
  path: string;
  message: string;
}

/** At most this many failures are listed: missing parameters could otherwise fill an answer. */
const MAX_FAILURES = 5;

function requiredNames(map: Record<string, boolean> | undefined, lower: boolean): string[] {
  if (map === undefined) return [];
  return Object.keys(map)
    .filter((name) => map[name] === true)
    .map((name) => (lower ? name.toLowerCase() : name));
}

/** The body's failure, or its parsed value when the schema accepts it. */
function checkBody(validate: ValidateFunction, buf: Buffer | null): RequestFailure | { value: unknown } {
  if (buf === null || buf.length === 0) return { where: 'body', path: '', message: 'is required: send a JSON body' };
  if (!isUtf8(buf)) return { where: 'body', path: '', message: 'is not JSON (not UTF-8 text)' };
  const text = buf.toString('utf8');
  if (jsonTextTooDeep(text)) return { where: 'body', path: '', message: 'nests arrays and objects too deep' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { where: 'body', path: '', message: 'is not valid JSON' };
  }
  if (validate(value)) return { value };
  const error = (validate.errors as ErrorObject[])[0];
  let path = error.instancePath;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') path += `/${params.missingProperty}`;
  else if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') path += `/${params.additionalProperty}`;
  let message = error.message ?? 'is invalid';
  if (error.keyword === 'additionalProperties') message = 'is not allowed (additional property)';
  else if (error.keyword === 'required') message = 'is required';
  return { where: 'body', path, message };
}

function describe(f: RequestFailure): string {
  if (f.where === 'body') return f.path === '' ? `body ${f.message}` : `body ${f.path} ${f.message}`;
  return `${f.where === 'header' ? 'header' : 'query string'} '${f.path}' ${f.message}`;
}

class RequestValidation implements Guard {
  private readonly queries: string[];
  private readonly headers: string[];

  constructor(
    model: RequestModel,
    private readonly body: ValidateFunction | null,
  ) {
    this.queries = requiredNames(model.querystrings, false);
    this.headers = requiredNames(model.headers, true);
  }

  check({ req }: CheckedRequest, grant: ParsedBodyGrant): void {
    const failures: RequestFailure[] = [];
    if (this.queries.length > 0) {
      const query = parseQuery(req.rawQuery)?.single;
      for (const name of this.queries) {
        const value = query !== undefined && Object.hasOwn(query, name) ? query[name] : undefined;
        if (value === undefined || value.trim() === '') failures.push({ where: 'querystring', path: name, message: 'is required' });
      }
    }
    if (this.headers.length > 0) {
      const raw = req.rawHeaders;
      for (const name of this.headers) {
        let present = false;
        for (let i = 0; i + 1 < raw.length && !present; i += 2) {
          present = raw[i].length === name.length && raw[i].toLowerCase() === name && raw[i + 1].trim() !== '';
        }
        if (!present) failures.push({ where: 'header', path: name, message: 'is required' });
      }
    }
    // The body is read only once the parameters passed: AWS answers a missing parameter first too.
    if (failures.length === 0 && this.body !== null) {
      const checked = checkBody(this.body, req.body);
      if ('where' in checked) failures.push(checked);
      else grant.parsedBody = checked;
    }
    if (failures.length === 0) return;
    const listed = failures.slice(0, MAX_FAILURES);
    const more = failures.length - listed.length;
    const message =
      "The request does not match the route's request model: " + listed.map(describe).join('; ') + (more > 0 ? ` (and ${more} more)` : '');
    throw new PolicyRefusalError('invalid_request', message, { errors: listed });
  }
}

/**
 * A route whose stored schema no longer compiles (written by another version)
 * fails closed, as a logged 500: running its function unchecked would let
 * through what the model was written to keep out, and the caller is not at fault.
 */
class BrokenModel implements Guard {
  constructor(private readonly problem: string) {}
  check({ route }: CheckedRequest): void {
    throw new Error(`route ${route.id}: its request body schema cannot be compiled: ${this.problem}`);
  }
}

/** guards.ts's GuardCompiler for request validation: null for a route without a model (or one that requires nothing). */
export function compileRequestValidation(_api: Api, route: Route): Guard | null {
  const model = route.request;
  if (model === undefined || model === null) return null;
  const hasParameters = requiredNames(model.querystrings, false).length > 0 || requiredNames(model.headers, false).length > 0;
  if (model.body === undefined && !hasParameters) return null;
  let body: ValidateFunction | null = null;
  if (model.body !== undefined) {
    try {
      body = compileBodySchema(model.body);
    } catch (err) {
      if (err instanceof RequestModelError) return new BrokenModel(err.message);
      throw err;
    }
  }
  return new RequestValidation(model, body);
}
