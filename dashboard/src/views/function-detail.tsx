/**
 * One function: its settings and code (saving deploys: POST for a new one,
 * PUT for an update), the compile error at its line, a manual invoke with an
 * editable event, its console lines as they happen (the log stream), its
 * version history with restore, and its triggers.
 */
import { useEffect, useState } from 'preact/hooks';
import { followLogs, type Schemas } from '../../../src/client/index.js';
import { adminKey, api, ApiCallError, call, type ApiError } from '../api.js';
import { ConfirmDelete, ErrorBox, Field, Json, parseJson, toApiError, useLoad } from '../components.js';
import { href, navigate } from '../router.js';
import { prettyJson } from '../format.js';
import { CodeEditor } from './code-editor.js';
import { BackgroundRuns, Triggers } from './function-runs.js';
import { Versions } from './function-versions.js';
import { functionEventFormatValues, functionRuntimeValues } from '../schema-enums.js';

type Fn = Schemas['Function'];

const STARTER = `export async function handler(event) {
  console.log('called', event.httpMethod, event.path);
  return { statusCode: 200, body: { hello: event.queryStringParameters?.name ?? 'world' } };
}
`;

/** How the selects name each value of the schema's enums (a value the schema gains needs a label here, or this does not compile). */
const RUNTIME_LABELS: Record<Fn['runtime'], string> = { javascript: 'JavaScript', typescript: 'TypeScript' };
const FORMAT_LABELS: Record<Fn['event_format'], string> = { switchyard: 'switchyard', 'aws-v1': 'aws-v1 (REST API)', 'aws-v2': 'aws-v2 (HTTP API)' };

interface Settings {
  name: string;
  runtime: Fn['runtime'];
  handler: string;
  event_format: Fn['event_format'];
  timeout_ms: string;
  memory_mb: string;
  env: string;
}

const fromFunction = (fn: Fn | null): Settings => ({
  name: fn?.name ?? '',
  runtime: fn?.runtime ?? 'javascript',
  handler: fn?.handler ?? '',
  event_format: fn?.event_format ?? 'switchyard',
  timeout_ms: fn ? String(fn.timeout_ms) : '',
  memory_mb: fn ? String(fn.memory_mb) : '',
  env: '',
});

/** `KEY=value` lines; the message names the line that is not one. */
function parseEnv(text: string): Record<string, string> | undefined {
  const lines = text.split('\n').filter((l) => l.trim());
  if (lines.length === 0) return undefined;
  const env: Record<string, string> = {};
  lines.forEach((line, i) => {
    const eq = line.indexOf('=');
    if (eq < 1) throw Object.assign(new Error(`env line ${i + 1} is not KEY=value`), { field: 'env' });
    env[line.slice(0, eq).trim()] = line.slice(eq + 1);
  });
  return env;
}

const number = (text: string) => (text.trim() ? Number(text) : undefined);

/**
 * What the page says after creating a function, handed to the page that
 * mounts for it (creating navigates to the function's own URL, which mounts
 * a new page): the creation is confirmed there, not lost with the form.
 */
let afterCreate: { name: string; notice: string } | null = null;

export function FunctionDetail({ name, run, version }: { name: string | null; run?: string; version?: string }) {
  const isNew = name === null;
  const loaded = useLoad(() => (isNew ? Promise.resolve(null) : call(api.GET('/api/functions/{name}', { params: { path: { name } } }))), [name]);
  const fn = loaded.data ?? null;
  // The form starts again from the stored function after a deploy or a restore; a trigger
  // change (also a new version) keeps what is being typed in the editor and the settings.
  const [deployed, setDeployed] = useState(0);
  if (!isNew && !fn) {
    return (
      <section>
        <h1>{name}</h1>
        <ErrorBox error={loaded.error} />
        {!loaded.error && <p>Loading…</p>}
      </section>
    );
  }
  return (
    <FunctionPage
      key={deployed}
      fn={fn}
      run={run}
      version={version}
      onSaved={(saved) => {
        if (isNew) {
          afterCreate = { name: saved.name, notice: `Created function ${saved.name}: version ${saved.version} deployed` };
          return navigate('functions', saved.name);
        }
        loaded.setData(saved);
        setDeployed((n) => n + 1);
      }}
      onTriggersChanged={(saved) => loaded.setData(saved)}
    />
  );
}

function FunctionPage({ fn, run, version, onSaved, onTriggersChanged }: {
  fn: Fn | null;
  run?: string;
  version?: string;
  onSaved(fn: Fn): void;
  onTriggersChanged(fn: Fn): void;
}) {
  const [settings, setSettings] = useState(() => fromFunction(fn));
  const [code, setCode] = useState(fn?.code ?? STARTER);
  const [error, setError] = useState<ApiError | null>(null);
  const [errorLine, setErrorLine] = useState<number | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const [created] = useState(() => {
    const mine = afterCreate && afterCreate.name === fn?.name ? afterCreate.notice : null;
    if (mine) afterCreate = null;
    return mine;
  });
  const set = (key: keyof Settings) => (e: { currentTarget: { value: string } }) => setSettings({ ...settings, [key]: e.currentTarget.value });

  async function save(e: Event) {
    e.preventDefault();
    setSaving(true);
    setError(null);
    setErrorLine(null);
    setSaved(null);
    try {
      let env: Record<string, string> | undefined;
      try {
        env = parseEnv(settings.env);
      } catch (err) {
        throw { error: (err as Error).message, code: 'invalid_request', details: { field: 'env' } } satisfies ApiError;
      }
      const common = {
        code,
        runtime: settings.runtime,
        event_format: settings.event_format,
        ...(settings.handler.trim() ? { handler: settings.handler.trim() } : {}),
        ...(number(settings.timeout_ms) !== undefined ? { timeout_ms: number(settings.timeout_ms) } : {}),
        ...(number(settings.memory_mb) !== undefined ? { memory_mb: number(settings.memory_mb) } : {}),
        ...(env ? { env } : {}),
      };
      const result = fn
        ? await call(api.PUT('/api/functions/{name}', { params: { path: { name: fn.name } }, body: { ...common, handler: settings.handler.trim() || null } }))
        : await call(api.POST('/api/functions', { body: { name: settings.name, ...common } }));
      if ('dry_run' in result) return;
      setSaved(`Deployed version ${result.version}`);
      onSaved({ ...result, code });
    } catch (err) {
      const apiError = (err as ApiError).code && !(err instanceof Error) ? (err as ApiError) : toApiError(err);
      setError(apiError);
      const details = (apiError.details ?? {}) as { line?: number };
      if (apiError.code === 'invalid_code' && typeof details.line === 'number') setErrorLine(details.line);
    } finally {
      setSaving(false);
    }
  }

  const details = (error?.details ?? {}) as { line?: number; column?: number };
  return (
    <section aria-labelledby="function-title">
      <h1 id="function-title">{fn ? fn.name : 'New function'}</h1>
      {fn && (
        <p class="meta">
          Version {fn.version} · {fn.runtime} · env keys: {fn.env_keys.length ? fn.env_keys.join(', ') : 'none'}
        </p>
      )}
      {created && (
        <p class="ok notice created" role="status">
          {created}. Invoke it below, or <a href={href('apis')}>give it a route</a> to call it over HTTP.
        </p>
      )}
      <form class="card" onSubmit={save} aria-label="Function settings and code">
        <div class="grid">
          {!fn && (
            <Field label="Name" id="fn-name">
              <input id="fn-name" value={settings.name} onInput={set('name')} required pattern="[A-Za-z][A-Za-z0-9_\-]{0,63}" />
            </Field>
          )}
          <Field label="Runtime" id="fn-runtime">
            <select id="fn-runtime" value={settings.runtime} onChange={set('runtime')}>
              {functionRuntimeValues.map((r) => (
                <option key={r} value={r}>
                  {RUNTIME_LABELS[r]}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Handler (export to call)" id="fn-handler" hint="Empty: handler, else the default export">
            <input id="fn-handler" value={settings.handler} onInput={set('handler')} aria-describedby="fn-handler-hint" />
          </Field>
          <Field label="Event format" id="fn-format">
            <select id="fn-format" value={settings.event_format} onChange={set('event_format')}>
              {functionEventFormatValues.map((f) => (
                <option key={f} value={f}>
                  {FORMAT_LABELS[f]}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Timeout (ms)" id="fn-timeout">
            <input id="fn-timeout" inputMode="numeric" value={settings.timeout_ms} onInput={set('timeout_ms')} placeholder="server default" />
          </Field>
          <Field label="Memory (MB)" id="fn-memory">
            <input id="fn-memory" inputMode="numeric" value={settings.memory_mb} onInput={set('memory_mb')} placeholder="server default" />
          </Field>
        </div>
        <Field
          label="Environment (KEY=value lines)"
          id="fn-env"
          hint={fn ? 'Values are write-only. Leave empty to keep the current variables; any line here replaces them all.' : 'Values are write-only.'}
        >
          <textarea id="fn-env" rows={2} value={settings.env} onInput={set('env')} aria-describedby="fn-env-hint" autoComplete="off" spellcheck={false} />
        </Field>
        <div class="field">
          <span class="label" id="code-label">
            Code
          </span>
          <CodeEditor text={code} typescript={settings.runtime === 'typescript'} errorLine={errorLine} onChange={setCode} />
          <small class="hint">Tab indents; press Escape, then Tab, to move on from the editor.</small>
        </div>
        {error && error.code === 'invalid_code' && details.line !== undefined && (
          <p class="compile-error" role="status">
            Compile error at line {details.line}
            {details.column !== undefined ? `, column ${details.column}` : ''}
          </p>
        )}
        <ErrorBox error={error} />
        <div class="actions">
          <button type="submit" disabled={saving}>
            {saving ? 'Deploying…' : fn ? 'Save and deploy' : 'Create and deploy'}
          </button>
          {saved && (
            <span class="ok" role="status">
              {saved}
            </span>
          )}
        </div>
      </form>
      {fn && <Versions fn={fn} open={version} onRestored={onSaved} />}
      {fn && <InvokePanel name={fn.name} />}
      {fn && <Console name={fn.name} />}
      {fn && <Triggers fn={fn} onSaved={onTriggersChanged} />}
      {fn && <BackgroundRuns name={fn.name} open={run} />}
      {fn && (
        <div class="card">
          <ConfirmDelete
            what={`function ${fn.name}`}
            onDelete={async () => {
              await call(api.DELETE('/api/functions/{name}', { params: { path: { name: fn.name } } }));
              navigate('functions');
            }}
          />
        </div>
      )}
    </section>
  );
}

/** A result's `body` when it is a JSON text (an API Gateway style result), shown once more indented; else null. */
function bodyText(result: unknown): string | null {
  const body = result && typeof result === 'object' ? (result as { body?: unknown }).body : undefined;
  return typeof body === 'string' && prettyJson(body) !== body ? body : null;
}

function InvokePanel({ name }: { name: string }) {
  const [event, setEvent] = useState('{\n  "httpMethod": "GET",\n  "path": "/",\n  "queryStringParameters": { "name": "dashboard" }\n}');
  const [result, setResult] = useState<Schemas['Invocation'] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  async function invoke(e: Event) {
    e.preventDefault();
    setError(null);
    try {
      const body = parseJson(event, 'event') as Record<string, unknown> | undefined;
      const answer = await call(api.POST('/api/functions/{name}/invoke', { params: { path: { name } }, body: body ?? null }));
      if ('invocation_id' in answer) return;
      setResult(answer as Schemas['Invocation']);
    } catch (err) {
      setError(toApiError(err));
    }
  }
  return (
    <form class="card" onSubmit={invoke} aria-labelledby="invoke-title">
      <h2 id="invoke-title">Invoke</h2>
      <Field label="Event (JSON, in the function's event format)" id="invoke-event">
        <textarea id="invoke-event" rows={6} value={event} onInput={(e) => setEvent(e.currentTarget.value)} spellcheck={false} />
      </Field>
      <button type="submit">Invoke</button>
      <ErrorBox error={error} />
      {result && (
        <div class="result" aria-live="polite">
          <p>
            Status <strong class="invoke-status">{result.status}</strong> in {result.duration_ms} ms
            {result.error && (
              <>
                {' '}
                · <code>{result.error.code}</code>: {result.error.message}
              </>
            )}
          </p>
          <Json value={result.result} />
          {bodyText(result.result) !== null && (
            <>
              <h3 class="body-title">Its body, indented</h3>
              <Json class="invoke-body" value={bodyText(result.result)} />
            </>
          )}
          {result.logs.length > 0 && (
            <ul class="log-lines">
              {result.logs.map((line, i) => (
                <li key={i} class={`level-${line.level}`}>
                  <span class="level">{line.level}</span> {line.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </form>
  );
}

/** A console line or a finished invocation (every process's and node's; invocations live only). */
type ConsoleEntry =
  | { kind: 'log'; key: string; line: Schemas['LogStreamEntry'] }
  | { kind: 'invocation'; key: string; run: Schemas['InvocationEvent'] };

/** How many stored lines the console starts with, and keeps as new ones arrive. */
const CONSOLE_LINES = 200;

/** A stored line (`GET /api/functions/{name}/logs`) in the stream's shape. */
const storedEntry = (name: string, line: Schemas['LogEntry']): ConsoleEntry => ({
  kind: 'log',
  key: `l${line.id}`,
  line: { id: line.id ?? 0, function: name, version: line.version ?? null, request_id: line.request_id, level: line.level, message: line.message, ts: line.time, time: line.time },
});

/**
 * The function's console: its newest stored lines first (what `switchyard logs`
 * shows), then its console lines and finished invocations live from the line
 * after the newest stored one, so none is shown twice or missed between the
 * two reads. The last CONSOLE_LINES kept; the stream resumes after a dropped connection.
 */
function Console({ name }: { name: string }) {
  const [entries, setEntries] = useState<ConsoleEntry[]>([]);
  const [state, setState] = useState<'loading' | 'connecting' | 'live' | 'stopped'>('loading');
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    const stop = new AbortController();
    let seq = 0;
    void (async () => {
      try {
        const stored = await call(api.GET('/api/functions/{name}/logs', { params: { path: { name }, query: { limit: CONSOLE_LINES } } }));
        if (stop.signal.aborted) return;
        setEntries(stored.map((line) => storedEntry(name, line)));
        // 0 when none is stored: the stream then starts from the oldest line, which is any written since.
        const since = stored.reduce((max, line) => Math.max(max, line.id ?? 0), 0);
        setState('connecting');
        const events = followLogs({
          baseUrl: location.origin,
          adminKey: adminKey(),
          function: name,
          since,
          signal: stop.signal,
          onOpen: () => setState('live'),
          onReconnect: () => setState('connecting'),
        });
        for await (const event of events) {
          const entry: ConsoleEntry =
            event.event === 'log'
              ? { kind: 'log', key: `l${event.data.id}`, line: event.data }
              : { kind: 'invocation', key: `i${++seq}`, run: event.data };
          setEntries((previous) => [...previous.slice(1 - CONSOLE_LINES), entry]);
        }
      } catch (err) {
        if (!stop.signal.aborted) {
          setState('stopped');
          if (err instanceof ApiCallError) return setError(err.body);
          const refused = err as { status?: number; code?: string; message?: string };
          setError({ error: refused.message ?? String(err), code: refused.code ?? 'stream_error' });
        }
      }
    })();
    return () => stop.abort();
  }, [name]);
  return (
    <section class="card" aria-labelledby="console-title">
      <h2 id="console-title">
        Console <span class="badge">{state}</span>
      </h2>
      <ErrorBox error={error} />
      {entries.length === 0 ? (
        <p class="hint">{state === 'loading' ? 'Loading the stored lines…' : 'No console lines yet. Lines and finished calls appear here as they happen.'}</p>
      ) : (
        // It scrolls (the newest CONSOLE_LINES lines): focusable, so a keyboard can scroll it too.
        <ol class="log-lines console" aria-live="polite" aria-label="Console lines" tabIndex={0}>
          {entries.map((entry) =>
            entry.kind === 'log' ? (
              <li key={entry.key} class={`level-${entry.line.level}`}>
                <time dateTime={entry.line.ts}>{new Date(entry.line.ts).toLocaleTimeString()}</time> <span class="level">{entry.line.level}</span>{' '}
                {entry.line.message}
              </li>
            ) : (
              <li key={entry.key} class={`invocation ${entry.run.outcome === 'ok' ? 'ok' : 'failed'}`}>
                <time dateTime={entry.run.ts}>{new Date(entry.run.ts).toLocaleTimeString()}</time> <span class="level">call</span> {entry.run.method}{' '}
                {entry.run.path} → {entry.run.status} in {entry.run.duration_ms.toFixed(1)} ms{entry.run.outcome === 'ok' ? '' : ` (${entry.run.outcome})`}
              </li>
            ),
          )}
        </ol>
      )}
    </section>
  );
}
