/** A code editor (functions' code, webhooks' transformations): CodeMirror loaded on first use (its own chunk). `label` names it for assistive technology. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { EditorHandle } from './editor-impl.js';

export function CodeEditor(props: { text: string; typescript: boolean; errorLine: number | null; onChange(text: string): void; label?: string }) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<EditorHandle | null>(null);
  const [ready, setReady] = useState(false);
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;

  useEffect(() => {
    let gone = false;
    void import('./editor-impl.js').then(({ mountEditor }) => {
      if (gone || !host.current) return;
      editor.current = mountEditor(host.current, props.text, props.typescript, (t) => onChange.current(t), props.label);
      setReady(true);
    });
    return () => {
      gone = true;
      editor.current?.destroy();
      editor.current = null;
    };
  }, []);
  useEffect(() => editor.current?.setLanguage(props.typescript), [props.typescript, ready]);
  useEffect(() => editor.current?.showError(props.errorLine), [props.errorLine, ready]);

  return (
    <div class="code-editor" data-ready={ready ? 'true' : 'false'}>
      <div ref={host} class="code-host" />
      {!ready && <p class="hint">Loading the editor…</p>}
    </div>
  );
}
