/**
 * A webhook's settings form, for a new webhook or an existing one: the API's
 * own validation messages, with the input that `details.field` names marked
 * invalid and focused. The methods offered come from the API's schema.
 * Endpoint health's settings (breaker, rate limit, auto-disable) are fields
 * of their own, sent as the API's objects; the payload filter and its tester
 * are webhook-filter.tsx's; the transformation is its own component
 * (webhook-transformation.tsx), which gets the code's text.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../../../src/client/index.js';
import { api, call, type ApiError } from '../api.js';
import { ErrorBox, Field, commaList, fieldOf, parseJson, toApiError, useLoad } from '../components.js';
import { webhookMethodValues } from '../schema-enums.js';
import { FilterField } from './webhook-filter.js';
import { TransformationFields } from './webhook-transformation.js';

type Webhook = Schemas['Webhook'];

/** The default method first, then the schema's order. */
const METHODS = ['POST', ...webhookMethodValues.filter((m) => m !== 'POST')] as const;

interface Form {
  name: string;
  target_url: string;
  method: Webhook['method'];
  events: string;
  cron: string;
  timezone: string;
  payload_template: string;
  headers: string;
  filter: string;
  max_attempts: string;
  schedule_s: string;
  timeout_ms: string;
  mock_api: string;
  mock_path: string;
  transformation: string;
  enabled: boolean;
  new_secret: boolean;
  breaker_on: boolean;
  min_attempts: string;
  failure_ratio: string;
  window_s: string;
  per_second: string;
  burst: string;
  auto_disable_on: boolean;
  after_s: string;
  min_span_s: string;
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
  filter: w?.filter ? JSON.stringify(w.filter, null, 2) : '',
  max_attempts: w ? String(w.retry.max_attempts) : '',
  schedule_s: w?.retry.schedule_s?.join(', ') ?? '',
  timeout_ms: w ? String(w.timeout_ms) : '',
  mock_api: w?.mock_endpoint?.api_id ?? '',
  mock_path: w?.mock_endpoint?.path ?? '',
  transformation: w?.transformation ?? '',
  enabled: w?.enabled ?? true,
  new_secret: false,
  breaker_on: w?.breaker.enabled ?? true,
  min_attempts: w ? String(w.breaker.min_attempts) : '',
  failure_ratio: w ? String(w.breaker.failure_ratio) : '',
  window_s: w ? String(w.breaker.window_s) : '',
  per_second: w?.rate_limit ? String(w.rate_limit.per_second) : '',
  burst: w?.rate_limit ? String(w.rate_limit.burst) : '',
  auto_disable_on: w?.auto_disable.enabled ?? true,
  after_s: w ? String(w.auto_disable.after_s) : '',
  min_span_s: w ? String(w.auto_disable.min_span_s) : '',
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
  ['filter', 'wh-filter'],
  ['retry.max_attempts', 'wh-attempts'],
  ['retry.schedule_s', 'wh-schedule'],
  ['timeout_ms', 'wh-timeout'],
  ['mock_endpoint.path', 'wh-mock-path'],
  ['mock_endpoint', 'wh-mock-api'],
  ['transformation', 'wh-transformation'],
  ['breaker.min_attempts', 'wh-min-attempts'],
  ['breaker.failure_ratio', 'wh-failure-ratio'],
  ['breaker.window_s', 'wh-window'],
  ['rate_limit.per_second', 'wh-rate'],
  ['rate_limit.burst', 'wh-burst'],
  ['auto_disable.after_s', 'wh-after'],
  ['auto_disable.min_span_s', 'wh-min-span'],
];

function inputOf(error: ApiError | null): string | null {
  const field = fieldOf(error);
  if (field === null) return null;
  return INPUT_OF_FIELD.find(([name]) => field === name || field.startsWith(`${name}.`) || field.startsWith(`${name}[`))?.[1] ?? null;
}

/**
 * A number typed in a field; text that is not one is sent as typed, so the
 * API's own message (naming the field) says what is wrong with it.
 */
const count = (text: string): number | undefined => {
  const t = text.trim();
  if (!t) return undefined;
  return (/^-?[0-9]+(\.[0-9]+)?$/.test(t) ? Number(t) : t) as number;
};
const counts = (text: string): number[] | undefined => {
  const items = commaList(text);
  return items.length ? items.map((item) => count(item)!) : undefined;
};

/** The API body of the form: what a create or an update sends (an update's `retry: null` resets a stored schedule). */
function bodyOf(form: Form, webhook: Webhook | null) {
  const events = commaList(form.events);
  return {
    name: form.name,
    target_url: form.target_url,
    method: form.method,
    payload_template: (parseJson(form.payload_template, 'payload_template') ?? {}) as Record<string, unknown>,
    headers: (parseJson(form.headers, 'headers') ?? {}) as Record<string, string>,
    filter: (parseJson(form.filter, 'filter') ?? null) as Record<string, unknown> | null,
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
    transformation: form.transformation.trim() ? form.transformation : null,
    ...(count(form.timeout_ms) !== undefined ? { timeout_ms: count(form.timeout_ms) } : {}),
    ...(form.new_secret ? { secret: 'generate' } : {}),
    // Each object is sent whole: a field left out of one is reset to its default.
    breaker: { enabled: form.breaker_on, min_attempts: count(form.min_attempts), failure_ratio: count(form.failure_ratio), window_s: count(form.window_s) },
    rate_limit: form.per_second || form.burst ? { per_second: count(form.per_second)!, burst: count(form.burst) } : null,
    auto_disable: { enabled: form.auto_disable_on, after_s: count(form.after_s), min_span_s: count(form.min_span_s) },
  };
}

export interface SaveNotice {
  notice: string | null;
  /** A generated secret, shown once. */
  secret: string | null;
}

/**
 * The form. `error` is the page's (test-fire and enable/disable report there
 * too); `onSaved` gets the saved webhook and what to say about it.
 */
export function WebhookForm({
  webhook,
  error,
  setError,
  handedOver,
  onSaved,
}: {
  webhook: Webhook | null;
  error: ApiError | null;
  setError(error: ApiError | null): void;
  handedOver: SaveNotice | null;
  onSaved(w: Webhook, said: SaveNotice): void;
}) {
  const [form, setForm] = useState(() => formOf(webhook));
  const [notice, setNotice] = useState<string | null>(handedOver?.notice ?? null);
  const secret = handedOver?.secret ?? null;
  const set = (key: keyof Form) => (e: { currentTarget: { value: string } }) => setForm({ ...form, [key]: e.currentTarget.value });
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
      const body = bodyOf(form, webhook);
      const saved = webhook
        ? await call(api.PUT('/api/webhooks/{id}', { params: { path: { id: webhook.id } }, body }))
        : await call(
            api.POST('/api/webhooks', {
              body: { ...body, events: body.events ?? undefined, cron: body.cron ?? undefined, timezone: body.timezone ?? undefined, enabled: form.enabled },
            }),
          );
      if ('dry_run' in saved) return;
      onSaved(saved, { notice: webhook ? 'Saved' : 'Created', secret: saved.secret ?? null });
    } catch (err) {
      setError(toApiError(err));
    }
  }

  return (
    <form class="card" onSubmit={save} aria-label="Webhook settings">
      <div class="grid">
        <Field label="Name" id="wh-name">
          <input id="wh-name" {...marked('wh-name')} value={form.name} onInput={set('name')} required />
        </Field>
        <Field label="Method" id="wh-method">
          <select id="wh-method" {...marked('wh-method')} value={form.method} onChange={set('method')}>
            {METHODS.map((m) => (
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
      <FilterField value={form.filter} onInput={(filter) => setForm({ ...form, filter })} marked={marked} />
      <MockEndpointFields form={form} set={set} marked={marked} />
      <TransformationFields
        code={form.transformation}
        onChange={(transformation) => setForm((f) => ({ ...f, transformation }))}
        error={error}
        sample={{ method: form.method, url: form.target_url, headers: headersOf(form.headers) }}
      />
      <HealthFields form={form} setForm={setForm} set={set} marked={marked} />
      {!webhook && (
        <div class="field checkbox">
          <label>
            <input type="checkbox" checked={form.enabled} onChange={(e) => setForm({ ...form, enabled: e.currentTarget.checked })} /> Enabled (fires on its
            schedule and events)
          </label>
        </div>
      )}
      {/* A webhook that exists changes its secret in the secrets card (webhook-secrets.tsx): a rotation, with an overlap. */}
      {!webhook && (
        <div class="field checkbox">
          <label>
            <input type="checkbox" checked={form.new_secret} onChange={(e) => setForm({ ...form, new_secret: e.currentTarget.checked })} /> Sign deliveries with
            a new secret
          </label>
        </div>
      )}
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
  );
}

/** The form's headers for the try-it panel: what parses as a JSON object, else none. */
function headersOf(text: string): Record<string, string> {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

type Setter = (key: keyof Form) => (e: { currentTarget: { value: string } }) => void;
type Marker = (id: string) => { 'aria-invalid'?: true };

/** The mock endpoint: an API of this server (the list is read here) and a path on it. */
function MockEndpointFields({ form, set, marked }: { form: Form; set: Setter; marked: Marker }) {
  const apis = useLoad(() => call(api.GET('/api/apis', { params: { query: { limit: 1000 } } })), []);
  return (
    <fieldset class="grid group">
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
  );
}

/** Endpoint health's settings: when the breaker opens, a rate limit, when a webhook that keeps failing is disabled. */
function HealthFields({ form, setForm, set, marked }: { form: Form; setForm(f: Form): void; set: Setter; marked: Marker }) {
  const check = (key: 'breaker_on' | 'auto_disable_on', label: string) => (
    <div class="field checkbox">
      <label>
        <input type="checkbox" checked={form[key]} onChange={(e) => setForm({ ...form, [key]: e.currentTarget.checked })} /> {label}
      </label>
    </div>
  );
  const number = (key: 'min_attempts' | 'failure_ratio' | 'window_s' | 'per_second' | 'burst' | 'after_s' | 'min_span_s', id: string, label: string, placeholder: string) => (
    <Field label={label} id={id}>
      <input id={id} {...marked(id)} inputMode="decimal" value={form[key]} onInput={set(key)} placeholder={placeholder} />
    </Field>
  );
  return (
    <>
      <fieldset class="grid group">
        <legend>Circuit breaker (holds deliveries while the target fails, then probes it)</legend>
        {check('breaker_on', 'Circuit breaker on')}
        {number('min_attempts', 'wh-min-attempts', 'Opens after attempts (at least)', '20')}
        {number('failure_ratio', 'wh-failure-ratio', 'Failure ratio that opens it (0.01 to 1)', '0.5')}
        {number('window_s', 'wh-window', 'Window (seconds)', '60')}
      </fieldset>
      <fieldset class="grid group">
        <legend>Rate limit (for the whole cluster)</legend>
        {number('per_second', 'wh-rate', 'Sends per second', 'no limit')}
        {number('burst', 'wh-burst', 'Burst', 'a tenth of the rate')}
      </fieldset>
      <fieldset class="grid group">
        <legend>Auto-disable (when every attempt keeps failing)</legend>
        {check('auto_disable_on', 'Auto-disable on')}
        {number('after_s', 'wh-after', 'After failing for (seconds)', '432000 (5 days)')}
        {number('min_span_s', 'wh-min-span', 'Failures spanning at least (seconds)', '43200 (12 h)')}
      </fieldset>
    </>
  );
}
