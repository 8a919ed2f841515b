/**
 * The dashboard's one way to the server: openapi-fetch over the client's
 * generated types (src/client/schema.d.ts) with a middleware that
 * adds `Authorization: Bearer <key>` and reports a 401, so the shell can ask
 * for the key. The key lives in sessionStorage only (gone with the tab's
 * session), never in a URL or a cookie.
 */
import createFetchClient from 'openapi-fetch';
import type { paths, Schemas } from '../../src/client/index.js';

const KEY_ITEM = 'switchyard.adminKey';

/**
 * An error to show: the API's error answer, or one the dashboard names itself
 * (`network_error`, `http_error`, `invalid_json`, `stream_error`), so `code`
 * is any string here rather than the API's union of codes.
 */
export type ApiError = Omit<Schemas['Error'], 'code'> & { code: Schemas['Error']['code'] | (string & {}) };

/**
 * A service worker controlling the page sees every request it makes, the key
 * included. The dashboard registers none, and the server refuses to serve a
 * worker's script from a function (docs/security.md); one found anyway came
 * from elsewhere on this origin, so while one controls the page the key is
 * never handed out, and the shell removes every registration.
 */
export function serviceWorkerControlled(): boolean {
  return typeof navigator !== 'undefined' && Boolean(navigator.serviceWorker?.controller);
}

/** Unregisters every service worker of this origin; true when there was one. */
export async function removeServiceWorkers(): Promise<boolean> {
  const container = typeof navigator === 'undefined' ? undefined : navigator.serviceWorker;
  if (!container) return false;
  const registrations = await container.getRegistrations();
  await Promise.all(registrations.map((r) => r.unregister()));
  return registrations.length > 0;
}

export function adminKey(): string | null {
  if (serviceWorkerControlled()) return null;
  try {
    return sessionStorage.getItem(KEY_ITEM);
  } catch {
    return null;
  }
}

export function setAdminKey(key: string | null): void {
  if (key) sessionStorage.setItem(KEY_ITEM, key);
  else sessionStorage.removeItem(KEY_ITEM);
  keyListeners.forEach((listener) => listener());
}

const keyListeners = new Set<() => void>();
/** Called when the key changes or a call answered 401 (the key is missing or wrong). */
export function onKeyChange(listener: () => void): () => void {
  keyListeners.add(listener);
  return () => keyListeners.delete(listener);
}

let unauthorized = false;
export const needsKey = () => unauthorized;

/**
 * Why the key prompt shows: `missing` (no key sent yet), `wrong` (the server
 * refused the key this tab sent: 401 with an Authorization header) or, after
 * too many wrong keys from this address, the server's 429 message (it names
 * the wait). The server's own 401 text speaks of headers, which is right for a
 * script and unhelpful in a form.
 */
export type KeyProblem = { kind: 'missing' } | { kind: 'wrong' } | { kind: 'slowed'; message: string };
let keyProblem: KeyProblem = { kind: 'missing' };
export const currentKeyProblem = () => keyProblem;

/** What an answer says about the key; null when it says nothing against it. */
async function keyProblemOf(request: Request, response: Response): Promise<KeyProblem | null> {
  const sentKey = request.headers.has('authorization');
  if (response.status === 401) return sentKey ? { kind: 'wrong' } : { kind: 'missing' };
  if (response.status !== 429 || !sentKey) return null;
  const body = (await response.clone().json().catch(() => ({}))) as { code?: string; error?: string };
  return body.code === 'too_many_failed_attempts' ? { kind: 'slowed', message: body.error ?? 'Too many wrong keys: wait, then try again' } : null;
}

// Without the client's resource layer (`client.functions...`): the pages make raw typed
// calls, and the bundle has a size budget.
export const api = createFetchClient<paths>({ baseUrl: location.origin });
api.use({
  onRequest({ request }) {
    const key = adminKey();
    if (key) request.headers.set('authorization', `Bearer ${key}`);
    return request;
  },
  async onResponse({ request, response }) {
    const problem = await keyProblemOf(request, response);
    const before = unauthorized ? keyProblem : null;
    unauthorized = problem !== null;
    if (problem) keyProblem = problem;
    if (JSON.stringify(before) !== JSON.stringify(problem)) keyListeners.forEach((listener) => listener());
    return response;
  },
});

/** An error answer (or a network failure) as the API's error shape. */
export function asApiError(error: unknown, response?: Response): ApiError {
  if (error && typeof error === 'object' && 'error' in error && 'code' in error) return error as ApiError;
  if (response) return { error: `HTTP ${response.status} ${response.statusText}`, code: 'http_error' };
  return { error: error instanceof Error ? error.message : String(error), code: 'network_error' };
}

/** Throws the API's error for a failed call, returns the data otherwise. */
export async function call<T>(promise: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let answer: { data?: T; error?: unknown; response: Response };
  try {
    answer = await promise;
  } catch (err) {
    throw new ApiCallError(asApiError(err));
  }
  if (answer.error !== undefined || !answer.response.ok) throw new ApiCallError(asApiError(answer.error, answer.response));
  return answer.data as T;
}

export class ApiCallError extends Error {
  constructor(readonly body: ApiError) {
    super(body.error);
  }
}
