/**
 * How the gateway words the answers it writes itself, per API (docs/securing-apis.md,
 * "Error answers"): `errorFormat` picks Switchyard's `{error, code, requestId}` or API
 * Gateway's `{"message": ...}`, and `exposeErrors` decides whether a failing function's
 * message and source position reach the caller. Hidden details are not lost: they become
 * one error line in the function's logs under the request id the answer carries.
 *
 * AWS's wording follows its documented gateway responses: a REST API (the `aws-v1`
 * event format) answers a failed integration 502 and a timed-out one 504; an HTTP API
 * (`aws-v2`, and `switchyard`, whose event is the v2 superset) answers 500 and 503.
 */
import { ERRORS, MethodNotAllowedError, NoRouteError, PolicyRefusalError, type InvocationErrorCode, type RefusalReason } from '../errors.js';
import type { ErrorFormat, EventFormat, FunctionLogLine } from '../types.js';
import type { GatewayResponse } from './result.js';

/** An API's two error settings (src/types.ts ApiPolicy), as the route table keeps them. */
export interface ErrorPolicy {
  errorFormat: ErrorFormat;
  exposeErrors: boolean;
}

const JSON_CT = 'application/json; charset=utf-8';
/** What API Gateway sends with its own answers. */
const AWS_CT = 'application/json';

interface AwsAnswer {
  status: number;
  message: string;
}

/** REST API (aws-v1): a failed Lambda proxy integration, and one past the integration timeout. */
const REST_FAILURE: AwsAnswer = { status: 502, message: 'Internal server error' };
const REST_TIMEOUT: AwsAnswer = { status: 504, message: 'Endpoint request timed out' };
/** HTTP API (aws-v2, switchyard): the same two. */
const HTTP_FAILURE: AwsAnswer = { status: 500, message: 'Internal Server Error' };
const HTTP_TIMEOUT: AwsAnswer = { status: 503, message: 'Service Unavailable' };

/** API Gateway's default gateway responses for each kind of refusal (UNAUTHORIZED, ACCESS_DENIED, THROTTLED, QUOTA_EXCEEDED, BAD_REQUEST_BODY). */
export const AWS_REFUSALS: Record<RefusalReason, AwsAnswer> = {
  unauthorized: { status: 401, message: 'Unauthorized' },
  forbidden: { status: 403, message: 'Forbidden' },
  throttled: { status: 429, message: 'Too Many Requests' },
  quota_exceeded: { status: 429, message: 'Limit Exceeded' },
  invalid_request: { status: 400, message: 'Invalid request body' },
};
/**
 * A request validator's refusal as API Gateway words it: BAD_REQUEST_PARAMETERS
 * (`Missing required request parameters: [a, b]`) when only parameters failed
 * (they are checked before the body), else BAD_REQUEST_BODY.
 */
function invalidRequestAnswer(err: PolicyRefusalError): AwsAnswer {
  const failures = (err.details as { errors?: Array<{ where?: unknown; path?: unknown }> } | undefined)?.errors;
  if (!Array.isArray(failures) || failures.length === 0 || failures.some((f) => f.where === 'body')) return AWS_REFUSALS.invalid_request;
  return { status: 400, message: `Missing required request parameters: [${failures.map((f) => String(f.path)).join(', ')}]` };
}

/** No route for the path, or none for the method: an HTTP API's answer to both. */
const AWS_NOT_FOUND: AwsAnswer = { status: 404, message: 'Not Found' };

function awsFailure(style: EventFormat, code: InvocationErrorCode): AwsAnswer {
  const rest = style === 'aws-v1';
  if (code === 'function_timeout') return rest ? REST_TIMEOUT : HTTP_TIMEOUT;
  return rest ? REST_FAILURE : HTTP_FAILURE;
}

/** The message a caller gets instead of the function's own: what failed, and where the details are. */
export function hiddenMessage(code: InvocationErrorCode, requestId: string): string {
  return `${ERRORS[code].message}; the function's logs hold the details under request ${requestId}`;
}

/**
 * The answer to a function's failure. `style` is the function's event format (which
 * kind of API Gateway it was written for); `message` its error, which reaches the
 * caller only when the API exposes errors.
 */
export function failureAnswer(policy: ErrorPolicy, style: EventFormat, code: InvocationErrorCode, message: string, requestId: string): GatewayResponse {
  if (policy.errorFormat === 'aws') {
    const { status, message: text } = awsFailure(style, code);
    const body: Record<string, string> = { message: text };
    // Never in API Gateway; here the caller debugging its own API asked for it.
    if (policy.exposeErrors) Object.assign(body, { error: message, code });
    return { status, headers: { 'content-type': AWS_CT }, body: JSON.stringify(body), errorCode: code };
  }
  const error = policy.exposeErrors ? message : hiddenMessage(code, requestId);
  return { status: ERRORS[code].status, headers: { 'content-type': JSON_CT }, body: JSON.stringify({ error, code, requestId }), errorCode: code };
}

/** The log line that keeps a failure's details (its message carries the source position when there is one). */
export function failureLogLine(code: InvocationErrorCode, message: string, requestId: string): FunctionLogLine {
  return { time: new Date().toISOString(), level: 'error', message: `Invocation failed (${code}): ${message}`, requestId };
}

/**
 * An error thrown on the way to a function (no route, a policy refusal) as API Gateway
 * answers it; null for the others, which keep Switchyard's shape in either format.
 * The headers the error carries (Retry-After, WWW-Authenticate, CORS) stay.
 */
export function awsErrorAnswer(err: unknown): GatewayResponse | null {
  let answer: AwsAnswer;
  if (err instanceof PolicyRefusalError) answer = err.reason === 'invalid_request' ? invalidRequestAnswer(err) : AWS_REFUSALS[err.reason];
  else if (err instanceof NoRouteError || err instanceof MethodNotAllowedError) answer = AWS_NOT_FOUND;
  else return null;
  return {
    status: answer.status,
    headers: { ...err.headers, 'content-type': AWS_CT },
    body: JSON.stringify({ message: answer.message }),
    errorCode: err.code,
  };
}
