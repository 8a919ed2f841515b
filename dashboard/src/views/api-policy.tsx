/**
 * An API's policy in the dashboard: the API's own policy fields (CORS,
 * compression, error answers, and whatever policy the server adds: authorizers,
 * throttles) and each route's, shown and edited as JSON. Generic on purpose:
 * a field is policy when it is not one of the API's identity fields, so a
 * policy field added to the server shows up here without a dashboard change,
 * and the server's validation (400 naming the field) is the one set of rules.
 */
import { useState } from 'preact/hooks';
import type { paths, Schemas } from '../../../src/client/index.js';
import { ApiCallError, api, call, type ApiError } from '../api.js';
import { ErrorBox, Field, parseJson, toApiError } from '../components.js';

type Api = Schemas['Api'];
type Route = Api['routes'][number];
/** What PUT /api/apis/{id} takes: every field optional, routes without ids. */
type ApiUpdate = NonNullable<paths['/api/apis/{id}']['put']['requestBody']>['content']['application/json'];

/** The API fields that are not policy: who it is and what it holds. */
const API_IDENTITY = new Set(['id', 'name', 'basePath', 'routes', 'createdAt', 'updatedAt', 'invokeUrl']);
/** The route fields that are not policy. */
const ROUTE_IDENTITY = new Set(['id', 'method', 'path', 'function']);

/** The API's policy fields, as PUT /api/apis/{id} takes them back. */
export function apiPolicyOf(a: Api): Record<string, unknown> {
  return Object.fromEntries(Object.entries(a).filter(([k]) => !API_IDENTITY.has(k)));
}

/** A route's policy fields (none set: {}). */
export function routePolicyOf(r: Route): Record<string, unknown> {
  return Object.fromEntries(Object.entries(r).filter(([k]) => !ROUTE_IDENTITY.has(k)));
}

/** One line for a route's policy in the routes table: the fields it sets. */
export function routePolicySummary(r: Route): string {
  const policy = routePolicyOf(r);
  const parts = Object.entries(policy).map(([k, v]) => (v === true ? k : typeof v === 'string' ? `${k}: ${v}` : k));
  return parts.length === 0 ? 'none' : parts.join(' · ');
}

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** The API's policy card: its JSON, checked with a dry run and saved with PUT. */
export function ApiPolicyCard({ apiData, onSaved }: { apiData: Api; onSaved(a: Api): void }) {
  const [text, setText] = useState(() => pretty(apiPolicyOf(apiData)));
  const [error, setError] = useState<ApiError | null>(null);
  const [result, setResult] = useState<string | null>(null);

  async function send(dryRun: boolean) {
    setError(null);
    setResult(null);
    try {
      const body = parseJson(text, 'policy') as Record<string, unknown> | undefined;
      if (body === undefined || typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new ApiCallError({ error: "policy must be a JSON object of the API's policy fields", code: 'invalid_json', details: { field: 'policy' } });
      }
      const answer = await call(
        api.PUT('/api/apis/{id}', {
          params: { path: { id: apiData.id }, query: dryRun ? { dry_run: 'true' } : {} },
          body: body as ApiUpdate,
        }),
      );
      if ('dry_run' in answer) {
        const changes = (answer as { changes?: string[] }).changes ?? [];
        setResult(changes.length === 0 ? 'No change.' : `Would change: ${changes.join(', ')}`);
        return;
      }
      onSaved(answer as Api);
      setText(pretty(apiPolicyOf(answer as Api)));
      setResult('Saved.');
    } catch (err) {
      setError(toApiError(err));
    }
  }

  return (
    <div class="card">
      <h2 id="api-policy-title">Policy</h2>
      <p class="meta">
        Checked by the gateway before any function runs: CORS, compression, error answers, and the API's authorizers and throttles where the
        server has them. Fields left out keep their values; <code>null</code> turns a setting off.
      </p>
      <Field label="API policy (JSON)" id="api-policy">
        <textarea id="api-policy" rows={10} value={text} onInput={(e) => setText(e.currentTarget.value)} spellcheck={false} />
      </Field>
      <ErrorBox error={error} />
      {result && (
        <p role="status" class="policy-result">
          {result}
        </p>
      )}
      <div class="row-actions">
        <button type="button" class="secondary" onClick={() => send(true)}>
          Check changes
        </button>
        <button type="button" onClick={() => send(false)}>
          Save policy
        </button>
      </div>
    </div>
  );
}

/**
 * A route's policy editor: PUT /api/apis/{id} with every route as it is and this
 * one's policy replaced (routes keep their ids across a replacement).
 */
export function RoutePolicyEditor({ apiData, route, onSaved, onClose }: { apiData: Api; route: Route; onSaved(a: Api): void; onClose(): void }) {
  const [text, setText] = useState(() => pretty(routePolicyOf(route)));
  const [error, setError] = useState<ApiError | null>(null);

  async function save(e: Event) {
    e.preventDefault();
    setError(null);
    try {
      const policy = (parseJson(text, 'route policy') ?? {}) as Record<string, unknown>;
      if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) {
        throw new ApiCallError({ error: 'route policy must be a JSON object', code: 'invalid_json', details: { field: 'route policy' } });
      }
      const routes = apiData.routes.map((r) => {
        const base = { method: r.method, path: r.path, function: r.function };
        return r.id === route.id ? { ...base, ...policy } : { ...base, ...routePolicyOf(r) };
      });
      const answer = await call(api.PUT('/api/apis/{id}', { params: { path: { id: apiData.id } }, body: { routes } as ApiUpdate }));
      if (!('dry_run' in answer)) onSaved(answer as Api);
      onClose();
    } catch (err) {
      setError(toApiError(err));
    }
  }

  const id = `route-policy-${route.id}`;
  return (
    <form class="card" onSubmit={save} aria-label={`Policy of route ${route.method} ${route.path}`}>
      <Field label={`Policy of ${route.method} ${route.path} (JSON)`} id={id}>
        <textarea id={id} rows={6} value={text} onInput={(e) => setText(e.currentTarget.value)} spellcheck={false} />
      </Field>
      <ErrorBox error={error} />
      <div class="row-actions">
        <button type="submit">Save route policy</button>
        <button type="button" class="secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
