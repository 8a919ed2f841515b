/**
 * Applications (`/api/applications`, one per customer): the list, a create
 * form, and per application a disclosure with the webhooks it owns and their
 * health (the webhooks list's cells) and **Open portal**, which asks for a
 * portal token (`POST /api/applications/{id}/portal-access`) and opens its
 * link in a new tab that gets no handle on this one (noopener, noreferrer).
 * One component with disclosures, no page per application: the dashboard's
 * size budget had about 3 KB left.
 */
import { useState } from 'preact/hooks';
import type { Schemas } from '../../../src/client/index.js';
import { api, call, type ApiError } from '../api.js';
import { ErrorBox, Field, invalidIf, toApiError, useLoad } from '../components.js';
import { href } from '../router.js';
import { HealthCells, HealthHeaders } from './webhooks.js';

type Application = Schemas['Application'];

function Endpoints({ app }: { app: Application }) {
  const { data, error } = useLoad(() => call(api.GET('/api/webhooks', { params: { query: { application: app.id } } })), [app.id]);
  if (error) return <ErrorBox error={error} />;
  if (!data) return null;
  if (data.length === 0) return <p>It owns no webhooks yet.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="hint">Webhooks of {app.name}, health over each one's newest deliveries</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Enabled</th>
            <HealthHeaders />
          </tr>
        </thead>
        <tbody>
          {data.map((w) => (
            <tr key={w.id}>
              <td>
                <a href={href('webhooks', w.id)}>{w.name}</a>
              </td>
              <td>{w.enabled ? (w.paused ? 'yes, paused' : 'yes') : 'no'}</td>
              <HealthCells health={w.health} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Portal({ app }: { app: Application }) {
  const [link, setLink] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const open = async () => {
    try {
      const access = await call(api.POST('/api/applications/{id}/portal-access', { params: { path: { id: app.id } }, body: {} }));
      setLink(access.url);
      setError(null);
      window.open(access.url, '_blank', 'noopener,noreferrer');
    } catch (err) {
      setError(toApiError(err));
    }
  };
  return (
    <div>
      <button type="button" onClick={() => void open()}>
        Open portal
      </button>{' '}
      {link && (
        // Where a popup blocker stopped the tab: the same link, to follow by hand.
        <a href={link} target="_blank" rel="noopener noreferrer">
          Portal link (a token of its own; do not share)
        </a>
      )}
      <ErrorBox error={error} />
    </div>
  );
}

function CreateForm({ onCreated }: { onCreated(): void }) {
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value.trim();
    const max = value('max_endpoints');
    try {
      await call(
        api.POST('/api/applications', { body: { name: value('name'), ...(value('uid') && { uid: value('uid') }), ...(max && { limits: { max_endpoints: Number(max) } }) } }),
      );
      form.reset();
      setError(null);
      onCreated();
    } catch (err) {
      setError(toApiError(err));
    }
  };
  return (
    <form class="card" onSubmit={(e) => void submit(e)} aria-labelledby="app-new">
      <h2 id="app-new">New application</h2>
      <Field label="Name" id="app-name">
        <input id="app-name" name="name" required aria-invalid={invalidIf(error, 'name')} />
      </Field>
      <Field label="Uid (your own id for the customer, optional)" id="app-uid">
        <input id="app-uid" name="uid" aria-invalid={invalidIf(error, 'uid')} />
      </Field>
      <Field label="Max endpoints (empty: no limit)" id="app-max">
        <input id="app-max" name="max_endpoints" type="number" min={0} aria-invalid={invalidIf(error, 'limits')} />
      </Field>
      <ErrorBox error={error} />
      <button type="submit">Create application</button>
    </form>
  );
}

/** Its webhooks are read when it is opened, not for every application on the page. */
function Item({ app }: { app: Application }) {
  const [open, setOpen] = useState(false);
  return (
    <details class="card application" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>
        {app.name}
        {app.uid && ` (${app.uid})`}
        {app.limits.max_endpoints !== null && `, at most ${app.limits.max_endpoints} endpoints`}
        {/* What `switchyard apply --prune` of that project may delete. */}
        {app.project && `, from project ${app.project}`}
      </summary>
      {open && (
        <>
          <Portal app={app} />
          <Endpoints app={app} />
        </>
      )}
    </details>
  );
}

export function ApplicationsView() {
  const { data, error, reload } = useLoad(() => call(api.GET('/api/applications', { params: { query: { limit: 1000 } } })), []);
  return (
    <section aria-labelledby="apps-title">
      <h1 id="apps-title">Applications</h1>
      <ErrorBox error={error} />
      {data?.length === 0 && <p>No applications yet.</p>}
      {data?.map((a) => (
        <Item key={a.id} app={a} />
      ))}
      <CreateForm onCreated={reload} />
    </section>
  );
}
