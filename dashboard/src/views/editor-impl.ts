/**
 * CodeMirror 6, loaded only by the function editor (a separate chunk). The
 * editor lives in a shadow root: CodeMirror's style module then uses a
 * constructed stylesheet (adoptedStyleSheets) instead of a <style> element,
 * which the page's `style-src 'self'` (no 'unsafe-inline') would refuse.
 */
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { javascript } from '@codemirror/lang-javascript';
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { Compartment, StateEffect, StateField, type Extension } from '@codemirror/state';
import {
  Decoration,
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
  type DecorationSet,
} from '@codemirror/view';

/**
 * The parts of CodeMirror's basicSetup an editor of one function needs; search,
 * folding, autocompletion and lint are left out to keep the chunk small (the
 * dashboard's JavaScript budget is 200 KB gzipped). Tab indents; Escape then Tab
 * leaves the editor (CodeMirror's tab-focus mode), so the keyboard is never trapped.
 */
const setup: Extension = [
  lineNumbers(),
  highlightActiveLineGutter(),
  highlightSpecialChars(),
  history(),
  drawSelection(),
  indentOnInput(),
  syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
  bracketMatching(),
  highlightActiveLine(),
  keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
];

const setErrorLine = StateEffect.define<number | null>();

/** The line the last compile error named, marked until the text changes or the next save. */
const errorLine = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    marks = tr.docChanged ? Decoration.none : marks;
    for (const effect of tr.effects) {
      if (!effect.is(setErrorLine)) continue;
      const line = effect.value;
      if (line === null || line < 1 || line > tr.state.doc.lines) return Decoration.none;
      const from = tr.state.doc.line(line).from;
      marks = Decoration.set([Decoration.line({ class: 'cm-error-line', attributes: { title: 'Compile error on this line' } }).range(from)]);
    }
    return marks;
  },
  provide: (field) => EditorView.decorations.from(field),
});

const theme = EditorView.theme({
  '&': { border: '1px solid #8a8f98', borderRadius: '4px', fontSize: '14px', backgroundColor: '#fff' },
  '&.cm-focused': { outline: '3px solid #1f5fbf', outlineOffset: '2px' },
  // No scrolling region of its own (it grows with the code, long lines wrap): a scroller
  // would need a keyboard stop of its own (axe: scrollable-region-focusable).
  '.cm-scroller': { minHeight: '14rem', fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace' },
  '.cm-error-line': { backgroundColor: '#fde2e1', boxShadow: 'inset 4px 0 0 #b3261e' },
});

export interface EditorHandle {
  setLanguage(typescript: boolean): void;
  showError(line: number | null): void;
  setText(text: string): void;
  destroy(): void;
}

export function mountEditor(host: HTMLElement, text: string, typescript: boolean, onChange: (text: string) => void): EditorHandle {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  const language = new Compartment();
  const lang = (ts: boolean): Extension => javascript({ typescript: ts });
  const view = new EditorView({
    doc: text,
    root,
    parent: root,
    extensions: [
      setup,
      language.of(lang(typescript)),
      errorLine,
      theme,
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': 'Function code' }),
      EditorView.updateListener.of((update) => update.docChanged && onChange(update.state.doc.toString())),
    ],
  });
  return {
    setLanguage: (ts) => view.dispatch({ effects: language.reconfigure(lang(ts)) }),
    showError(line) {
      const effects: StateEffect<unknown>[] = [setErrorLine.of(line)];
      if (line !== null && line >= 1 && line <= view.state.doc.lines) {
        const at = view.state.doc.line(line).from;
        view.dispatch({ effects: [...effects, EditorView.scrollIntoView(at, { y: 'center' })], selection: { anchor: at } });
      } else view.dispatch({ effects });
    },
    setText: (next) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next } }),
    destroy: () => view.destroy(),
  };
}
