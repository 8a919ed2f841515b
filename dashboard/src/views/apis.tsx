/** APIs and routes: the list with invoke URLs, one API's routes (add, remove, their policy), its policy and a try-it panel. */
import { useState } from 'preact/hooks';
import type { Schemas } from '../../../src/client/index.js';
import { api, call, type ApiError } from '../api.js';
import { ConfirmDelete, ErrorBox, Field, toApiError, useLoad } from '../components.js';
import { href, navigate } from '../router.js';
import { TryIt } from './try-it.js';
import { ApiPolicyCard, RoutePolicyEditor, routePolicySummary } from './api-policy.js';
import { routeMethodValues } from '../schema-enums.js';

const METHODS = routeMethodValues;

export function ApisView() {
  const { data, error } = useLoad(() => call(api.GET('/api/apis', {})), []);
  const [name, setName] = useState('');
  const [basePath, setBasePath] = useState('/');
  const [createError, setCreateError] = useState<ApiError | null>(null);
  async function create(e: Event) {
    e.preventDefault();
    setCreateError(null);
    try {
      const created = await call(api.POST('/api/apis', { body: { name, basePath, routes: [] } }));
      if ('id' in created) navigate('apis', created.id);
    } catch (err) {
      setCreateError(toApiError(err));
    }
  }
  return (
    <section aria-labelledby="apis-title">
      <h1 id="apis-title">APIs and routes</h1>
      <ErrorBox error={error} />
      {data && data.length === 0 && <p>No APIs yet.</p>}
      {data && data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Base path</th>
                <th scope="col">Routes</th>
                <th scope="col">Invoke URL</th>
              </tr>
            </thead>
            <tbody>
              {data.map((a) => (
                <tr key={a.id}>
                  <td>
                    <a href={href('apis', a.id)}>{a.name}</a>
                  </td>
                  <td>
                    <code>{a.basePath}</code>
                  </td>
                  <td>{a.routes.length}</td>
                  <td>
                    <code class="url">{a.invokeUrl}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form class="card" onSubmit={create} aria-labelledby="new-api-title">
        <h2 id="new-api-title">New API</h2>
        <div class="grid">
          <Field label="Name" id="api-name">
            <input id="api-name" value={name} onInput={(e) => setName(e.currentTarget.value)} required />
          </Field>
          <Field label="Base path" id="api-base">
            <input id="api-base" value={basePath} onInput={(e) => setBasePath(e.currentTarget.value)} required />
          </Field>
        </div>
        <ErrorBox error={createError} />
        <button type="submit">Create API</button>
      </form>
    </section>
  );
}

export function ApiDetail({ id }: { id: string }) {
  const { data, error, setData, reload } = useLoad(() => call(api.GET('/api/apis/{id}', { params: { path: { id } } })), [id]);
  const functions = useLoad(() => call(api.GET('/api/functions', {})), []);
  const [route, setRoute] = useState({ method: 'GET' as (typeof METHODS)[number], path: '/', function: '' });
  const [routeError, setRouteError] = useState<ApiError | null>(null);
  const [tryRoute, setTryRoute] = useState<{ method: string; path: string; n: number }>({ method: 'GET', path: '/', n: 0 });
  const [editing, setEditing] = useState<string | null>(null);
  const apiData = data as Schemas['Api'] | undefined;

  async function addRoute(e: Event) {
    e.preventDefault();
    setRouteError(null);
    try {
      const fn = route.function || functions.data?.[0]?.name || '';
      await call(api.POST('/api/apis/{id}/routes', { params: { path: { id } }, body: { ...route, function: fn } }));
      reload();
    } catch (err) {
      setRouteError(toApiError(err));
    }
  }
  async function removeRoute(routeId: string) {
    setRouteError(null);
    try {
      await call(api.DELETE('/api/apis/{id}/routes/{routeId}', { params: { path: { id, routeId } } }));
      if (apiData) setData({ ...apiData, routes: apiData.routes.filter((r) => r.id !== routeId) });
    } catch (err) {
      setRouteError(toApiError(err));
    }
  }

  if (!apiData) {
    return (
      <section>
        <h1>API {id}</h1>
        <ErrorBox error={error} />
        {!error && <p>Loading…</p>}
      </section>
    );
  }
  return (
    <section aria-labelledby="api-title">
      <h1 id="api-title">{apiData.name}</h1>
      <p class="meta">
        Invoke URL: <code class="url invoke-url">{apiData.invokeUrl}</code>
      </p>
      <div class="card">
        <h2>Routes</h2>
        {apiData.routes.length === 0 ? (
          <p>No routes yet.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Method</th>
                  <th scope="col">Path</th>
                  <th scope="col">Function</th>
                  <th scope="col">Policy</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {apiData.routes.map((r) => (
                  <tr key={r.id}>
                    <td>{r.method}</td>
                    <td>
                      <code>{r.path}</code>
                    </td>
                    <td>
                      <a href={href('functions', r.function)}>{r.function}</a>
                    </td>
                    <td class="route-policy">{routePolicySummary(r)}</td>
                    <td class="row-actions">
                      <button type="button" class="secondary" onClick={() => setEditing(r.id)} aria-label={`Edit policy of route ${r.method} ${r.path}`}>
                        Policy
                      </button>
                      <button
                        type="button"
                        class="secondary"
                        onClick={() => {
                          setTryRoute({ method: r.method === 'ANY' ? 'GET' : r.method, path: r.path, n: tryRoute.n + 1 });
                          document.getElementById('try-title')?.scrollIntoView();
                        }}
                        aria-label={`Try route ${r.method} ${r.path}`}
                      >
                        Try
                      </button>
                      <button type="button" class="secondary" onClick={() => removeRoute(r.id)} aria-label={`Remove route ${r.method} ${r.path}`}>
                        Remove
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {apiData.routes
          .filter((r) => r.id === editing)
          .map((r) => (
            <RoutePolicyEditor key={r.id} apiData={apiData} route={r} onSaved={setData} onClose={() => setEditing(null)} />
          ))}
        <form onSubmit={addRoute} aria-labelledby="add-route-title">
          <h3 id="add-route-title">Add a route</h3>
          <div class="grid">
            <Field label="Method" id="route-method">
              <select id="route-method" value={route.method} onChange={(e) => setRoute({ ...route, method: e.currentTarget.value as (typeof METHODS)[number] })}>
                {METHODS.map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </select>
            </Field>
            <Field label="Path" id="route-path">
              <input id="route-path" value={route.path} onInput={(e) => setRoute({ ...route, path: e.currentTarget.value })} required />
            </Field>
            <Field label="Function" id="route-function">
              <select id="route-function" value={route.function || functions.data?.[0]?.name || ''} onChange={(e) => setRoute({ ...route, function: e.currentTarget.value })}>
                {(functions.data ?? []).map((f) => (
                  <option key={f.name}>{f.name}</option>
                ))}
              </select>
            </Field>
          </div>
          <ErrorBox error={routeError} />
          <button type="submit">Add route</button>
        </form>
      </div>
      <ApiPolicyCard key={apiData.id} apiData={apiData} onSaved={setData} />
      <TryIt key={tryRoute.n} invokeUrl={apiData.invokeUrl} method={tryRoute.method} path={tryRoute.path} />
      <div class="card">
        <ConfirmDelete
          what={`API ${apiData.name}`}
          onDelete={async () => {
            await call(api.DELETE('/api/apis/{id}', { params: { path: { id } } }));
            navigate('apis');
          }}
        />
      </div>
    </section>
  );
}
