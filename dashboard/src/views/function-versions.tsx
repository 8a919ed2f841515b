/**
 * A function's version history (`GET /api/functions/{name}/versions`, the
 * newest 50): each version's time, size and settings; one opened
 * (`#/functions/<name>/versions/<n>`) shows its code read-only, or a line diff
 * against the current code, and **Restore** deploys it again as a new version
 * (a PUT of its code and settings; the environment is not part of a version).
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Schemas } from '../../../src/client/index.js';
import { api, call, type ApiError } from '../api.js';
import { ErrorBox, toApiError, useLoad, when } from '../components.js';
import { href, navigate } from '../router.js';
import { lineDiff } from './line-diff.js';

type Fn = Schemas['Function'];
type Version = Schemas['FunctionVersion'];

const size = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`);

export function Versions({ fn, open, onRestored }: { fn: Fn & { code?: string }; open?: string; onRestored(fn: Fn): void }) {
  const { data, error } = useLoad(() => call(api.GET('/api/functions/{name}/versions', { params: { path: { name: fn.name } } })), [fn.name, fn.version]);
  return (
    <section class="card" aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <ErrorBox error={error} />
      {data && (
        <div class="table-wrap">
          <table>
            <caption class="hint">The newest 50 deploys and updates, newest first. The environment is never kept in a version.</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Deployed</th>
                <th scope="col" class="num">Size</th>
                <th scope="col">Handler</th>
                <th scope="col">Event format</th>
                <th scope="col">Runtime</th>
                <th scope="col">Limits</th>
              </tr>
            </thead>
            <tbody>
              {data.map((v) => (
                <tr key={v.version} aria-current={String(v.version) === open ? 'true' : undefined}>
                  <td>
                    <a href={href('functions', fn.name, 'versions', String(v.version))}>Version {v.version}</a>
                    {v.version === fn.version && <> <span class="badge">current</span></>}
                  </td>
                  <td>{when(v.created_at)}</td>
                  <td class="num">{size(v.code_bytes)}</td>
                  <td>{v.handler ?? 'default'}</td>
                  <td>{v.event_format}</td>
                  <td>{v.runtime}</td>
                  <td>
                    {v.timeout_ms} ms, {v.memory_mb} MB
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {open && <OpenVersion key={open} fn={fn} version={open} onRestored={onRestored} />}
    </section>
  );
}

function OpenVersion({ fn, version, onRestored }: { fn: Fn & { code?: string }; version: string; onRestored(fn: Fn): void }) {
  const loaded = useLoad(
    () => call(api.GET('/api/functions/{name}/versions/{version}', { params: { path: { name: fn.name, version: Number(version) } } })),
    [fn.name, version],
  );
  const [showDiff, setShowDiff] = useState(false);
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const v = loaded.data;
  // Computed once per pair of texts, not on every render of the page.
  const diff = useMemo(() => (showDiff && v && fn.code !== undefined ? lineDiff(fn.code, v.code ?? '') : null), [showDiff, v, fn.code]);
  useEffect(() => {
    if (v) document.getElementById('version-title')?.scrollIntoView({ block: 'start' });
  }, [v]);

  async function restore(v: Version & { code?: string }) {
    setError(null);
    try {
      const code = v.code ?? '';
      const restored = await call(
        api.PUT('/api/functions/{name}', {
          params: { path: { name: fn.name } },
          body: { code, runtime: v.runtime, handler: v.handler, event_format: v.event_format, timeout_ms: v.timeout_ms, memory_mb: v.memory_mb },
        }),
      );
      if ('dry_run' in restored) return;
      navigate('functions', fn.name);
      onRestored({ ...restored, code });
    } catch (err) {
      setError(toApiError(err));
    }
  }

  const close = (
    <a href={href('functions', fn.name)}>Close version {version}</a>
  );
  if (!v) {
    return (
      <div class="version-panel">
        <ErrorBox error={loaded.error} />
        {!loaded.error && <p>Loading version {version}…</p>}
        {close}
      </div>
    );
  }
  const current = v.version === fn.version;
  return (
    <div class="version-panel">
      <div class="title-row">
        <h3 id="version-title">
          Version {v.version}
          {current ? ' (current)' : ''}
        </h3>
        {close}
      </div>
      <p class="meta">
        Deployed {when(v.created_at)} · {v.runtime} · handler {v.handler ?? 'default'} · {v.event_format} · {v.timeout_ms} ms, {v.memory_mb} MB ·{' '}
        {size(v.code_bytes)} · SHA-256 <code>{v.code_sha256.slice(0, 12)}</code>
      </p>
      <div class="actions" role="group" aria-label="Show">
        <button type="button" class="secondary" aria-pressed={!showDiff} onClick={() => setShowDiff(false)}>
          Code
        </button>
        <button type="button" class="secondary" aria-pressed={showDiff} onClick={() => setShowDiff(true)} disabled={current}>
          Changes against the current code
        </button>
      </div>
      {!showDiff && (
        <pre class="json code-view">
          {v.code}
        </pre>
      )}
      {showDiff && diff && (
        <>
          <p class="hint">Lines marked − are in the current code (version {fn.version}) only; lines marked + are in version {v.version} only.</p>
          {!diff.minimal && (
            <p class="hint diff-coarse">
              The two differ too much to find every common line quickly: between the first and the last lines they share, all of the
              current code is marked − and all of version {v.version} +.
            </p>
          )}
          <pre class="json diff">
            {diff.lines.map(([mark, text], i) => (
              <span key={i} class={mark === '+' ? 'diff-add' : mark === '-' ? 'diff-del' : undefined}>
                {mark === '-' ? '−' : mark} {text}
                {'\n'}
              </span>
            ))}
          </pre>
        </>
      )}
      {!current &&
        (asking ? (
          <div class="confirm" role="group" aria-label={`Restore version ${v.version}`}>
            <span>
              Deploy version {v.version}'s code and settings as version {fn.version + 1}? The environment stays as it is.
            </span>
            <button type="button" onClick={() => restore(v)}>
              Yes, restore
            </button>
            <button type="button" class="secondary" onClick={() => setAsking(false)}>
              Cancel
            </button>
          </div>
        ) : (
          <button type="button" onClick={() => setAsking(true)}>
            Restore version {v.version}…
          </button>
        ))}
      <ErrorBox error={error} />
    </div>
  );
}
