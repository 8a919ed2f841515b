/**
 * A webhook's signing secrets on its page: each one's kind and expiry (never
 * a value), the ed25519 public key, and rotation with an overlap
 * (POST /api/webhooks/{id}/rotate-secret). Kept small: the dashboard's
 * JavaScript has a 200 KB budget (scripts/check-dashboard-size.mjs).
 */
import { useState } from 'preact/hooks';
import type { Schemas } from '../../../src/client/index.js';
import { api, call, type ApiError } from '../api.js';
import { toApiError, when } from '../components.js';
import type { SaveNotice } from './webhook-form.js';

type Webhook = Schemas['Webhook'];

const OVERLAPS: Array<[number, string]> = [
  [0, 'none'],
  [86400, '24 h'],
  [604800, '7 d'],
  [2592000, '30 d'],
];

/**
 * A failed rotation reports in the page's error box, under the form, as test-fire does; a generated
 * secret is handed to the page like a save's (`onSaved`), which shows it once where the form shows one.
 */
export function SecretsCard({
  webhook,
  onSaved,
  setError,
}: {
  webhook: Webhook;
  onSaved(w: Webhook, said: SaveNotice): void;
  setError(error: ApiError | null): void;
}) {
  const [overlap, setOverlap] = useState(86400);
  const [kind, setKind] = useState(webhook.secrets[0]?.kind ?? 'hmac');

  async function rotate() {
    setError(null);
    try {
      const w = await call(api.POST('/api/webhooks/{id}/rotate-secret', { params: { path: { id: webhook.id } }, body: { overlap_s: overlap, kind } }));
      onSaved(w, { notice: 'Rotated', secret: w.secret ?? null });
    } catch (err) {
      setError(toApiError(err));
    }
  }

  return (
    <section class="card" aria-labelledby="secrets-title">
      <h2 id="secrets-title">Signing secrets</h2>
      <ul class="secrets">
        {webhook.secrets.map((s) => (
          <li>
            {s.kind}: {s.expires_at ? `signs until ${when(s.expires_at)}` : 'current'}
          </li>
        ))}
      </ul>
      {webhook.public_key && (
        <p>
          Public key: <code>{webhook.public_key}</code>
        </p>
      )}
      <label class="field">
        Overlap
        <select value={overlap} onChange={(e) => setOverlap(Number(e.currentTarget.value))}>
          {OVERLAPS.map(([s, label]) => (
            <option value={s}>{label}</option>
          ))}
        </select>
      </label>
      <label class="field">
        New kind
        <select value={kind} onChange={(e) => setKind(e.currentTarget.value as 'hmac')}>
          <option>hmac</option>
          <option>ed25519</option>
        </select>
      </label>
      <button type="button" onClick={rotate}>
        Rotate secret
      </button>
    </section>
  );
}
