/** Small pieces every view uses: loading a call's data, the error box, the key form. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiCallError, asApiError, currentKeyProblem, needsKey, setAdminKey, type ApiError } from './api.js';
import { showValue } from './format.js';

export function toApiError(err: unknown): ApiError {
  return err instanceof ApiCallError ? err.body : asApiError(err);
}

/** Runs `load` on mount and whenever `deps` change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (value) => live && (setData(value), setError(null)),
      (err) => live && setError(toApiError(err)),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, reload, setData };
}

/** The field an API error names (`details.field`, e.g. `schedules[0].cron`), or null. */
export function fieldOf(error: ApiError | null): string | null {
  const field = (error?.details as { field?: unknown } | undefined)?.field;
  return typeof field === 'string' ? field : null;
}

/** Marks an input whose field the server refused: `throttle.burstLimit` marks the burst, `throttle` both of its inputs. */
export function invalidIf(error: ApiError | null, field: string) {
  const named = fieldOf(error);
  return named && (named.startsWith(field) || field.startsWith(named)) ? true : undefined;
}

/** The items of a comma-separated field (event names, numbers), blanks dropped. */
export const commaList = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** The API's error shape as the API sent it: message, code, the field named, the request id of a 500. */
export function ErrorBox({ error }: { error: ApiError | null }) {
  if (!error) return null;
  // The key prompt says it in words and asks again; the API's text is written for scripts.
  if (needsKey() && (error.code === 'unauthorized' || error.code === 'too_many_failed_attempts')) return null;
  const field = fieldOf(error);
  return (
    <div class="error" role="alert">
      <strong>{error.error}</strong>
      <dl class="error-facts">
        <dt>code</dt>
        <dd>
          <code>{error.code}</code>
        </dd>
        {field !== null && (
          <>
            <dt>field</dt>
            <dd>
              <code>{field}</code>
            </dd>
          </>
        )}
        {error.requestId && (
          <>
            <dt>request id</dt>
            <dd>
              <code>{error.requestId}</code>
            </dd>
          </>
        )}
      </dl>
    </div>
  );
}

export function Field({ label, id, children, hint }: { label: string; id: string; children: ComponentChildren; hint?: string }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

export function KeyPrompt({ onDone }: { onDone?: () => void }) {
  const [value, setValue] = useState('');
  const problem = currentKeyProblem();
  const input = useRef<HTMLInputElement>(null);
  // Refused: the field is where the next key goes.
  useEffect(() => {
    if (problem.kind !== 'missing') input.current?.focus();
  }, [problem.kind]);
  return (
    <form
      class="key-prompt card"
      aria-labelledby="key-title"
      onSubmit={(e) => {
        e.preventDefault();
        if (!value) return;
        setAdminKey(value);
        setValue('');
        onDone?.();
      }}
    >
      <h2 id="key-title">Admin key</h2>
      {problem.kind === 'wrong' && (
        <p class="error key-problem" role="alert">
          <strong>Wrong admin key.</strong> The server refused the key this tab sent (401). Enter the server's{' '}
          <code>SWITCHYARD_ADMIN_KEY</code> again.
        </p>
      )}
      {problem.kind === 'slowed' && (
        <p class="error key-problem" role="alert">
          <strong>Too many wrong keys.</strong> {problem.message}
        </p>
      )}
      <p>
        This server needs its admin key (<code>SWITCHYARD_ADMIN_KEY</code>). It is kept for this browser tab's session only
        and sent as <code>Authorization: Bearer</code>.
      </p>
      <Field label="Admin key" id="admin-key">
        <input
          id="admin-key"
          ref={input}
          type="password"
          autoComplete="off"
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
          aria-invalid={problem.kind === 'wrong' ? true : undefined}
          required
        />
      </Field>
      <button type="submit">Use this key</button>
    </form>
  );
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/** A value or a body: JSON indented (a string that holds JSON too), other text as it is. */
export function Json({ value, class: className }: { value: unknown; class?: string }) {
  return <pre class={className ? `json ${className}` : 'json'}>{showValue(value)}</pre>;
}

/** Parses a JSON text field; the message names the field. */
export function parseJson(text: string, field: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ApiCallError({ error: `${field} is not valid JSON: ${(err as Error).message}`, code: 'invalid_json', details: { field } });
  }
}

/** A delete button that asks once more in the page (no browser dialog), then runs `onDelete`. */
export function ConfirmDelete({ what, onDelete }: { what: string; onDelete(): Promise<void> }) {
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  if (!asking) {
    return (
      <button type="button" class="secondary danger" onClick={() => setAsking(true)}>
        Delete {what}…
      </button>
    );
  }
  return (
    <div class="confirm" role="group" aria-label={`Delete ${what}`}>
      <span>Delete {what}? This cannot be undone.</span>
      <button
        type="button"
        class="danger"
        onClick={() =>
          onDelete().catch((err) => {
            setError(toApiError(err));
          })
        }
      >
        Yes, delete
      </button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
      <ErrorBox error={error} />
    </div>
  );
}

/** What every attempt row shows: a function run's and a webhook delivery's alike. */
interface AttemptRow {
  attempt: number;
  started_at: string;
  duration_ms: number;
  error?: string | null;
}

/** The attempts of a run or a delivery; `result` names and fills the one column that differs (outcome or HTTP status). */
/** Rows that can be chosen (a delivery's attempts: the one whose response is shown); `shown` is its attempt number. */
export interface AttemptChoice {
  shown: number | null;
  choose: (attempt: number) => void;
}

export function AttemptsTable<T extends AttemptRow>({
  attempts,
  result,
  className,
  choice,
}: {
  attempts: readonly T[];
  result: [label: string, of: (a: T) => ComponentChildren];
  className?: string;
  choice?: AttemptChoice;
}) {
  const [label, of] = result;
  return (
    <div class="table-wrap">
      <table class={className}>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Started</th>
            <th scope="col">Duration</th>
            <th scope="col">{label}</th>
            <th scope="col">Error</th>
            {choice && (
              <th scope="col">
                <span class="visually-hidden">Show</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {attempts.map((a) => {
            const shown = choice?.shown === a.attempt;
            return (
              <tr key={a.attempt} aria-current={shown ? 'true' : undefined}>
                <td>{a.attempt}</td>
                <td>{when(a.started_at)}</td>
                <td>{a.duration_ms} ms</td>
                <td>{of(a)}</td>
                <td>{a.error ?? ''}</td>
                {choice && (
                  <td>
                    <button type="button" class="secondary" aria-pressed={shown} onClick={() => choice.choose(a.attempt)}>
                      Show<span class="visually-hidden"> attempt {a.attempt}</span>
                    </button>
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
