/**
 * Text that others wrote (a function's console lines, names and paths the
 * server passes on) made safe to print on a terminal: every control
 * character is shown as an escape (`\x1b`, `\r`, `\x07`, `\x9b`) instead of
 * acting, so a function cannot set the window title (OSC), move the cursor
 * or clear the screen (CSI), ring the bell, overwrite a line (CR, backspace)
 * or switch character sets; the C1 controls count too, since some terminals
 * read 0x9B as CSI. Unicode's line and paragraph separators and the
 * bidirectional overrides, which reorder what is shown, are escaped as well.
 *
 * A line break inside one console line stays a break (stack traces read as
 * they should) but the next line starts with `CONTINUATION`, so it can never
 * pass for a line of its own: every real line starts with a time.
 *
 * Written here rather than taken from a package: the packages that strip
 * ANSI sequences remove the sequences they know and leave the rest (a lone
 * ESC, C1 bytes, CR), where the rule here is to let no control through.
 */

/** What starts the second and later lines of one multi-line console line. */
export const CONTINUATION = '  | ';

// C0 but tab and line feed, DEL, C1, line/paragraph separators, bidi embeddings, overrides and isolates, and marks.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v', '\0': '\\0' };

function escape(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Text with no control character left; line breaks (LF, CRLF) kept. */
export function terminalText(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONTROL, escape);
}

/** One line of output from someone else: controls escaped, any line break followed by `CONTINUATION`. */
export function terminalLine(text: string): string {
  return terminalText(text).replace(/\n/g, `\n${CONTINUATION}`);
}
