/**
 * What the typed client throws. An error answer of the server becomes a
 * SwitchyardApiError whose `code` is typed as the union of documented codes
 * (the OpenAPI Error schema's enum, from src/errors.ts), so callers can
 * `switch` on it and the compiler knows every case; an answer that is not the
 * API's own (a proxy's error page, another server at that URL) is an
 * UnexpectedAnswerError. A failed fetch (nothing answering) is fetch's own
 * TypeError, untouched.
 */
import type { components } from './schema.js';

/** Every code an error answer of the API can carry (docs/errors.md says what each means). */
export type ErrorCode = components['schemas']['Error']['code'];

/** The body of every error answer. */
export type ErrorBody = components['schemas']['Error'];

/** The server's error answer: its status, documented `code`, message and details. */
export class SwitchyardApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details?: unknown;
  /** On 500s: the request id to find in the server's log. */
  readonly requestId?: string;

  constructor(status: number, body: ErrorBody) {
    super(body.error);
    this.name = new.target.name;
    this.status = status;
    this.code = body.code;
    if (body.details !== undefined) this.details = body.details;
    if (body.requestId !== undefined) this.requestId = body.requestId;
  }
}

/** A log or deliveries stream the server refused (401, 404, 400, ...): reconnecting would not help. */
export class StreamRefusedError extends SwitchyardApiError {}

/** An answer that is not what the API documents for it: usually a proxy's page or not a Switchyard server at all. */
export class UnexpectedAnswerError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Whether a parsed body is the API's error shape. */
export function isErrorBody(body: unknown): body is ErrorBody {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { error?: unknown }).error === 'string' &&
    typeof (body as { code?: unknown }).code === 'string'
  );
}

/** The error to throw for a failed answer whose body (parsed, or undefined) is `body`. */
export function answerError(response: Response, body: unknown): SwitchyardApiError | UnexpectedAnswerError {
  if (isErrorBody(body)) return new SwitchyardApiError(response.status, body);
  return new UnexpectedAnswerError(
    response.status,
    `${response.url || 'the server'} answered ${response.status} ${response.statusText} without a Switchyard error body`,
  );
}
