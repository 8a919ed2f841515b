/**
 * Try-it panel: sends a request to an API's invoke URL from the browser and
 * shows status, headers, body (JSON indented) and time, with the same request
 * as a curl command. A route's path parameters each get a field; their values
 * are put into the URL percent-encoded (try-request.ts).
 */
import { useState } from 'preact/hooks';
import { Field } from '../components.js';
import { prettyJson } from '../format.js';
import { curlCommand, fillPath, pathParams } from '../try-request.js';
import { routeMethodValues } from '../schema-enums.js';

/** A request has one method: every route method but ANY. */
const METHODS = routeMethodValues.filter((m) => m !== 'ANY');

interface Answer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: string;
  ms: number;
}

/** `Name: value` lines into pairs; lines without a colon are left out. */
function parseHeaders(text: string): [string, string][] {
  return text
    .split('\n')
    .map((line) => [line.slice(0, line.indexOf(':')).trim(), line.slice(line.indexOf(':') + 1).trim()] as [string, string])
    .filter(([name]) => name.length > 0);
}

/** `method` and `path` start the form (a route's "Try" button sets them: `:id` and `{name}` segments get a field each). */
export function TryIt({ invokeUrl, ...start }: { invokeUrl: string; method: string; path: string }) {
  const [method, setMethod] = useState(start.method);
  const [path, setPath] = useState(start.path);
  const [values, setValues] = useState<Record<string, string>>({});
  const [query, setQuery] = useState('');
  const [headers, setHeaders] = useState('');
  const [body, setBody] = useState('');
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);

  const params = pathParams(path);
  const filled = fillPath(path.startsWith('/') ? path : `/${path}`, values);
  const url = `${invokeUrl.replace(/\/$/, '')}${filled}${query ? `?${query.replace(/^\?/, '')}` : ''}`;
  const headerPairs = parseHeaders(headers);
  const curl = curlCommand(method, url, headerPairs, body);

  async function send(e: Event) {
    e.preventDefault();
    setFailure(null);
    const started = performance.now();
    try {
      const res = await fetch(url, {
        method,
        headers: headerPairs,
        body: body && method !== 'GET' && method !== 'HEAD' ? body : undefined,
        credentials: 'omit',
      });
      const text = await res.text();
      setAnswer({ status: res.status, statusText: res.statusText, headers: [...res.headers.entries()], body: text, ms: performance.now() - started });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // Invocations on their own listener are another origin: the browser shows an answer only if the function allows it.
      const elsewhere = new URL(url, location.href).origin !== location.origin;
      setFailure(
        elsewhere
          ? `${message}. The API answers on ${new URL(url, location.href).origin}, another origin than the dashboard: the browser shows the answer only when the function allows this origin (Access-Control-Allow-Origin: ${location.origin}, and for other than simple requests an answer to OPTIONS). The curl command works either way.`
          : message,
      );
    }
  }

  return (
    <form class="card try-it" onSubmit={send} aria-labelledby="try-title">
      <h2 id="try-title">Try it</h2>
      <div class="grid">
        <Field label="Method" id="try-method">
          <select id="try-method" value={method} onChange={(e) => setMethod(e.currentTarget.value)}>
            {METHODS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </Field>
        <Field label="Path" id="try-path">
          <input id="try-path" value={path} onInput={(e) => setPath(e.currentTarget.value)} />
        </Field>
        {params.map((p, i) => (
          <Field
            key={p.name}
            label={p.greedy ? `Path parameter ${p.name === '*' ? '*' : p.name} (the rest of the path)` : `Path parameter ${p.name}`}
            id={`try-param-${i}`}
          >
            <input
              id={`try-param-${i}`}
              class="try-param"
              value={values[p.name] ?? ''}
              onInput={(e) => setValues({ ...values, [p.name]: e.currentTarget.value })}
              placeholder={p.written}
              required
            />
          </Field>
        ))}
        <Field label="Query" id="try-query">
          <input id="try-query" value={query} onInput={(e) => setQuery(e.currentTarget.value)} placeholder="name=value&other=1" />
        </Field>
      </div>
      <Field label="Headers (Name: value lines)" id="try-headers">
        <textarea id="try-headers" rows={2} value={headers} onInput={(e) => setHeaders(e.currentTarget.value)} spellcheck={false} />
      </Field>
      <Field label="Body" id="try-body">
        <textarea id="try-body" rows={3} value={body} onInput={(e) => setBody(e.currentTarget.value)} spellcheck={false} />
      </Field>
      <div class="actions">
        <button type="submit">Send</button>
        <button
          type="button"
          class="secondary"
          onClick={() =>
            navigator.clipboard?.writeText(curl).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          Copy as curl
        </button>
        {copied && <span role="status">Copied</span>}
      </div>
      <pre class="curl" aria-label="The request as a curl command">{curl}</pre>
      {failure && (
        <p class="error" role="alert">
          The request failed: {failure}
        </p>
      )}
      {answer && (
        <div class="result" aria-live="polite">
          <p>
            Status <strong class="try-status">{answer.status}</strong> {answer.statusText} in {answer.ms.toFixed(0)} ms
          </p>
          <details>
            <summary>Headers ({answer.headers.length})</summary>
            <dl class="headers">
              {answer.headers.map(([name, value]) => (
                <>
                  <dt>{name}</dt>
                  <dd>{value}</dd>
                </>
              ))}
            </dl>
          </details>
          <pre class="try-body json">{prettyJson(answer.body)}</pre>
        </div>
      )}
    </form>
  );
}
