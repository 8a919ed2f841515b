/** Events: publish one, and see the webhooks' deliveries and the functions' invocations it created. */
import { useState } from 'preact/hooks';
import type { Schemas } from '../../../src/client/index.js';
import { api, call, type ApiError } from '../api.js';
import { ErrorBox, Field, parseJson, toApiError } from '../components.js';
import { href } from '../router.js';

export function EventsView() {
  const [event, setEvent] = useState('');
  const [data, setData] = useState('{\n  "id": 1\n}');
  const [published, setPublished] = useState<Schemas['PublishedEvent'] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  async function publish(e: Event) {
    e.preventDefault();
    setError(null);
    try {
      setPublished(await call(api.POST('/api/events', { body: { event, data: parseJson(data, 'data') } })));
    } catch (err) {
      setError(toApiError(err));
    }
  }
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Events</h1>
      <form class="card" onSubmit={publish} aria-label="Publish an event">
        <Field label="Event name" id="ev-name">
          <input id="ev-name" value={event} onInput={(e) => setEvent(e.currentTarget.value)} required placeholder="order.created" />
        </Field>
        <Field label="Data (JSON)" id="ev-data">
          <textarea id="ev-data" rows={5} value={data} onInput={(e) => setData(e.currentTarget.value)} spellcheck={false} />
        </Field>
        <ErrorBox error={error} />
        <button type="submit">Publish</button>
      </form>
      {published && (
        <section class="card" aria-labelledby="reached-title" aria-live="polite">
          <h2 id="reached-title">
            <code>{published.event}</code> reached
          </h2>
          <h3>Webhook deliveries ({published.deliveries.length})</h3>
          {published.deliveries.length === 0 ? (
            <p>No enabled webhook subscribes to it.</p>
          ) : (
            <ul>
              {published.deliveries.map((id) => (
                <li key={id}>
                  <a href={href('deliveries', id)}>{id}</a>
                </li>
              ))}
            </ul>
          )}
          <h3>Functions ({published.functions.length})</h3>
          {published.functions.length === 0 ? (
            <p>No function subscribes to it.</p>
          ) : (
            <ul>
              {published.functions.map((f) => (
                <li key={f.invocation_id}>
                  <a href={href('functions', f.name)}>{f.name}</a>, invocation <code>{f.invocation_id}</code>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </section>
  );
}
