/**
 * Event types: the catalogue (`/api/event-types`), each type a disclosure
 * with its validation mode, deprecation and every schema version (newest
 * first) with its examples. One component, no page per type: the dashboard's
 * size budget had a few hundred bytes left; the violations are read with the
 * API (`/api/event-types/{name}/violations`).
 */
import { api, call } from '../api.js';
import { ErrorBox, Json, useLoad } from '../components.js';

export function EventTypesView() {
  const { data, error } = useLoad(() => call(api.GET('/api/event-types', { params: { query: { limit: 1000 } } })), []);
  return (
    <section aria-labelledby="et-title">
      <h1 id="et-title">Event types</h1>
      <ErrorBox error={error} />
      {data?.length === 0 && <p>No event types yet.</p>}
      {data?.map((t) => (
        <details class="card event-type" key={t.name}>
          <summary>
            {t.name}: {t.mode}
            {t.deprecated && ', deprecated'}
          </summary>
          <p>{t.description}</p>
          {[...t.versions].reverse().map((v) => (
            <section key={v.version}>
              <h2>Version {v.version}</h2>
              <Json value={v.schema} />
              <h3>Examples</h3>
              {v.examples.map((ex, i) => (
                <Json key={i} value={ex} />
              ))}
            </section>
          ))}
        </details>
      ))}
    </section>
  );
}
