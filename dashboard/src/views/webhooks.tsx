/**
 * Webhooks: the list with each one's health (from its newest deliveries),
 * create and edit (the API's own validation messages), test-fire,
 * enable/disable, delivery history, and one delivery's request, response,
 * attempts and retry.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../../../src/client/index.js';
import { api, call, type ApiError } from '../api.js';
import { AttemptsTable, ConfirmDelete, ErrorBox, Field, fieldOf, Json, parseJson, toApiError, useLoad, when } from '../components.js';
import { useLiveLoad, type LiveState } from '../live.js';
import { href, navigate } from '../router.js';

type Webhook = Schemas['Webhook'];
type Delivery = Schemas['Delivery'];
type DeliveryDetail = Schemas['DeliveryDetail'];
type AttemptDetail = Schemas['AttemptDetail'];

/** Health as the list answers it (counted by the server over each webhook's newest deliveries, in one query). */
function HealthCells({ health }: { health: Webhook['health'] }) {
  if (!health) return <td colSpan={3}>—</td>;
  return (
    <>
      <td class="last-outcome">
        {health.last_outcome ? <span class={`badge ${health.last_outcome}`}>{health.last_outcome}</span> : 'none yet'}
        {health.retrying > 0 && (
          <>
            {' '}
            <span class="badge retrying" title="Pending deliveries whose latest attempt failed, waiting for their next attempt">
              retrying {health.retrying}
            </span>
          </>
        )}
      </td>
      <td class="failures-in-a-row">{health.failures_in_a_row}</td>
      <td class="pending-count">{health.pending}</td>
    </>
  );
}

export function WebhooksView() {
  const { data, error } = useLoad(() => call(api.GET('/api/webhooks', {})), []);
  return (
    <section aria-labelledby="webhooks-title">
      <div class="title-row">
        <h1 id="webhooks-title">Webhooks</h1>
        <a class="button" href={href('webhooks', 'new')}>
          New webhook
        </a>
      </div>
      <ErrorBox error={error} />
      {data && data.length === 0 && <p>No webhooks yet.</p>}
      {data && data.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="hint">
              Health counts the newest {data[0].health?.window ?? 20} deliveries of each webhook; a pending one whose latest attempt
              failed (retrying) counts as failed.
            </caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Target</th>
                <th scope="col">Enabled</th>
                <th scope="col">Next fire</th>
                <th scope="col">Last outcome</th>
                <th scope="col">Failures in a row</th>
                <th scope="col">Pending</th>
              </tr>
            </thead>
            <tbody>
              {data.map((w) => (
                <tr key={w.id}>
                  <td>
                    <a href={href('webhooks', w.id)}>{w.name}</a>
                  </td>
                  <td>
                    <code class="url">
                      {w.method} {w.target_url}
                    </code>
                  </td>
                  <td>{w.enabled ? 'yes' : 'no'}</td>
                  <td>{when(w.next_fire_at)}</td>
                  <HealthCells health={w.health} />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

interface Form {
  name: string;
  target_url: string;
  method: Webhook['method'];
  events: string;
  cron: string;
  timezone: string;
  payload_template: string;
  headers: string;
  max_attempts: string;
  schedule_s: string;
  timeout_ms: string;
  mock_api: string;
  mock_path: string;
  enabled: boolean;
  new_secret: boolean;
}

const formOf = (w: Webhook | null): Form => ({
  name: w?.name ?? '',
  target_url: w?.target_url ?? '',
  method: w?.method ?? 'POST',
  events: w?.events?.join(', ') ?? '',
  cron: w?.cron ?? '',
  timezone: w?.timezone ?? '',
  payload_template: JSON.stringify(w?.payload_template ?? { event: '{{event}}', data: '{{data}}' }, null, 2),
  headers: JSON.stringify(w?.headers ?? {}, null, 2),
  max_attempts: w ? String(w.retry.max_attempts) : '',
  schedule_s: w?.retry.schedule_s?.join(', ') ?? '',
  timeout_ms: w ? String(w.timeout_ms) : '',
  mock_api: w?.mock_endpoint?.api_id ?? '',
  mock_path: w?.mock_endpoint?.path ?? '',
  enabled: w?.enabled ?? true,
  new_secret: false,
});

/**
 * Which input an API error names (`details.field`, e.g. `retry.schedule_s[1]`):
 * it is marked invalid and focused, beside the message in the error box.
 */
const INPUT_OF_FIELD: Array<[string, string]> = [
  ['name', 'wh-name'],
  ['target_url', 'wh-url'],
  ['method', 'wh-method'],
  ['events', 'wh-events'],
  ['cron', 'wh-cron'],
  ['timezone', 'wh-tz'],
  ['payload_template', 'wh-payload'],
  ['headers', 'wh-headers'],
  ['retry.max_attempts', 'wh-attempts'],
  ['retry.schedule_s', 'wh-schedule'],
  ['timeout_ms', 'wh-timeout'],
  ['mock_endpoint.path', 'wh-mock-path'],
  ['mock_endpoint', 'wh-mock-api'],
];

function inputOf(error: ApiError | null): string | null {
  const field = fieldOf(error);
  if (field === null) return null;
  return INPUT_OF_FIELD.find(([name]) => field === name || field.startsWith(`${name}.`) || field.startsWith(`${name}[`))?.[1] ?? null;
}

/**
 * What the page says after a save (and a generated secret, shown once), handed to
 * the page that mounts for the saved webhook: a save remounts the page with fresh data.
 */
let afterSave: { id: string; notice: string; secret: string | null } | null = null;

/**
 * A number typed in a field; text that is not one is sent as typed, so the
 * API's own message (naming the field) says what is wrong with it.
 */
const count = (text: string): number | undefined => {
  const t = text.trim();
  if (!t) return undefined;
  return (/^-?[0-9]+$/.test(t) ? Number(t) : t) as number;
};
const counts = (text: string): number[] | undefined => {
  const items = text.split(',').map((s) => s.trim()).filter(Boolean);
  return items.length ? items.map((item) => count(item)!) : undefined;
};

export function WebhookDetail({ id }: { id: string | null }) {
  const loaded = useLoad(() => (id ? call(api.GET('/api/webhooks/{id}', { params: { path: { id } } })) : Promise.resolve(null)), [id]);
  if (id && !loaded.data) {
    return (
      <section>
        <h1>Webhook</h1>
        <ErrorBox error={loaded.error} />
        {!loaded.error && <p>Loading…</p>}
      </section>
    );
  }
  const webhook = (loaded.data ?? null) as Webhook | null;
  return <WebhookPage key={webhook?.updated_at ?? 'new'} webhook={webhook} onSaved={(w) => (id ? loaded.setData(w) : navigate('webhooks', w.id))} />;
}

function WebhookPage({ webhook, onSaved }: { webhook: Webhook | null; onSaved(w: Webhook): void }) {
  const [form, setForm] = useState(() => formOf(webhook));
  const [error, setError] = useState<ApiError | null>(null);
  const [handedOver] = useState(() => {
    const mine = afterSave && afterSave.id === webhook?.id ? afterSave : null;
    if (mine) afterSave = null;
    return mine;
  });
  const [notice, setNotice] = useState<string | null>(handedOver?.notice ?? null);
  const [fired, setFired] = useState<Delivery | null>(null);
  const [secret] = useState<string | null>(handedOver?.secret ?? null);
  const set = (key: keyof Form) => (e: { currentTarget: { value: string } }) => setForm({ ...form, [key]: e.currentTarget.value });
  const apis = useLoad(() => call(api.GET('/api/apis', { params: { query: { limit: 1000 } } })), []);
  const invalid = inputOf(error);
  const marked = (id: string) => (invalid === id ? { 'aria-invalid': true as const } : {});
  useEffect(() => {
    if (invalid) document.getElementById(invalid)?.focus();
  }, [error]);

  async function save(e: Event) {
    e.preventDefault();
    setError(null);
    setNotice(null);
    try {
      const events = form.events
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const body = {
        name: form.name,
        target_url: form.target_url,
        method: form.method,
        payload_template: (parseJson(form.payload_template, 'payload_template') ?? {}) as Record<string, unknown>,
        headers: (parseJson(form.headers, 'headers') ?? {}) as Record<string, string>,
        events: events.length ? events : null,
        cron: form.cron.trim() || null,
        timezone: form.timezone.trim() || null,
        // Sent whole, both parts: a retry object replaces the stored one (a part left out is reset).
        ...(count(form.max_attempts) !== undefined || counts(form.schedule_s)
          ? { retry: { ...(count(form.max_attempts) !== undefined ? { max_attempts: count(form.max_attempts)! } : {}), ...(counts(form.schedule_s) ? { schedule_s: counts(form.schedule_s)! } : {}) } }
          : webhook?.retry.schedule_s
            ? { retry: null }
            : {}),
        mock_endpoint: form.mock_api ? { api_id: form.mock_api, path: form.mock_path.trim() } : null,
        ...(count(form.timeout_ms) !== undefined ? { timeout_ms: count(form.timeout_ms) } : {}),
        ...(form.new_secret ? { secret: 'generate' } : {}),
      };
      const saved = webhook
        ? await call(api.PUT('/api/webhooks/{id}', { params: { path: { id: webhook.id } }, body }))
        : await call(
            api.POST('/api/webhooks', {
              body: { ...body, events: body.events ?? undefined, cron: body.cron ?? undefined, timezone: body.timezone ?? undefined, enabled: form.enabled },
            }),
          );
      if ('dry_run' in saved) return;
      afterSave = { id: saved.id, notice: webhook ? 'Saved' : 'Created', secret: saved.secret ?? null };
      onSaved(saved);
    } catch (err) {
      setError(toApiError(err));
    }
  }

  async function setEnabled(enabled: boolean) {
    if (!webhook) return;
    setError(null);
    try {
      const saved = await call(api.PUT('/api/webhooks/{id}', { params: { path: { id: webhook.id } }, body: { enabled } }));
      if (!('dry_run' in saved)) onSaved(saved);
    } catch (err) {
      setError(toApiError(err));
    }
  }

  async function testFire() {
    if (!webhook) return;
    setError(null);
    try {
      setFired(await call(api.POST('/api/webhooks/{id}/test', { params: { path: { id: webhook.id } } })));
    } catch (err) {
      setError(toApiError(err));
    }
  }

  return (
    <section aria-labelledby="webhook-title">
      <h1 id="webhook-title">{webhook ? webhook.name : 'New webhook'}</h1>
      {webhook && (
        <div class="card">
          <p class="meta">
            {webhook.enabled ? 'Enabled' : 'Disabled'} · next fires: {webhook.next_fires?.length ? webhook.next_fires.map((t) => when(t)).join(', ') : 'none scheduled'}
          </p>
          <div class="actions">
            <button type="button" onClick={testFire}>
              Test-fire now
            </button>
            <button type="button" class="secondary" onClick={() => setEnabled(!webhook.enabled)}>
              {webhook.enabled ? 'Disable' : 'Enable'}
            </button>
          </div>
          {fired && (
            <p role="status" class="fired">
              Test delivery <a href={href('deliveries', fired.id)}>{fired.id}</a>: <span class={`badge ${fired.status}`}>{fired.status}</span>
              {fired.response ? ` (HTTP ${fired.response.status})` : ''}
            </p>
          )}
        </div>
      )}
      <form class="card" onSubmit={save} aria-label="Webhook settings">
        <div class="grid">
          <Field label="Name" id="wh-name">
            <input id="wh-name" {...marked('wh-name')} value={form.name} onInput={set('name')} required />
          </Field>
          <Field label="Method" id="wh-method">
            <select id="wh-method" {...marked('wh-method')} value={form.method} onChange={set('method')}>
              {['POST', 'PUT', 'PATCH', 'GET', 'DELETE'].map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          </Field>
          <Field label="Target URL" id="wh-url">
            <input id="wh-url" {...marked('wh-url')} type="url" value={form.target_url} onInput={set('target_url')} required />
          </Field>
          <Field label="Events (comma-separated)" id="wh-events">
            <input id="wh-events" {...marked('wh-events')} value={form.events} onInput={set('events')} placeholder="order.created, user.signed_up (or *)" />
          </Field>
          <Field label="Cron (five fields)" id="wh-cron">
            <input id="wh-cron" {...marked('wh-cron')} value={form.cron} onInput={set('cron')} placeholder="*/5 * * * *" />
          </Field>
          <Field label="Time zone" id="wh-tz">
            <input id="wh-tz" {...marked('wh-tz')} value={form.timezone} onInput={set('timezone')} placeholder="UTC" />
          </Field>
        </div>
        <Field label="Payload template (JSON)" id="wh-payload">
          <textarea id="wh-payload" {...marked('wh-payload')} rows={5} value={form.payload_template} onInput={set('payload_template')} spellcheck={false} />
        </Field>
        <Field label="Headers (JSON object)" id="wh-headers" hint="Sensitive values are shown masked; sending the mask back keeps them.">
          <textarea id="wh-headers" {...marked('wh-headers')} rows={3} value={form.headers} onInput={set('headers')} spellcheck={false} aria-describedby="wh-headers-hint" />
        </Field>
        <div class="grid">
          <Field label="Attempts at most" id="wh-attempts">
            <input id="wh-attempts" {...marked('wh-attempts')} inputMode="numeric" value={form.max_attempts} onInput={set('max_attempts')} placeholder="server default" />
          </Field>
          <Field label="Retry schedule (seconds, comma-separated)" id="wh-schedule" hint="Waits between attempts; empty: exponential backoff">
            <input
              id="wh-schedule"
              {...marked('wh-schedule')}
              value={form.schedule_s}
              onInput={set('schedule_s')}
              placeholder="10, 60, 600"
              aria-describedby="wh-schedule-hint"
            />
          </Field>
          <Field label="Timeout (ms)" id="wh-timeout">
            <input id="wh-timeout" {...marked('wh-timeout')} inputMode="numeric" value={form.timeout_ms} onInput={set('timeout_ms')} placeholder="server default" />
          </Field>
        </div>
        <fieldset class="grid mock">
          <legend>Mock endpoint (its answer fills the payload's data)</legend>
          <Field label="Mock API" id="wh-mock-api">
            <select id="wh-mock-api" {...marked('wh-mock-api')} value={form.mock_api} onChange={set('mock_api')}>
              <option value="">none</option>
              {/* A stored API id the list lacks (deleted since, or past the first page) stays selectable. */}
              {form.mock_api && !apis.data?.some((a) => a.id === form.mock_api) && <option value={form.mock_api}>{form.mock_api}</option>}
              {apis.data?.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name} ({a.basePath})
                </option>
              ))}
            </select>
          </Field>
          <Field label="Mock path (after the API id)" id="wh-mock-path">
            <input id="wh-mock-path" {...marked('wh-mock-path')} value={form.mock_path} onInput={set('mock_path')} placeholder="/orders/latest" disabled={!form.mock_api} />
          </Field>
        </fieldset>
        {!webhook && (
          <div class="field checkbox">
            <label>
              <input type="checkbox" checked={form.enabled} onChange={(e) => setForm({ ...form, enabled: e.currentTarget.checked })} /> Enabled (fires on its
              schedule and events)
            </label>
          </div>
        )}
        <div class="field checkbox">
          <label>
            <input type="checkbox" checked={form.new_secret} onChange={(e) => setForm({ ...form, new_secret: e.currentTarget.checked })} />{' '}
            {webhook?.has_secret ? 'Replace the signing secret with a new one' : 'Sign deliveries with a new secret'}
          </label>
        </div>
        {secret && (
          <p class="secret" role="status">
            Signing secret (shown this once): <code>{secret}</code>
          </p>
        )}
        <ErrorBox error={error} />
        <div class="actions">
          <button type="submit">{webhook ? 'Save' : 'Create webhook'}</button>
          {notice && <span role="status">{notice}</span>}
        </div>
      </form>
      {webhook && <Deliveries id={webhook.id} fired={fired?.id ?? null} />}
      {webhook && (
        <div class="card">
          <ConfirmDelete
            what={`webhook ${webhook.name}`}
            onDelete={async () => {
              await call(api.DELETE('/api/webhooks/{id}', { params: { path: { id: webhook.id } } }));
              navigate('webhooks');
            }}
          />
        </div>
      )}
    </section>
  );
}

/** Whether the page follows the deliveries stream now; a screen reader hears it change. */
function LiveBadge({ state }: { state: LiveState }) {
  return (
    <span class={`badge live-state ${state}`} role="status" title="Updates as attempts are recorded, on any node">
      {state === 'live' ? 'live' : state}
    </span>
  );
}

/** The webhook's newest deliveries, read again whenever the stream reports one of its attempts. */
function Deliveries({ id, fired }: { id: string; fired: string | null }) {
  const { data, error, reload, live } = useLiveLoad(
    () => call(api.GET('/api/webhooks/{id}/deliveries', { params: { path: { id }, query: { limit: 50 } } })),
    { webhook: id },
    () => true,
    [id],
  );
  // A test-fire from this page shows at once, even while the stream is down.
  useEffect(() => void (fired && reload()), [fired]);
  return (
    <section class="card" aria-labelledby="deliveries-title">
      <div class="title-row">
        <h2 id="deliveries-title">
          Deliveries <LiveBadge state={live.state} />
        </h2>
        <button type="button" class="secondary" onClick={reload}>
          Refresh
        </button>
      </div>
      <ErrorBox error={live.error} />
      <ErrorBox error={error} />
      {data && data.length === 0 && <p>No deliveries yet.</p>}
      {data && data.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Delivery</th>
                <th scope="col">Trigger</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {data.map((d) => (
                <tr key={d.id}>
                  <td>
                    <a href={href('deliveries', d.id)}>{d.id}</a>
                  </td>
                  <td>{d.trigger}</td>
                  <td>
                    <span class={`badge ${d.status}`}>{d.status}</span>
                  </td>
                  <td>{d.attempts.length}</td>
                  <td>{when(d.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** One attempt's answer; the newest falls back to the delivery's own (an attempt recorded before attempts kept theirs). */
function AttemptResponse({ delivery, attempt, newest }: { delivery: DeliveryDetail; attempt: AttemptDetail | undefined; newest: boolean }) {
  const response = attempt?.response ?? (newest ? delivery.response : null);
  if (response) {
    return (
      <>
        <p>
          HTTP <strong class="response-status">{response.status}</strong>
        </p>
        <Json value={response.headers} />
        <Json value={response.body} />
      </>
    );
  }
  if (!attempt) return <p>No attempt yet.</p>;
  if (attempt.response_status === null) return <p>No answer: {attempt.error ?? 'none recorded'}.</p>;
  return (
    <p>
      HTTP <strong class="response-status">{attempt.response_status}</strong>; its headers and body were not kept
      (recorded before attempts kept their answers).
    </p>
  );
}

/** When the delivery was made, finished, or will be tried next: the engine's schedule, as the API answers it. */
function DeliveryTiming({ delivery }: { delivery: DeliveryDetail }) {
  const failedSoFar = delivery.status === 'pending' && delivery.attempts.length > 0;
  return (
    <dl class="facts delivery-timing">
      <dt>Created</dt>
      <dd>{when(delivery.created_at)}</dd>
      {delivery.scheduled_for && (
        <>
          <dt>Scheduled for</dt>
          <dd>{when(delivery.scheduled_for)}</dd>
        </>
      )}
      {delivery.status === 'pending' ? (
        <>
          <dt>Next attempt</dt>
          <dd class="next-attempt">
            {delivery.next_attempt_at ? (
              <time dateTime={delivery.next_attempt_at}>{when(delivery.next_attempt_at)}</time>
            ) : (
              'not scheduled'
            )}
            {failedSoFar && ` (attempt ${delivery.attempts.length + 1}, after ${delivery.attempts.length} failed)`}
          </dd>
        </>
      ) : (
        <>
          <dt>Finished</dt>
          <dd>{when(delivery.completed_at)}</dd>
        </>
      )}
    </dl>
  );
}

export function DeliveryView({ id }: { id: string }) {
  // Its webhook's attempts are streamed (the stream filters by webhook, not delivery); only this delivery's trigger a read.
  const [webhookId, setWebhookId] = useState<string | null>(null);
  const { data, error, reload, live } = useLiveLoad(
    async () => {
      const d = await call(api.GET('/api/deliveries/{id}', { params: { path: { id } } }));
      setWebhookId(d.webhook_id);
      return d;
    },
    webhookId ? { webhook: webhookId } : null,
    (a) => a.delivery_id === id,
    [id],
  );
  // The attempt whose response is shown: the one the user chose, kept across live re-reads; null follows the newest.
  const [chosen, setChosen] = useState<number | null>(null);
  const [retryError, setRetryError] = useState<ApiError | null>(null);
  async function retry() {
    setRetryError(null);
    try {
      // The retry's answer is a list-shaped delivery (no attempt responses): read the page's shape again.
      await call(api.POST('/api/deliveries/{id}/retry', { params: { path: { id } } }));
      reload();
    } catch (err) {
      setRetryError(toApiError(err));
    }
  }
  if (!data) {
    return (
      <section>
        <h1>Delivery {id}</h1>
        <ErrorBox error={error} />
        {!error && <p>Loading…</p>}
      </section>
    );
  }
  const newest = data.attempts.at(-1);
  const shown = data.attempts.find((a) => a.attempt === chosen) ?? newest;
  return (
    <section aria-labelledby="delivery-title">
      <h1 id="delivery-title">Delivery {data.id}</h1>
      <p class="meta">
        <a href={href('webhooks', data.webhook_id)}>Its webhook</a> · {data.trigger}
        {data.event ? ` (${data.event})` : ''} · <span class={`badge ${data.status}`}>{data.status}</span>
        {data.error ? ` · ${data.error}` : ''}
      </p>
      <DeliveryTiming delivery={data} />
      <div class="actions">
        <button type="button" onClick={retry} disabled={data.status === 'pending'} aria-describedby={data.status === 'pending' ? 'retry-why' : undefined}>
          Retry
        </button>
        {data.status === 'pending' && (
          <span id="retry-why" class="hint">
            Retry is for a finished delivery: this one is pending, and is tried again on its own schedule
            {data.next_attempt_at ? ` (next attempt ${when(data.next_attempt_at)})` : ''}.
          </span>
        )}
      </div>
      <ErrorBox error={retryError} />
      <div class="side-by-side">
        <section class="card" aria-labelledby="request-title">
          <h2 id="request-title">Request</h2>
          {data.request ? (
            <>
              <p class="meta">
                Rendered once: every attempt sends this request, with the same <code>webhook-id</code>. Each attempt
                adds its own <code>webhook-timestamp</code> (when it was sent) and, when the webhook has a secret, a{' '}
                <code>webhook-signature</code> over the id, that timestamp and the body; those two headers are not kept.
              </p>
              <p>
                <code class="url">
                  {data.request.method} {data.request.url}
                </code>
              </p>
              <Json value={data.request.headers} />
              <Json value={data.request.body ?? ''} />
            </>
          ) : (
            <p>Not rendered yet.</p>
          )}
        </section>
        <section class="card" aria-labelledby="response-title">
          <h2 id="response-title">Response{shown ? ` (attempt ${shown.attempt})` : ''}</h2>
          <AttemptResponse delivery={data} attempt={shown} newest={shown === newest} />
        </section>
      </div>
      <section class="card" aria-labelledby="attempts-title">
        <h2 id="attempts-title">
          Attempts <LiveBadge state={live.state} />
        </h2>
        <AttemptsTable
          className="attempts"
          attempts={data.attempts}
          result={['Status', (a) => a.response_status ?? '—']}
          choice={{ shown: shown?.attempt ?? null, choose: setChosen }}
        />
      </section>
    </section>
  );
}
