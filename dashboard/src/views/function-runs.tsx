/**
 * A function's triggers (schedules, event subscriptions, asynchronous
 * settings) and the history of its background runs (asynchronous, scheduled,
 * event-triggered, destinations), newest first, each with its attempts and,
 * once failed, a retry.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../../../src/client/index.js';
import { api, call, type ApiError } from '../api.js';
import { AttemptsTable, ErrorBox, Json, toApiError, useLoad, when } from '../components.js';

type Fn = Schemas['Function'];
type Run = Schemas['FunctionInvocation'];

const destination = (d: Fn['async']['on_success']) => (d ? `${d.type} ${d.id ?? d.name ?? ''}` : 'none');

export function Triggers({ fn }: { fn: Fn }) {
  return (
    <section class="card" aria-labelledby="triggers-title">
      <h2 id="triggers-title">Triggers</h2>
      <dl class="facts">
        <dt>Schedules</dt>
        <dd>
          {fn.schedules.length === 0
            ? 'none'
            : fn.schedules.map((s, i) => (
                <div key={i}>
                  <code>{s.cron}</code> ({s.timezone})
                </div>
              ))}
        </dd>
        <dt>Events</dt>
        <dd>{fn.events.length === 0 ? 'none' : fn.events.map((e) => <code key={e}>{e} </code>)}</dd>
        <dt>Asynchronous runs</dt>
        <dd>
          {fn.async.retries} retries; on success: {destination(fn.async.on_success)}; on failure: {destination(fn.async.on_failure)}
        </dd>
      </dl>
      <p class="hint">Set these in the project file (switchyard.yaml) or with PUT /api/functions/{fn.name}.</p>
    </section>
  );
}

/** `open`: the id of a run to show opened and scrolled to (a link from the overview's failures). */
export function BackgroundRuns({ name, open }: { name: string; open?: string }) {
  const { data, error, reload, setData } = useLoad(
    () => call(api.GET('/api/functions/{name}/invocations', { params: { path: { name }, query: { limit: '50' } } })),
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
