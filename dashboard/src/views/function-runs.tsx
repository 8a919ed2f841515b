/**
 * A function's triggers (schedules and event subscriptions, editable here;
 * asynchronous settings) and the history of its background runs (asynchronous, scheduled,
 * event-triggered, destinations), newest first, each with its attempts and,
 * once failed, a retry.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../../../src/client/index.js';
import { api, call, type ApiError } from '../api.js';
import { AttemptsTable, ErrorBox, Field, fieldOf, Json, parseJson, toApiError, useLoad, when } from '../components.js';

type Fn = Schemas['Function'];
type Run = Schemas['FunctionInvocation'];

const destination = (d: Fn['async']['on_success']) => (d ? `${d.type} ${d.id ?? d.name ?? ''}` : 'none');

/** A schedule as PUT takes it back (the answer leaves out a null payload). */
const scheduleBody = (s: Fn['schedules'][number]) => ({ cron: s.cron, timezone: s.timezone, ...(s.payload ? { payload: s.payload } : {}) });

/**
 * Schedules and event subscriptions, added and removed here with
 * `PUT /api/functions/{name}` (`schedules` / `events`: the whole new list; a
 * PUT makes a new version). The API's checks (cron, time zone, event name) are
 * shown as it sends them, with the field they name.
 */
export function Triggers({ fn, onSaved }: { fn: Fn; onSaved(fn: Fn): void }) {
  const [cron, setCron] = useState('');
  const [timezone, setTimezone] = useState('UTC');
  const [payload, setPayload] = useState('');
  const [event, setEvent] = useState('');
  const [busy, setBusy] = useState(false);
  /** The error and the part of the card it belongs to. */
  const [error, setError] = useState<{ at: 'schedules' | 'events'; error: ApiError } | null>(null);

  async function put(at: 'schedules' | 'events', body: () => { schedules?: ReturnType<typeof scheduleBody>[]; events?: string[] }) {
    setBusy(true);
    setError(null);
    try {
      const updated = await call(api.PUT('/api/functions/{name}', { params: { path: { name: fn.name } }, body: body() }));
      if ('dry_run' in updated) return;
      onSaved({ ...updated, code: fn.code });
    } catch (err) {
      setError({ at, error: toApiError(err) });
    } finally {
      setBusy(false);
    }
  }
  const addSchedule = (e: Event) => {
    e.preventDefault();
    void put('schedules', () => {
      const detail = parseJson(payload, 'payload') as Record<string, unknown> | undefined;
      const added = { cron: cron.trim(), timezone: timezone.trim() || 'UTC', ...(detail !== undefined ? { payload: detail } : {}) };
      return { schedules: [...fn.schedules.map(scheduleBody), added] };
    });
  };
  const addEvent = (e: Event) => {
    e.preventDefault();
    void put('events', () => ({ events: [...fn.events, event.trim()] }));
  };
  // The new schedule is the last of the list the PUT sends: the API names it `schedules[<n>].<field>`.
  const field = fieldOf(error?.error ?? null);
  const invalid = (name: string) => (field === name ? true : undefined);
  const next = `schedules[${fn.schedules.length}]`;

  return (
    <section class="card" aria-labelledby="triggers-title">
      <h2 id="triggers-title">Triggers</h2>
      <h3 id="schedules-title">Schedules</h3>
      {fn.schedules.length === 0 ? (
        <p>No schedules.</p>
      ) : (
        <ul class="trigger-list" aria-labelledby="schedules-title">
          {fn.schedules.map((s, i) => (
            <li key={i}>
              <span>
                <code>{s.cron}</code> ({s.timezone}){s.payload ? <> · payload <code>{JSON.stringify(s.payload)}</code></> : null}
              </span>
              <button
                type="button"
                class="secondary"
                disabled={busy}
                aria-label={`Remove schedule ${s.cron} (${s.timezone})`}
                onClick={() => put('schedules', () => ({ schedules: fn.schedules.filter((_, j) => j !== i).map(scheduleBody) }))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={addSchedule} aria-label="Add a schedule">
        <div class="grid">
          <Field label="Cron" id="schedule-cron" hint="Five fields: minute hour day month weekday, e.g. 0 9 * * 1-5">
            <input
              id="schedule-cron"
              value={cron}
              onInput={(e) => setCron(e.currentTarget.value)}
              required
              aria-describedby="schedule-cron-hint"
              aria-invalid={invalid(`${next}.cron`)}
              autoComplete="off"
              spellcheck={false}
            />
          </Field>
          <Field label="Time zone (IANA)" id="schedule-tz">
            <input id="schedule-tz" value={timezone} onInput={(e) => setTimezone(e.currentTarget.value)} aria-invalid={invalid(`${next}.timezone`)} />
          </Field>
        </div>
        <Field label="Payload (JSON object, the event's detail; optional)" id="schedule-payload">
          <textarea id="schedule-payload" rows={2} value={payload} onInput={(e) => setPayload(e.currentTarget.value)} spellcheck={false} aria-invalid={invalid('payload')} />
        </Field>
        <button type="submit" disabled={busy}>
          Add schedule
        </button>
      </form>
      {error?.at === 'schedules' && <ErrorBox error={error.error} />}

      <h3 id="events-title">Event subscriptions</h3>
      {fn.events.length === 0 ? (
        <p>No subscriptions.</p>
      ) : (
        <ul class="trigger-list" aria-labelledby="events-title">
          {fn.events.map((name) => (
            <li key={name}>
              <code>{name}</code>
              <button
                type="button"
                class="secondary"
                disabled={busy}
                aria-label={`Remove subscription ${name}`}
                onClick={() => put('events', () => ({ events: fn.events.filter((e) => e !== name) }))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={addEvent} aria-label="Add an event subscription">
        <Field label="Event name (or *)" id="subscription-event">
          <input id="subscription-event" value={event} onInput={(e) => setEvent(e.currentTarget.value)} required aria-invalid={invalid('events')} autoComplete="off" />
        </Field>
        <button type="submit" disabled={busy}>
          Add subscription
        </button>
      </form>
      {error?.at === 'events' && <ErrorBox error={error.error} />}

      <h3>Asynchronous runs</h3>
      <p>
        {fn.async.retries} retries; on success: {destination(fn.async.on_success)}; on failure: {destination(fn.async.on_failure)}
      </p>
      <p class="hint">Each change here is a PUT /api/functions/{fn.name}, which makes a new version. Retries and destinations are set in the project file (switchyard.yaml) or with that PUT.</p>
    </section>
  );
}

/** `open`: the id of a run to show opened and scrolled to (a link from the overview's failures). */
export function BackgroundRuns({ name, open }: { name: string; open?: string }) {
  const { data, error, reload, setData } = useLoad(
    () => call(api.GET('/api/functions/{name}/invocations', { params: { path: { name }, query: { limit: 50 } } })),
    [name],
  );
  const [retryError, setRetryError] = useState<ApiError | null>(null);
  const found = data?.some((r) => r.id === open) ?? false;
  useEffect(() => {
    if (found) document.getElementById(`run-${open}`)?.scrollIntoView({ block: 'start' });
  }, [found, open]);
  async function retry(run: Run) {
    setRetryError(null);
    try {
      const reopened = await call(api.POST('/api/functions/{name}/invocations/{id}/retry', { params: { path: { name, id: run.id } } }));
      setData((data ?? []).map((r) => (r.id === run.id ? reopened : r)));
    } catch (err) {
      setRetryError(toApiError(err));
    }
  }
  return (
    <section class="card" aria-labelledby="runs-title">
      <div class="title-row">
        <h2 id="runs-title">Background runs</h2>
        <button type="button" class="secondary" onClick={reload}>
          Refresh
        </button>
      </div>
      <ErrorBox error={error ?? retryError} />
      {data && open && !found && (
        <p>
          Run <code>{open}</code> is not among the 50 newest.
        </p>
      )}
      {data && data.length === 0 && <p>No background runs yet (asynchronous invokes, schedules, events, destinations).</p>}
      {data && data.length > 0 && (
        <ul class="runs">
          {data.map((run) => (
            <li key={run.id} id={`run-${run.id}`}>
              <details open={run.id === open}>
                <summary>
                  <span class={`badge ${run.status}`}>{run.status}</span> {run.trigger.type} · {when(run.created_at)} · {run.attempts.length} attempt
                  {run.attempts.length === 1 ? '' : 's'} · <code>{run.id}</code>
                </summary>
                {run.error && <p class="compile-error">{run.error}</p>}
                <AttemptsTable attempts={run.attempts} result={['Outcome', (a) => a.outcome]} />
                <h3>Event</h3>
                <Json value={run.event} />
                {run.result !== null && run.result !== undefined && (
                  <>
                    <h3>Result</h3>
                    <Json value={run.result} />
                  </>
                )}
              </details>
              {run.status === 'failed' && (
                <button type="button" class="secondary" onClick={() => retry(run)} aria-label={`Retry run ${run.id}`}>
                  Retry
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
