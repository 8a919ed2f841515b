/**
 * CodeMirror 6, loaded only by the code editors (functions, webhooks' transformations; a separate chunk). The
 * editor lives in a shadow root: CodeMirror's style module then uses a
 * constructed stylesheet (adoptedStyleSheets) instead of a <style> element,
 * which the page's `style-src 'self'` (no 'unsafe-inline') would refuse.
 */
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { javascriptLanguage, typescriptLanguage } from '@codemirror/lang-javascript';
import { HighlightStyle, bracketMatching, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { Compartment, StateEffect, StateField, type Extension } from '@codemirror/state';
import { tags } from '@lezer/highlight';
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
 * CodeMirror's default colours, except those under 4.5:1 contrast (WCAG AA) on
 * the editor's lightest and darkest line backgrounds (white, the error line):
 * regular expressions and template strings (#e40), type names (#085), invalid (#f00).
 */
const highlight = HighlightStyle.define([
  { tag: tags.meta, color: '#404740' },
  { tag: tags.link, textDecoration: 'underline' },
  { tag: tags.heading, textDecoration: 'underline', fontWeight: 'bold' },
  { tag: tags.emphasis, fontStyle: 'italic' },
  { tag: tags.strong, fontWeight: 'bold' },
  { tag: tags.strikethrough, textDecoration: 'line-through' },
  { tag: tags.keyword, color: '#708' },
  { tag: [tags.atom, tags.bool, tags.url, tags.contentSeparator, tags.labelName], color: '#219' },
  { tag: [tags.literal, tags.inserted], color: '#164' },
  { tag: [tags.string, tags.deleted], color: '#a11' },
  { tag: [tags.regexp, tags.escape, tags.special(tags.string)], color: '#b02e00' },
  { tag: tags.definition(tags.variableName), color: '#00f' },
  { tag: tags.local(tags.variableName), color: '#30a' },
  { tag: [tags.typeName, tags.namespace], color: '#07603f' },
  { tag: tags.className, color: '#167' },
  { tag: [tags.special(tags.variableName), tags.macroName], color: '#256' },
  { tag: tags.definition(tags.propertyName), color: '#00c' },
  { tag: tags.comment, color: '#940' },
  { tag: tags.invalid, color: '#c00' },
]);

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
  syntaxHighlighting(highlight),
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

export function mountEditor(host: HTMLElement, text: string, typescript: boolean, onChange: (text: string) => void, label = 'Function code'): EditorHandle {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  const language = new Compartment();
  // The bare languages, not javascript(): its extras are completion sources, and no completion UI is
  // installed here, so they were bytes of the size budget that did nothing.
  const lang = (ts: boolean): Extension => (ts ? typescriptLanguage : javascriptLanguage);
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
      EditorView.contentAttributes.of({ 'aria-label': label }),
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
