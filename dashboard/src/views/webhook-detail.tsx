/**
 * One webhook's page: test-fire and enable/disable, its endpoint health with
 * pause, resume, held deliveries and recovery (webhook-health.tsx), its
 * settings form (webhook-form.tsx), its signing secrets and their rotation
 * (webhook-secrets.tsx), its deliveries (deliveries.tsx) and delete.
 */
import { useState } from 'preact/hooks';
import type { Schemas } from '../../../src/client/index.js';
import { api, call, type ApiError } from '../api.js';
import { ConfirmDelete, ErrorBox, toApiError, useLoad, when } from '../components.js';
import { href, navigate } from '../router.js';
import { Deliveries } from './deliveries.js';
import { WebhookForm, type SaveNotice } from './webhook-form.js';
import { HealthCard, RecoverCard } from './webhook-health.js';
import { SecretsCard } from './webhook-secrets.js';

type Webhook = Schemas['Webhook'];
type Delivery = Schemas['Delivery'];

/**
 * What the page says after a save (and a generated secret, shown once), handed to
 * the page that mounts for the saved webhook: a save remounts the page with fresh data.
 */
let afterSave: (SaveNotice & { id: string }) | null = null;

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
  // A write answers without health and fire times: shown with the last ones until the webhook is read again.
  const onSaved = (w: Webhook) => (id ? (loaded.setData({ ...webhook, ...w }), loaded.reload()) : navigate('webhooks', w.id));
  return <WebhookPage key={webhook?.updated_at ?? 'new'} webhook={webhook} onSaved={onSaved} refresh={loaded.reload} />;
}

function WebhookPage({ webhook, onSaved, refresh }: { webhook: Webhook | null; onSaved(w: Webhook): void; refresh(): void }) {
  const [error, setError] = useState<ApiError | null>(null);
  const [handedOver] = useState(() => {
    const mine = afterSave && afterSave.id === webhook?.id ? afterSave : null;
    if (mine) afterSave = null;
    return mine;
  });
  const [fired, setFired] = useState<Delivery | null>(null);
  const saved = (w: Webhook, said: SaveNotice) => {
    afterSave = { id: w.id, ...said };
    onSaved(w);
  };
  return (
    <section aria-labelledby="webhook-title">
      <h1 id="webhook-title">{webhook ? webhook.name : 'New webhook'}</h1>
      {webhook && <WebhookActions webhook={webhook} fired={fired} onFired={setFired} setError={setError} onSaved={onSaved} />}
      {webhook && <HealthCard webhook={webhook} onSaved={onSaved} refresh={refresh} />}
      <WebhookForm webhook={webhook} error={error} setError={setError} handedOver={handedOver} onSaved={saved} />
      {webhook && <SecretsCard webhook={webhook} onSaved={saved} setError={setError} />}
      {webhook && <Deliveries id={webhook.id} fired={fired?.id ?? null} onChange={refresh} />}
      {webhook && <RecoverCard webhook={webhook} />}
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

/** Test-fire now and enable/disable; their errors show in the page's error box, under the form. */
function WebhookActions({
  webhook,
  fired,
  onFired,
  setError,
  onSaved,
}: {
  webhook: Webhook;
  fired: Delivery | null;
  onFired(d: Delivery): void;
  setError(error: ApiError | null): void;
  onSaved(w: Webhook): void;
}) {
  async function setEnabled(enabled: boolean) {
    setError(null);
    try {
      const saved = await call(api.PUT('/api/webhooks/{id}', { params: { path: { id: webhook.id } }, body: { enabled } }));
      if (!('dry_run' in saved)) onSaved(saved);
    } catch (err) {
      setError(toApiError(err));
    }
  }

  async function testFire() {
    setError(null);
    try {
      onFired(await call(api.POST('/api/webhooks/{id}/test', { params: { path: { id: webhook.id } } })));
    } catch (err) {
      setError(toApiError(err));
    }
  }

  return (
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
  );
}
