/**
 * The webhook form's payload filter: the filter as JSON, and a tester that
 * asks the server (`POST /api/events/filter-test`, the same check as at
 * fan-out) whether an event typed here would match, and which part failed.
 */
import { useState } from 'preact/hooks';
import { api, call, type ApiError } from '../api.js';
import { ErrorBox, Field, parseJson, toApiError } from '../components.js';

type Marker = (id: string) => { 'aria-invalid'?: true };

const SAMPLE = '{"event": "order.created", "data": {"total": 120}, "headers": {}}';
const shown = (v: unknown) => (v === undefined ? 'nothing there' : JSON.stringify(v));

export function FilterField({ value, onInput, marked }: { value: string; onInput(text: string): void; marked: Marker }) {
  const [event, setEvent] = useState(SAMPLE);
  const [verdict, setVerdict] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);

  async function test() {
    setError(null);
    setVerdict(null);
    try {
      const filter = (parseJson(value, 'filter') ?? {}) as Record<string, unknown>;
      const body = { filter, event: (parseJson(event, 'event') ?? {}) as { data?: unknown } };
      const { matched, failed } = await call(api.POST('/api/events/filter-test', { body }));
      setVerdict(matched || !failed ? 'Matches: a delivery would be made' : `No match: ${failed.path} ${failed.operator} ${shown(failed.expected)}; the event has ${shown(failed.actual)}`);
    } catch (err) {
      setError(toApiError(err));
    }
  }

  return (
    <fieldset class="group">
      <legend>Filter (only matching events are delivered)</legend>
      <Field label="Filter (JSON; empty: every event)" id="wh-filter" hint='e.g. {"data": {"total": {"$gt": 100}}}'>
        <textarea id="wh-filter" {...marked('wh-filter')} rows={3} value={value} onInput={(e) => onInput(e.currentTarget.value)} spellcheck={false} aria-describedby="wh-filter-hint" />
      </Field>
      <Field label="Test event (JSON: event, data, headers)" id="wh-filter-event">
        <textarea id="wh-filter-event" rows={4} value={event} onInput={(e) => setEvent(e.currentTarget.value)} spellcheck={false} />
      </Field>
      <button type="button" onClick={test}>
        Would this event match?
      </button>
      {verdict && <p role="status">{verdict}</p>}
      <ErrorBox error={error} />
    </fieldset>
  );
}
