/**
 * API keys and usage plans: the keys (enable, disable, revoke, usage over the
 * last 30 days), a form that creates one and shows its secret this once (it
 * lives in this view's state only: leaving the page forgets it), and the plans
 * with a form that creates one.
 */
import { useState } from 'preact/hooks';
import type { Schemas } from '../../../src/client/index.js';
import { api, call, type ApiError } from '../api.js';
import { ConfirmDelete, ErrorBox, Field, invalidIf, toApiError, useLoad, when } from '../components.js';
import { quotaPeriodValues } from '../schema-enums.js';

type Key = Schemas['ApiKey'];
type Plan = Schemas['UsagePlan'];

/** A number field's value: absent when empty, so the server names the missing one. */
const num = (text: string) => (text.trim() === '' ? undefined : Number(text));

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function KeysView() {
  const keys = useLoad(() => call(api.GET('/api/api-keys', {})), []);
  const plans = useLoad(() => call(api.GET('/api/usage-plans', {})), []);
  const [error, setError] = useState<ApiError | null>(null);
  const [usageOf, setUsageOf] = useState<{ key: Key; n: number } | null>(null);
  const planName = (id: string | null) => plans.data?.find((p) => p.id === id)?.name ?? (id ? id : 'none');

  async function run(action: () => Promise<unknown>) {
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(toApiError(err));
    }
  }
  const setEnabled = (k: Key) =>
    run(async () => {
      const updated = await call(api.PATCH('/api/api-keys/{id}', { params: { path: { id: k.id } }, body: { enabled: !k.enabled } }));
      keys.setData(keys.data?.map((x) => (x.id === k.id ? updated : x)));
    });

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <p class="hint">
        Callers send a key in <code>x-api-key</code> to routes with <code>apiKeyRequired</code>; its usage plan names the APIs it may call.
      </p>
      <ErrorBox error={keys.error ?? error} />
      {keys.data?.length === 0 && <p>No API keys yet.</p>}
      {!!keys.data?.length && (
        <div class="table-wrap">
          <table class="keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Enabled</th>
                <th scope="col">Usage plan</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{k.enabled ? 'yes' : 'no'}</td>
                  <td>{planName(k.usagePlanId)}</td>
                  <td>{when(k.createdAt)}</td>
                  <td class="row-actions">
                    <button type="button" class="secondary" onClick={() => setEnabled(k)} aria-label={`${k.enabled ? 'Disable' : 'Enable'} key ${k.name}`}>
                      {k.enabled ? 'Disable' : 'Enable'}
                    </button>
                    <button type="button" class="secondary" onClick={() => setUsageOf({ key: k, n: (usageOf?.n ?? 0) + 1 })} aria-label={`Usage of key ${k.name}`}>
                      Usage
                    </button>
                    <ConfirmDelete
                      what={`key ${k.name}`}
                      onDelete={async () => {
                        await call(api.DELETE('/api/api-keys/{id}', { params: { path: { id: k.id } } }));
                        if (usageOf?.key.id === k.id) setUsageOf(null);
                        keys.reload();
                      }}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {usageOf && <KeyUsage key={usageOf.n} apiKey={usageOf.key} />}
      <NewKey plans={plans.data ?? []} onCreated={keys.reload} />
      <Plans plans={plans.data} error={plans.error} onCreated={plans.reload} />
    </section>
  );
}

/** The key's requests per UTC day over the last 30 days (the days with calls), with the total. */
function KeyUsage({ apiKey }: { apiKey: Key }) {
  const now = Date.now();
  const query = { from: day(now - 29 * 86_400_000), to: day(now) };
  const { data, error } = useLoad(() => call(api.GET('/api/api-keys/{id}/usage', { params: { path: { id: apiKey.id }, query } })), []);
  const used = data?.days.filter((d) => d.used > 0).reverse() ?? [];
  return (
    <section class="card usage" aria-labelledby="usage-title">
      <h2 id="usage-title">Usage of {apiKey.name}</h2>
      <ErrorBox error={error} />
      {data && (
        <table>
          <caption class="hint">
            {query.from} to {query.to} (UTC); days without calls are left out
          </caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Used</th>
            </tr>
          </thead>
          <tbody>
            {used.map((d) => (
              <tr key={d.day}>
                <td>{d.day}</td>
                <td>{d.used}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              <td class="usage-total">{used.reduce((sum, d) => sum + d.used, 0)}</td>
            </tr>
          </tfoot>
        </table>
      )}
    </section>
  );
}

function NewKey({ plans, onCreated }: { plans: Plan[]; onCreated(): void }) {
  const [name, setName] = useState('');
  const [plan, setPlan] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [secret, setSecret] = useState<{ name: string; value: string } | null>(null);
  const planId = plan ?? plans[0]?.id ?? '';
  async function create(e: Event) {
    e.preventDefault();
    setError(null);
    setSecret(null);
    try {
      const created = await call(api.POST('/api/api-keys', { body: { name, usagePlanId: planId || null } }));
      setSecret({ name: created.name, value: created.value ?? '' });
      setName('');
      onCreated();
    } catch (err) {
      setError(toApiError(err));
    }
  }
  return (
    <form class="card" onSubmit={create} aria-labelledby="new-key-title">
      <h2 id="new-key-title">New key</h2>
      <div class="grid">
        <Field label="Name" id="key-name">
          <input id="key-name" value={name} onInput={(e) => setName(e.currentTarget.value)} aria-invalid={invalidIf(error, 'name')} required />
        </Field>
        <Field label="Usage plan" id="key-plan" hint="A key without a plan is refused everywhere">
          <select id="key-plan" value={planId} onChange={(e) => setPlan(e.currentTarget.value)} aria-invalid={invalidIf(error, 'usagePlanId')}>
            {plans.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
            <option value="">none</option>
          </select>
        </Field>
      </div>
      {secret && (
        <div class="secret" role="status">
          <p>
            Key <strong>{secret.name}</strong> created. Its secret, to send in <code>x-api-key</code>: <code class="key-secret">{secret.value}</code>
          </p>
          <p class="hint">Copy it now: it will not be shown again (leaving this page forgets it), only its prefix.</p>
        </div>
      )}
      <ErrorBox error={error} />
      <button type="submit">Create key</button>
    </form>
  );
}

const BLANK_PLAN = { name: '', apiIds: [] as string[], rate: '', burst: '', limit: '', period: 'DAY' };

function Plans({ plans, error, onCreated }: { plans: Plan[] | undefined; error: ApiError | null; onCreated(): void }) {
  const apis = useLoad(() => call(api.GET('/api/apis', {})), []);
  const apiName = (id: string) => apis.data?.find((a) => a.id === id)?.name ?? id;
  const [form, setForm] = useState(BLANK_PLAN);
  const [createError, setCreateError] = useState<ApiError | null>(null);
  const set = (field: keyof typeof form) => (e: { currentTarget: { value: string } }) => setForm({ ...form, [field]: e.currentTarget.value });
  async function create(e: Event) {
    e.preventDefault();
    setCreateError(null);
    try {
      const { name, apiIds, rate, burst, limit, period } = form;
      const throttle = rate || burst ? ({ rateLimit: num(rate), burstLimit: num(burst) } as Schemas['Throttle']) : null;
      const quota = limit ? { limit: num(limit)!, period: period as Schemas['Quota']['period'] } : null;
      await call(api.POST('/api/usage-plans', { body: { name, apiIds, throttle, quota } }));
      setForm(BLANK_PLAN);
      onCreated();
    } catch (err) {
      setCreateError(toApiError(err));
    }
  }
  return (
    <section class="card" aria-labelledby="plans-title">
      <h2 id="plans-title">Usage plans</h2>
      <ErrorBox error={error ?? apis.error} />
      {plans?.length === 0 && <p>No usage plans yet.</p>}
      {!!plans?.length && (
        <div class="table-wrap">
          <table class="plans">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">APIs</th>
                <th scope="col">Throttle</th>
                <th scope="col">Quota</th>
              </tr>
            </thead>
            <tbody>
              {plans.map((p) => (
                <tr key={p.id}>
                  <td>{p.name}</td>
                  <td>{p.apiIds.map(apiName).join(', ') || 'none'}</td>
                  <td>{p.throttle ? `${p.throttle.rateLimit}/s, burst ${p.throttle.burstLimit}` : 'none'}</td>
                  <td>{p.quota ? `${p.quota.limit} per ${p.quota.period.toLowerCase()}` : 'none'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form onSubmit={create} aria-labelledby="new-plan-title">
        <h3 id="new-plan-title">New usage plan</h3>
        <Field label="Name" id="plan-name">
          <input id="plan-name" value={form.name} onInput={set('name')} aria-invalid={invalidIf(createError, 'name')} required />
        </Field>
        <fieldset aria-invalid={invalidIf(createError, 'apiIds')}>
          <legend>APIs</legend>
          {apis.data?.length === 0 && <p>No APIs yet.</p>}
          {apis.data?.map((a) => (
            <div key={a.id} class="field checkbox">
              <label>
                <input
                  type="checkbox"
                  checked={form.apiIds.includes(a.id)}
                  onChange={(e) => setForm({ ...form, apiIds: e.currentTarget.checked ? [...form.apiIds, a.id] : form.apiIds.filter((x) => x !== a.id) })}
                />{' '}
                {a.name}
              </label>
            </div>
          ))}
        </fieldset>
        <div class="grid">
          <Field label="Rate limit (requests/s)" id="plan-rate" hint="Optional, with the burst">
            <input id="plan-rate" inputMode="decimal" value={form.rate} onInput={set('rate')} aria-invalid={invalidIf(createError, 'throttle.rateLimit')} />
          </Field>
          <Field label="Burst limit" id="plan-burst">
            <input id="plan-burst" inputMode="numeric" value={form.burst} onInput={set('burst')} aria-invalid={invalidIf(createError, 'throttle.burstLimit')} />
          </Field>
          <Field label="Quota (requests)" id="plan-quota" hint="Optional: per key and period">
            <input id="plan-quota" inputMode="numeric" value={form.limit} onInput={set('limit')} aria-invalid={invalidIf(createError, 'quota.limit')} />
          </Field>
          <Field label="Quota period" id="plan-period">
            <select id="plan-period" value={form.period} onChange={set('period')}>
              {quotaPeriodValues.map((p) => (
                <option key={p}>{p}</option>
              ))}
            </select>
          </Field>
        </div>
        <ErrorBox error={createError} />
        <button type="submit">Create usage plan</button>
      </form>
    </section>
  );
}
