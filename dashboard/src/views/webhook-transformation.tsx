/**
 * A webhook's transformation in its settings form: the code (the functions'
 * CodeMirror editor, loaded only once a transformation is added) and a try-it
 * panel that runs it on a sample payload through
 * `POST /api/transformation-test`, showing the request it would
 * send, its cancellation or its error. Kept apart from webhook-form.tsx,
 * which only holds the code's text.
 */
import { useState } from 'preact/hooks';
import type { Schemas } from '../../../src/client/index.js';
import { api, call, type ApiError } from '../api.js';
import { ErrorBox, Field, Json, parseJson, toApiError } from '../components.js';
import { CodeEditor } from './code-editor.js';

type Result = Schemas['TransformationTestResult'];

/** What "Add a transformation" starts from: Svix's shape, changed a little. */
export const STARTER = `function handler(webhook) {
  // { method, url, headers, payload, eventType, cancel }
  return webhook;
}
`;

export function TransformationFields(props: {
  code: string;
  onChange(code: string): void;
  /** The form's error: an `invalid_transformation` one marks its line. */
  error: ApiError | null;
  /** What the try-it panel sends as the request, from the form's other fields. */
  sample: { method: Schemas['Webhook']['method']; url: string; headers: Record<string, string> };
}) {
  const { code, onChange, error, sample } = props;
  const [payload, setPayload] = useState('{\n  "event": "order.created",\n  "data": { "id": 1 }\n}');
  const [result, setResult] = useState<Result | null>(null);
  const [tryError, setTryError] = useState<ApiError | null>(null);
  const [running, setRunning] = useState(false);
  // Open while being edited, even when emptied on the way to new code; closed only by Remove.
  const [open, setOpen] = useState(code !== '');
  const details = (error?.code === 'invalid_transformation' ? error.details : undefined) as { line?: number | null; column?: number | null } | undefined;
  const errorLine = details?.line ?? null;

  async function tryIt() {
    setTryError(null);
    setResult(null);
    setRunning(true);
    try {
      const body = {
        transformation: code,
        request: { method: sample.method, url: sample.url || 'https://example.com/webhook', headers: sample.headers, payload: parseJson(payload, 'sample payload') ?? null },
      };
      setResult(await call(api.POST('/api/transformation-test', { body })));
    } catch (err) {
      setTryError(toApiError(err));
    } finally {
      setRunning(false);
    }
  }

  return (
    <fieldset class="group transformation">
      <legend>Transformation (JavaScript run on each attempt's request before it is signed)</legend>
      {!open ? (
        <button
          type="button"
          class="secondary"
          onClick={() => {
            onChange(STARTER);
            setOpen(true);
          }}
        >
          Add a transformation
        </button>
      ) : (
        <>
          <div class="field" id="wh-transformation">
            <CodeEditor text={code} typescript={false} errorLine={errorLine} onChange={onChange} label="Transformation code" />
            <small class="hint">
              Declare <code>function handler(webhook)</code>; change <code>method</code>, <code>url</code>, <code>headers</code> or <code>payload</code>, or set{' '}
              <code>cancel = true</code>. 10 ms of CPU, no network.
            </small>
          </div>
          {errorLine !== null && (
            <p class="compile-error" role="status">
              Error at line {errorLine}
              {details?.column ? `, column ${details.column}` : ''}
            </p>
          )}
          <div class="actions">
            <button
              type="button"
              class="secondary"
              onClick={() => {
                onChange('');
                setOpen(false);
              }}
            >
              Remove the transformation
            </button>
          </div>
          <Field label="Sample payload (JSON) to try it on" id="wh-transformation-sample">
            <textarea id="wh-transformation-sample" rows={4} value={payload} onInput={(e) => setPayload(e.currentTarget.value)} spellcheck={false} />
          </Field>
          <div class="actions">
            <button type="button" onClick={tryIt} disabled={running}>
              {running ? 'Running…' : 'Try it'}
            </button>
          </div>
          <ErrorBox error={tryError} />
          {result && (
            <div class="transformation-result" role="status" aria-label="Transformation result">
              {result.outcome === 'transformed' && (
                <>
                  <p>
                    Would send {result.request?.method} {result.request?.url} ({result.duration_ms.toFixed(1)} ms)
                  </p>
                  <Json value={result.request} />
                </>
              )}
              {result.outcome === 'cancelled' && <p>Cancelled: the delivery would end without a send.</p>}
              {result.outcome === 'failed' && (
                <p class="error">
                  {result.error?.code}: {result.error?.message}
                </p>
              )}
            </div>
          )}
        </>
      )}
    </fieldset>
  );
}
