/**
 * Webhooks: the list with each one's health (from its newest deliveries) and
 * endpoint health (breaker, held deliveries).
 * One webhook's page is webhook-detail.tsx (its settings form: webhook-form.tsx),
 * its deliveries and one delivery's page are deliveries.tsx.
 */
import type { Schemas } from '../../../src/client/index.js';
import { api, call } from '../api.js';
import { ErrorBox, useLoad, when } from '../components.js';
import { href } from '../router.js';
import { BreakerSummary } from './webhook-health.js';

export { WebhookDetail } from './webhook-detail.js';
export { DeliveryView } from './deliveries.js';

type Webhook = Schemas['Webhook'];

/** Health as the list answers it (counted by the server over each webhook's newest deliveries, in one query). */
/** The column headers of HealthCells, in its order. */
export function HealthHeaders() {
  return (
    <>
      <th scope="col">Last outcome</th>
      <th scope="col">Failures in a row</th>
      <th scope="col">Pending</th>
      <th scope="col">Circuit breaker</th>
      <th scope="col">Held</th>
    </>
  );
}

export function HealthCells({ health }: { health: Webhook['health'] }) {
  if (!health) return <td colSpan={5}>—</td>;
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
      <td class="breaker">
        <BreakerSummary health={health} />
      </td>
      <td class="held-count">
        {health.held}
        {health.held_discarded > 0 && ` (${health.held_discarded} discarded)`}
      </td>
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
              failed (retrying) counts as failed. Held: deliveries kept unsent while it is paused, disabled or its breaker open.
            </caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Target</th>
                <th scope="col">Enabled</th>
                <th scope="col">Next fire</th>
                <HealthHeaders />
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
                  <td class="enabled">
                    {w.enabled ? 'yes' : 'no'}
                    {w.disabled_reason && ` (${w.disabled_reason})`}
                    {w.paused && ', paused'}
                  </td>
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
