/**
 * Deliveries: a webhook's newest (followed live), the table its held ones
 * share, and one delivery's page with its request, each attempt's response,
 * its timing and retry.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Schemas } from '../../../src/client/index.js';
import { api, call, type ApiError } from '../api.js';
import { AttemptsTable, ErrorBox, Json, toApiError, when } from '../components.js';
import { useLiveLoad, type LiveState } from '../live.js';
import { href } from '../router.js';

type Delivery = Schemas['Delivery'];
type DeliveryDetail = Schemas['DeliveryDetail'];
type AttemptDetail = Schemas['AttemptDetail'];

/** Whether the page follows the deliveries stream now; a screen reader hears it change. */
function LiveBadge({ state }: { state: LiveState }) {
  return (
    <span class={`badge live-state ${state}`} role="status" title="Updates as attempts are recorded, on any node">
      {state === 'live' ? 'live' : state}
    </span>
  );
}

/** Deliveries as rows: a webhook's newest, or those it holds. */
export function DeliveryTable({ deliveries }: { deliveries: Delivery[] }) {
  return (
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
          {deliveries.map((d) => (
            <tr key={d.id}>
              <td>
                <a href={href('deliveries', d.id)}>{d.id}</a>
              </td>
              <td>
                {d.trigger}
                {d.event ? ` (${d.event})` : ''}
              </td>
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
  );
}

/**
 * The webhook's newest deliveries, read again whenever the stream reports one
 * of its attempts; `onChange` is told when a read finds them changed (the
 * page's health figures move with its attempts).
 */
export function Deliveries({ id, fired, onChange }: { id: string; fired: string | null; onChange(): void }) {
  const seen = useRef<string | null>(null);
  const { data, error, reload, live } = useLiveLoad(
    async () => {
      const list = await call(api.GET('/api/webhooks/{id}/deliveries', { params: { path: { id }, query: { limit: 50 } } }));
      const now = JSON.stringify(list);
      if (seen.current !== null && seen.current !== now) onChange();
      seen.current = now;
      return list;
    },
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
      {data && data.length > 0 && <DeliveryTable deliveries={data} />}
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
