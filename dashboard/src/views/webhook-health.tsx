/**
 * A webhook's endpoint health on its page: the breaker, what it holds, a
 * target's Retry-After and why it is not sending; pause and resume; the held
 * deliveries with a discard; and a recovery job that resends finished
 * deliveries. Discards and recoveries are counted with a dry run first, so
 * the page says what they touch before anything is dropped or sent again.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../../../src/client/index.js';
import { api, call, type ApiError } from '../api.js';
import { ErrorBox, Field, commaList, invalidIf, toApiError, useLoad, when } from '../components.js';
import { DeliveryTable } from './deliveries.js';

type Webhook = Schemas['Webhook'];
type Health = NonNullable<Webhook['health']>;
type Recovery = Schemas['Recovery'];

const REASONS = { gone: 'its target answered 410 Gone', failing: 'every attempt failed for the auto-disable span' };
const RECOVERABLE: Recovery['filter']['statuses'] = ['failed', 'succeeded', 'discarded', 'cancelled'];

/** The breaker's state (`half_open` in words); not a `badge`, which the list's outcome cell has to itself. */
const BreakerState = ({ health }: { health: Health }) => <span class={`state ${health.state}`}>{health.state.replace('_', ' ')}</span>;

const percent = (ratio: number) => `${Math.round(ratio * 100)} %`;

/** The breaker in one line, for the list: its state and since when, the failure ratio, the next probe, a Retry-After. */
export function BreakerSummary({ health }: { health: Health }) {
  return (
    <>
      <BreakerState health={health} />
      {health.state !== 'closed' && health.since && ` since ${when(health.since)}`} · {percent(health.failure_ratio)} failed
      {health.next_probe_at && ` · next probe ${when(health.next_probe_at)}`}
      {health.not_before && ` · Retry-After: nothing before ${when(health.not_before)}`}
    </>
  );
}

const At = ({ iso }: { iso: string }) => <time dateTime={iso}>{when(iso)}</time>;

/** The health facts, pause and resume. `onSaved` takes the answer of a pause or a resume; `refresh` reads the webhook again. */
export function HealthCard({ webhook, onSaved, refresh }: { webhook: Webhook; onSaved(w: Webhook): void; refresh(): void }) {
  const h = webhook.health;
  // Resume also closes an open breaker: it is offered for either.
  const stopped = webhook.paused || (h && h.state !== 'closed');
  const [error, setError] = useState<ApiError | null>(null);
  async function pause(paused: boolean) {
    setError(null);
    try {
      onSaved(await call(api.POST(paused ? '/api/webhooks/{id}/pause' : '/api/webhooks/{id}/resume', { params: { path: { id: webhook.id } } })));
    } catch (err) {
      setError(toApiError(err));
    }
  }
  return (
    <section class="card" aria-labelledby="health-title">
      <div class="title-row">
        <h2 id="health-title">Endpoint health</h2>
        <button type="button" class="secondary" onClick={refresh}>
          Refresh<span class="visually-hidden"> health</span>
        </button>
      </div>
      <dl class="facts health">
        <dt>Sending</dt>
        <dd class="sending">
          {!webhook.enabled
            ? `no: disabled${webhook.disabled_reason ? `, ${REASONS[webhook.disabled_reason]}` : ''}`
            : webhook.paused
              ? `no: paused since ${when(webhook.paused_at)}`
              : h && h.state !== 'closed'
                ? 'no: its circuit breaker is open'
                : 'yes'}
        </dd>
        {h && (
          <>
            <dt>Circuit breaker</dt>
            <dd class="breaker">
              <BreakerState health={h} />
              {h.since && <> since {when(h.since)}</>}
            </dd>
            <dt>Failure ratio</dt>
            <dd class="failure-ratio">
              {percent(h.failure_ratio)} of {Math.round(h.window_attempts)} attempts in the last {webhook.breaker.window_s} s (opens at{' '}
              {percent(webhook.breaker.failure_ratio)} of {webhook.breaker.min_attempts} at least)
            </dd>
            {h.next_probe_at && (
              <>
                <dt>Next probe</dt>
                <dd class="next-probe">
                  <At iso={h.next_probe_at} />
                </dd>
              </>
            )}
            {h.not_before && (
              <>
                <dt>Retry-After</dt>
                <dd class="not-before">
                  nothing sent before <At iso={h.not_before} />
                </dd>
              </>
            )}
            <dt>Held</dt>
            <dd class="held-count">{h.held}</dd>
            <dt>Held discarded</dt>
            <dd class="held-discarded">{h.held_discarded}</dd>
          </>
        )}
      </dl>
      <div class="actions">
        <button type="button" class="secondary" onClick={() => pause(!stopped)}>
          {stopped ? 'Resume' : 'Pause'}
        </button>
        <span class="hint">{stopped ? 'Resuming closes an open breaker and sends what is held, in publish order.' : 'Pausing holds its deliveries instead of sending them.'}</span>
      </div>
      <ErrorBox error={error} />
      {h && <Held webhook={webhook} refresh={refresh} />}
    </section>
  );
}

/**
 * A form whose action is counted first (`?dry_run=true`) and done only once
 * confirmed; any change to its fields asks for a new count.
 */
function CountFirst({
  label,
  count,
  will,
  go,
  run,
  children,
}: {
  label: string;
  count(): Promise<number>;
  will(n: number): string;
  go: string;
  run(): Promise<void>;
  children(error: ApiError | null): ComponentChildren;
}) {
  const [n, setN] = useState<number | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const attempt = (action: () => Promise<unknown>) => {
    setError(null);
    action().catch((err) => setError(toApiError(err)));
  };
  return (
    <form aria-label={label} onInput={() => setN(null)} onSubmit={(e) => (e.preventDefault(), attempt(async () => setN(await count())))}>
      {children(error)}
      <ErrorBox error={error} />
      <div class="actions">
        <button type="submit" class="secondary">
          {label}…
        </button>
        {n !== null && (
          <>
            <span role="status" class="will">
              {will(n)}
            </span>
            {n > 0 && (
              <button type="button" onClick={() => attempt(async () => (await run(), setN(null)))}>
                {go}
              </button>
            )}
          </>
        )}
      </div>
    </form>
  );
}

const dryRun = (dry: boolean) => (dry ? { dry_run: 'true' as const } : {});
const deliveries = (n: number, kind = '') => `${n} ${kind}deliver${n === 1 ? 'y' : 'ies'}`;

/** The deliveries held now, and a discard of all of them or those of some events. */
function Held({ webhook, refresh }: { webhook: Webhook; refresh(): void }) {
  const { id } = webhook;
  const count = webhook.health?.held;
  // Read again with every new reading of the webhook: its held count moved, or may have.
  const held = useLoad(
    () => (count ? call(api.GET('/api/webhooks/{id}/deliveries', { params: { path: { id }, query: { status: 'held', limit: 50 } } })) : Promise.resolve([])),
    [webhook],
  );
  const [events, setEvents] = useState('');
  const [said, setSaid] = useState('');
  if (!count && !said) return null;
  const discard = async (dry: boolean) => {
    const list = commaList(events);
    const body = list.length ? { events: list } : {};
    return (await call(api.POST('/api/webhooks/{id}/held/discard', { params: { path: { id }, query: dryRun(dry) }, body }))).discarded;
  };
  return (
    <section aria-labelledby="held-title">
      <h3 id="held-title">Held deliveries</h3>
      <ErrorBox error={held.error} />
      {!!held.data?.length && <DeliveryTable deliveries={held.data} />}
      {!!count && (
        <CountFirst
          label="Discard held"
          count={() => (setSaid(''), discard(true))}
          will={(n) => `Will discard ${deliveries(n, 'held ')}.`}
          go="Discard them"
          run={async () => {
            setSaid(`Discarded ${deliveries(await discard(false))}.`);
            refresh();
          }}
        >
          {(error) => (
            <Field label="Of these events only (blank: all)" id="discard-events">
              <input id="discard-events" value={events} onInput={(e) => setEvents(e.currentTarget.value)} aria-invalid={invalidIf(error, 'events')} />
            </Field>
          )}
        </CountFirst>
      )}
      {said && <p role="status">{said}</p>}
    </section>
  );
}

/** A datetime-local value (the browser's time zone) as the instant the API takes. */
const instant = (local: string) => new Date(local).toISOString();

/** Resends the webhook's finished deliveries of a time span: counted, then a job followed to its end. */
export function RecoverCard({ webhook }: { webhook: Webhook }) {
  const [form, setForm] = useState({ since: '', until: '', events: '', statuses: ['failed'] as Recovery['filter']['statuses'] });
  const [job, setJob] = useState<Recovery | null>(null);
  const set = (key: 'since' | 'until' | 'events') => (e: { currentTarget: { value: string } }) => setForm({ ...form, [key]: e.currentTarget.value });
  const recover = (dry: boolean) => {
    const events = commaList(form.events);
    const body = {
      since: instant(form.since),
      ...(form.until ? { until: instant(form.until) } : {}),
      statuses: form.statuses,
      ...(events.length ? { events } : {}),
    };
    return call(api.POST('/api/webhooks/{id}/recover', { params: { path: { id: webhook.id }, query: dryRun(dry) }, body }));
  };
  return (
    <section class="card" aria-labelledby="recover-title">
      <h2 id="recover-title">Recover</h2>
      <p class="meta">Sends its finished deliveries of a time span again, each once, in the background.</p>
      <CountFirst
        label="Recover"
        count={async () => {
          const answer = await recover(true);
          return 'count' in answer ? answer.count : 0;
        }}
        will={(n) => `Will resend ${deliveries(n)}.`}
        go="Start recovery"
        run={async () => {
          const answer = await recover(false);
          if ('id' in answer) setJob(answer);
        }}
      >
        {(error) => (
          <>
            <div class="grid">
              <Field label="Created since" id="recover-since">
                <input id="recover-since" type="datetime-local" step={1} value={form.since} onInput={set('since')} aria-invalid={invalidIf(error, 'since')} required />
              </Field>
              <Field label="Created until (blank: now)" id="recover-until">
                <input id="recover-until" type="datetime-local" step={1} value={form.until} onInput={set('until')} aria-invalid={invalidIf(error, 'until')} />
              </Field>
              <Field label="Of these events only (blank: all)" id="recover-events">
                <input id="recover-events" value={form.events} onInput={set('events')} aria-invalid={invalidIf(error, 'events')} />
              </Field>
            </div>
            <fieldset class="group" aria-invalid={invalidIf(error, 'statuses')}>
              <legend>Deliveries that</legend>
              {RECOVERABLE.map((s) => (
                <label key={s} class="inline">
                  <input
                    type="checkbox"
                    checked={form.statuses.includes(s)}
                    onChange={(e) => setForm({ ...form, statuses: e.currentTarget.checked ? [...form.statuses, s] : form.statuses.filter((x) => x !== s) })}
                  />{' '}
                  {s}
                </label>
              ))}
            </fieldset>
          </>
        )}
      </CountFirst>
      {job && <RecoveryProgress key={job.id} first={job} />}
    </section>
  );
}

const POLL_MS = 1000;

/** The job as `GET /api/recoveries/{id}` answers it, read every second while it runs. */
function RecoveryProgress({ first }: { first: Recovery }) {
  const [job, setJob] = useState(first);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    if (job.status !== 'running') return;
    const timer = setTimeout(
      () => call(api.GET('/api/recoveries/{id}', { params: { path: { id: job.id } } })).then(setJob, (err) => setError(toApiError(err))),
      POLL_MS,
    );
    return () => clearTimeout(timer);
  }, [job]);
  return (
    <div class="recovery">
      <progress value={job.progress} aria-label="Recovery progress" />{' '}
      <span role="status" class="recovery-state">
        Resent {job.resent} of {job.total}: {job.status}
      </span>
      <ErrorBox error={error} />
    </div>
  );
}
