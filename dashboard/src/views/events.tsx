/**
 * Events: publish one, seeing first who subscribes to the name typed (the
 * webhooks' and functions' event lists), then the webhooks' deliveries and the
 * functions' invocations it created, each linked.
 */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import type { Schemas } from '../../../src/client/index.js';
import { api, call, type ApiError } from '../api.js';
import { ErrorBox, Field, parseJson, toApiError, useLoad } from '../components.js';
import { href } from '../router.js';
import { subscribersOf } from './subscribers.js';

/** The list endpoints' largest page: a server with more lists the first this many. */
const ALL = 1000;

function Subscribers({ event }: { event: string }) {
  const webhooks = useLoad(() => call(api.GET('/api/webhooks', { params: { query: { limit: ALL } } })), []);
  const functions = useLoad(() => call(api.GET('/api/functions', { params: { query: { limit: ALL } } })), []);
  const name = event.trim();
  if (!name) return null;
  const hooks = webhooks.data ? subscribersOf(webhooks.data, name) : null;
  const fns = functions.data ? subscribersOf(functions.data, name) : null;
  return (
    <section class="subscribers" aria-labelledby="subscribers-title" aria-live="polite">
      <h2 id="subscribers-title">
        Subscribed to <code>{name}</code>
      </h2>
      <ErrorBox error={webhooks.error ?? functions.error} />
      {hooks && (
        <p class="subscribed-webhooks">
          Webhooks:{' '}
          {hooks.length === 0
            ? 'none'
            : hooks.map((w, i) => (
                <Fragment key={w.id}>
                  {i > 0 && ', '}
                  <a href={href('webhooks', w.id)}>{w.name}</a>
                  {!w.enabled && ' (disabled: gets no delivery)'}
                </Fragment>
              ))}
        </p>
      )}
      {fns && (
        <p class="subscribed-functions">
          Functions:{' '}
          {fns.length === 0
            ? 'none'
            : fns.map((f, i) => (
                <Fragment key={f.name}>
                  {i > 0 && ', '}
                  <a href={href('functions', f.name)}>{f.name}</a>
                </Fragment>
              ))}
        </p>
      )}
    </section>
  );
}

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
        <Subscribers event={event} />
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
                  <a href={href('functions', f.name)}>{f.name}</a>, invocation{' '}
                  <a class="invocation-link" href={href('functions', f.name, 'runs', f.invocation_id)}>
                    <code>{f.invocation_id}</code>
                  </a>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </section>
  );
}
