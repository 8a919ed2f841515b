/**
 * The consumer portal: where an application's customer manages its webhook
 * endpoints (add, test, enable/disable, delete, rotate the secret), reads the
 * event catalogue, and follows its deliveries (each attempt's request and
 * answer, retry, recover). Views are plain state (no router: the page may be
 * framed, and its URL must carry nothing but the application id).
 */
import { render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { client, hasToken, ok, PortalError, type Delivery, type DeliveryDetail, type EventType, type Session, type Webhook, whenTokenRefused } from './api.js';
import './styles.css';

type View = { kind: 'endpoints' } | { kind: 'events' } | { kind: 'endpoint'; id: string } | { kind: 'delivery'; id: string; endpoint: string };

const json = (v: unknown) => JSON.stringify(v, null, 2);
const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/** WCAG relative luminance of `#rrggbb`. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/**
 * Theme from the application's settings: CSS variables set through the CSSOM (the CSP allows no inline style).
 * The accent is the operator's brand colour, whatever its lightness: text on it is black or white, whichever
 * contrasts more (one of them always reaches 4.5:1), so no accent makes the buttons unreadable.
 */
function applyTheme(theme: Session['theme']): void {
  const root = document.documentElement;
  if (theme.primary_color) {
    root.style.setProperty('--accent', theme.primary_color);
    // Contrast with black (L + 0.05) / 0.05 beats contrast with white 1.05 / (L + 0.05) above L = 0.179.
    root.style.setProperty('--on-accent', luminance(theme.primary_color) > 0.179 ? '#000' : '#fff');
  }
  root.dataset.mode = theme.mode;
}

const EXPIRED = 'This portal link has expired or was revoked. Ask for a new one.';

function Notice({ error, message }: { error: PortalError | null; message: string | null }) {
  return (
    <>
      <div role="status" aria-live="polite" class="status">
        {message}
      </div>
      {error && (
        <div role="alert" class="error">
          {error.message} <span class="meta">({error.code})</span>
        </div>
      )}
    </>
  );
}

/** Runs an action, showing its error or a confirmation. */
function useAction() {
  const [error, setError] = useState<PortalError | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const run = useCallback(async (fn: () => Promise<string | void>) => {
    setError(null);
    setMessage(null);
    try {
      const done = await fn();
      if (done) setMessage(done);
    } catch (e) {
      setError(e instanceof PortalError ? e : new PortalError('error', String(e), 0));
    }
  }, []);
  return { error, message, run };
}

function Secret({ secret }: { secret: string | null | undefined }) {
  if (!secret) return null;
  return (
    <div class="card secret">
      <p>
        <strong>Signing secret</strong> (shown once: keep it now)
      </p>
      <code>{secret}</code>
    </div>
  );
}

function EndpointForm({ types, onCreated }: { types: EventType[]; onCreated: (w: Webhook) => void }) {
  const { error, message, run } = useAction();
  const [events, setEvents] = useState<string[]>([]);
  const submit = (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    void run(async () => {
      const filterText = String(f.get('filter') ?? '').trim();
      let filter: Record<string, unknown> | undefined;
      if (filterText) {
        try {
          filter = JSON.parse(filterText) as Record<string, unknown>;
        } catch {
          throw new PortalError('invalid_filter', 'The filter is not valid JSON.', 0);
        }
      }
      const perSecond = Number(f.get('rate') || 0);
      const body = {
        name: String(f.get('name')),
        target_url: String(f.get('url')),
        events: events.length ? events : ['*'],
        ...(filter ? { filter } : {}),
        ...(perSecond > 0 ? { rate_limit: { per_second: perSecond } } : {}),
      };
      onCreated(await ok(client.POST('/api/portal/endpoints', { body })));
      (e.target as HTMLFormElement).reset();
      setEvents([]);
      return 'Endpoint added.';
    });
  };
  const toggle = (name: string) => setEvents((was) => (was.includes(name) ? was.filter((n) => n !== name) : [...was, name]));
  return (
    <form class="card" onSubmit={submit} aria-labelledby="add-title">
      <h2 id="add-title">Add an endpoint</h2>
      <label>
        Name <input name="name" required maxLength={200} autocomplete="off" />
      </label>
      <label>
        URL <input name="url" type="url" required placeholder="https://example.com/webhooks" />
      </label>
      <fieldset>
        <legend>Event types (none chosen: every event)</legend>
        {types.length === 0 && <p class="hint">No event types are catalogued.</p>}
        {types.map((t) => (
          <label class="check" key={t.name}>
            <input type="checkbox" checked={events.includes(t.name)} onChange={() => toggle(t.name)} /> {t.name}
          </label>
        ))}
      </fieldset>
      <label>
        Filter (JSON, optional) <textarea name="filter" rows={3} placeholder='{"data": {"amount": {"$gte": 100}}}' />
      </label>
      <label>
        Rate limit (requests per second, optional) <input name="rate" type="number" min="0.01" step="any" inputMode="decimal" />
      </label>
      <button type="submit">Add endpoint</button>
      <Notice error={error} message={message} />
    </form>
  );
}

function EndpointsView({ open }: { open: (v: View) => void }) {
  const [list, setList] = useState<Webhook[] | null>(null);
  const [types, setTypes] = useState<EventType[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const { error, message, run } = useAction();
  useEffect(() => {
    void run(async () => {
      const [endpoints, catalogue] = await Promise.all([ok(client.GET('/api/portal/endpoints')), ok(client.GET('/api/portal/event-types'))]);
      setList(endpoints);
      setTypes(catalogue);
    });
  }, [run]);
  return (
    <>
      <h1>Endpoints</h1>
      <Notice error={error} message={message} />
      <Secret secret={secret} />
      {list === null ? (
        <p>Loading…</p>
      ) : list.length === 0 ? (
        <p>No endpoints yet.</p>
      ) : (
        <ul class="list" aria-label="Endpoints">
          {list.map((w) => (
            <li key={w.id} class="card">
              <button type="button" class="link" onClick={() => open({ kind: 'endpoint', id: w.id })}>
                {w.name}
              </button>
              <span class={w.enabled ? 'badge good' : 'badge'}>{w.enabled ? 'enabled' : 'disabled'}</span>
              <div class="meta wrap">{w.target_url}</div>
              <div class="meta">Events: {w.events?.join(', ') || '—'}</div>
            </li>
          ))}
        </ul>
      )}
      <EndpointForm
        types={types}
        onCreated={(w) => {
          setSecret(w.secret ?? null);
          setList((was) => [...(was ?? []), w]);
        }}
      />
    </>
  );
}

function EndpointView({ id, open }: { id: string; open: (v: View) => void }) {
  const [w, setW] = useState<Webhook | null>(null);
  const [deliveries, setDeliveries] = useState<Delivery[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const { error, message, run } = useAction();
  const params = { path: { id } };
  const load = useCallback(async () => {
    const [endpoint, list] = await Promise.all([ok(client.GET('/api/portal/endpoints/{id}', { params })), ok(client.GET('/api/portal/endpoints/{id}/deliveries', { params }))]);
    setW(endpoint);
    setDeliveries(list);
  }, [id]);
  useEffect(() => void run(load), [run, load]);
  if (!w) return <Notice error={error} message={message ?? 'Loading…'} />;
  const recover = (e: Event) => {
    e.preventDefault();
    const since = String(new FormData(e.currentTarget as HTMLFormElement).get('since'));
    void run(async () => {
      const job = await ok(client.POST('/api/portal/endpoints/{id}/recover', { params, body: { since: new Date(since).toISOString() } }));
      return `Recovery started (${job.id}).`;
    });
  };
  return (
    <>
      <p>
        <button type="button" class="link" onClick={() => open({ kind: 'endpoints' })}>
          ← All endpoints
        </button>
      </p>
      <h1>{w.name}</h1>
      <dl class="facts">
        <dt>URL</dt>
        <dd class="wrap">{w.target_url}</dd>
        <dt>Events</dt>
        <dd>{w.events?.join(', ') || '—'}</dd>
        <dt>State</dt>
        <dd>{w.enabled ? 'Enabled' : 'Disabled'}</dd>
        <dt>Rate limit</dt>
        <dd>{w.rate_limit ? `${w.rate_limit.per_second} per second` : 'None'}</dd>
        <dt>Filter</dt>
        <dd>{w.filter ? <pre>{json(w.filter)}</pre> : 'None'}</dd>
      </dl>
      <div class="actions">
        <button type="button" onClick={() => void run(async () => `Test sent: ${(await ok(client.POST('/api/portal/endpoints/{id}/test', { params, body: {} }))).status}.`).then(load)}>
          Send a test event
        </button>
        <button type="button" class="secondary" onClick={() => void run(async () => {
          const verb = w.enabled ? '/api/portal/endpoints/{id}/disable' : '/api/portal/endpoints/{id}/enable';
          setW(await ok(client.POST(verb, { params })));
          return w.enabled ? 'Disabled.' : 'Enabled.';
        })}>
          {w.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" class="secondary" onClick={() => void run(async () => {
          const rotated = await ok(client.POST('/api/portal/endpoints/{id}/rotate-secret', { params, body: {} }));
          setSecret(rotated.secret ?? null);
          return 'Secret rotated: the previous one keeps signing for a while.';
        })}>
          Rotate secret
        </button>
        <button type="button" class="danger" onClick={() => {
          if (!confirmDelete) return setConfirmDelete(true);
          void run(async () => {
            await ok(client.DELETE('/api/portal/endpoints/{id}', { params }));
            open({ kind: 'endpoints' });
          });
        }}>
          {confirmDelete ? 'Really delete' : 'Delete'}
        </button>
      </div>
      <Notice error={error} message={message} />
      <Secret secret={secret} />
      <form class="card" onSubmit={recover} aria-labelledby="recover-title">
        <h2 id="recover-title">Recover failed deliveries</h2>
        <label>
          Since <input name="since" type="datetime-local" required />
        </label>
        <button type="submit">Recover</button>
      </form>
      <h2>Deliveries</h2>
      {deliveries.length === 0 ? (
        <p>No deliveries yet.</p>
      ) : (
        <ul class="list" aria-label="Deliveries">
          {deliveries.map((d) => (
            <li key={d.id} class="card">
              <button type="button" class="link" onClick={() => open({ kind: 'delivery', id: d.id, endpoint: id })}>
                {d.event ?? d.trigger} · {when(d.created_at)}
              </button>
              <span class={`badge ${d.status === 'succeeded' ? 'good' : d.status === 'failed' ? 'bad' : ''}`}>{d.status}</span>
              <span class="meta"> {d.attempts.length} attempt(s)</span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function Exchange({ title, value }: { title: string; value: unknown }) {
  return (
    <details>
      <summary>{title}</summary>
      <pre>{value === null || value === undefined ? 'None' : json(value)}</pre>
    </details>
  );
}

function DeliveryView({ id, endpoint, open }: { id: string; endpoint: string; open: (v: View) => void }) {
  const [d, setD] = useState<DeliveryDetail | null>(null);
  const { error, message, run } = useAction();
  const load = useCallback(async () => setD(await ok(client.GET('/api/portal/deliveries/{id}', { params: { path: { id } } }))), [id]);
  useEffect(() => void run(load), [run, load]);
  return (
    <>
      <p>
        <button type="button" class="link" onClick={() => open({ kind: 'endpoint', id: endpoint })}>
          ← Endpoint
        </button>
      </p>
      <h1>Delivery</h1>
      <Notice error={error} message={message} />
      {d && (
        <>
          <dl class="facts">
            <dt>Event</dt>
            <dd>{d.event ?? d.trigger}</dd>
            <dt>Status</dt>
            <dd>{d.status}</dd>
            <dt>Created</dt>
            <dd>{when(d.created_at)}</dd>
            {d.error && (
              <>
                <dt>Error</dt>
                <dd>{d.error}</dd>
              </>
            )}
          </dl>
          <button type="button" onClick={() => void run(async () => {
            await ok(client.POST('/api/portal/deliveries/{id}/retry', { params: { path: { id } } }));
            await load();
            return 'Retried.';
          })}>
            Retry
          </button>
          <Exchange title="Request" value={d.request} />
          <h2>Attempts</h2>
          {d.attempts.length === 0 && <p>No attempts yet.</p>}
          <ol class="list" aria-label="Attempts">
            {d.attempts.map((a) => (
              <li key={a.attempt} class="card">
                <p>
                  Attempt {a.attempt} · {when(a.started_at)} · {a.response_status ?? a.error ?? 'no answer'} · {Math.round(a.duration_ms)} ms
                </p>
                {a.sent && <Exchange title={`Request of attempt ${a.attempt}`} value={a.sent} />}
                <Exchange title={`Response to attempt ${a.attempt}`} value={a.response} />
              </li>
            ))}
          </ol>
        </>
      )}
    </>
  );
}

function EventsView() {
  const [types, setTypes] = useState<EventType[] | null>(null);
  const { error, message, run } = useAction();
  useEffect(() => void run(async () => setTypes(await ok(client.GET('/api/portal/event-types')))), [run]);
  return (
    <>
      <h1>Event types</h1>
      <Notice error={error} message={message} />
      {types?.length === 0 && <p>No event types are catalogued.</p>}
      {types?.map((t) => {
        const latest = t.versions[t.versions.length - 1];
        return (
          <section class="card" key={t.name} aria-labelledby={`type-${t.name}`}>
            <h2 id={`type-${t.name}`}>{t.name}</h2>
            {t.description && <p>{t.description}</p>}
            {t.deprecated && <p class="badge">deprecated</p>}
            {latest ? (
              <>
                <Exchange title={`Schema (version ${latest.version})`} value={latest.schema} />
                {latest.examples.map((ex, i) => (
                  <Exchange key={i} title={`Example ${i + 1}`} value={ex} />
                ))}
              </>
            ) : (
              <p class="hint">No schema yet.</p>
            )}
          </section>
        );
      })}
    </>
  );
}

function Shell({ session, children, view, open }: { session: Session; children: ComponentChildren; view: View; open: (v: View) => void }) {
  const main = useRef<HTMLElement>(null);
  // Each view change moves focus to its content, so a screen reader announces where it is.
  useEffect(() => main.current?.focus(), [view]);
  const tab = (kind: 'endpoints' | 'events', label: string) => {
    const current = view.kind === kind || (kind === 'endpoints' && (view.kind === 'endpoint' || view.kind === 'delivery'));
    return (
      <button type="button" class="tab" aria-current={current ? 'page' : undefined} onClick={() => open({ kind })}>
        {label}
      </button>
    );
  };
  return (
    <>
      <header class="top">
        {session.theme.logo_url && <img src={session.theme.logo_url} alt="" class="logo" />}
        <span class="brand">{session.application_name}</span>
        <nav aria-label="Portal">
          {tab('endpoints', 'Endpoints')}
          {tab('events', 'Event types')}
        </nav>
      </header>
      <main ref={main} tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [failure, setFailure] = useState<string | null>(hasToken() ? null : 'This link has no access token. Ask for a new portal link.');
  const [view, setView] = useState<View>({ kind: 'endpoints' });
  useEffect(() => {
    if (!hasToken()) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Any answer refusing the token (a refresh, or a view's call) replaces the page with the one notice, and stops the refreshes.
    whenTokenRefused(() => {
      clearTimeout(timer);
      setFailure(EXPIRED);
    });
    // Refresh at half the token's remaining life, so it lives while the page is open. Once a refresh can no longer
    // extend it (its maximum), one last call at its expiry gets the refusal that shows the notice. A failed call
    // that is no refusal (the network) is tried again on the same rule, at least 5 s apart: never a loop.
    const schedule = (s: Session) => {
      const left = new Date(s.expires_at).getTime() - Date.now();
      const atMax = s.expires_at >= s.max_expires_at;
      const retry = () => schedule(s);
      timer = setTimeout(
        () => void ok(client.POST('/api/portal/session/refresh')).then(schedule, (e: PortalError) => e.status !== 401 && retry()),
        Math.max(5_000, atMax ? left + 1_000 : left / 2),
      );
    };
    ok(client.GET('/api/portal/session')).then(
      (s) => {
        applyTheme(s.theme);
        setSession(s);
        schedule(s);
      },
      (e: PortalError) => e.status !== 401 && setFailure(e.message),
    );
    return () => clearTimeout(timer);
  }, []);
  if (failure) {
    return (
      <main>
        <h1>Webhooks portal</h1>
        <p role="alert">{failure}</p>
      </main>
    );
  }
  if (!session) return <main aria-busy="true"><p>Loading…</p></main>;
  return (
    <Shell session={session} view={view} open={setView}>
      {view.kind === 'endpoints' && <EndpointsView open={setView} />}
      {view.kind === 'events' && <EventsView />}
      {view.kind === 'endpoint' && <EndpointView id={view.id} open={setView} />}
      {view.kind === 'delivery' && <DeliveryView id={view.id} endpoint={view.endpoint} open={setView} />}
    </Shell>
  );
}

render(<App />, document.getElementById('app')!);
