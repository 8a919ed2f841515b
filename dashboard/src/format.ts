/**
 * Bodies as the pages show them: a JSON text indented (answers, request and
 * response bodies of deliveries arrive as one line), anything else as sent.
 *
 * The text is re-indented, not parsed and printed again: JSON.stringify of a
 * parsed body would show a different number than the one sent for integers
 * past 2^53 (`12345678901234567890` as `12345678901234567000`), and one key
 * where the body repeated it. Every token stays as written.
 */

/**
 * `text` indented by two spaces when it is a JSON object or array, else as it
 * is (a plain word, HTML, a number, broken JSON: indenting could only change
 * how it reads).
 */
export function prettyJson(text: string): string {
  const start = text.trimStart()[0];
  if (start !== '{' && start !== '[') return text;
  try {
    JSON.parse(text);
  } catch {
    return text;
  }
  return reindent(text);
}

/** Re-indents valid JSON: whitespace outside strings dropped, a line per member, empty `{}` and `[]` kept on one. */
function reindent(json: string): string {
  let out = '';
  let depth = 0;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      // A string, escapes and all, copied as it is.
      let end = i + 1;
      while (json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
      out += json.slice(i, end + 1);
      i = end;
    } else if (c === '{' || c === '[') {
      let next = i + 1;
      while (/\s/.test(json[next])) next++;
      if (json[next] === (c === '{' ? '}' : ']')) {
        out += c + json[next];
        i = next;
      } else {
        depth++;
        out += c + newline();
      }
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
    } else if (c === ',') {
      out += c + newline();
    } else if (c === ':') {
      out += ': ';
    } else if (!/\s/.test(c)) {
      out += c;
    }
  }
  return out;
}

/** A value to show: a string as prettyJson reads it, anything else as indented JSON. */
export function showValue(value: unknown): string {
  if (typeof value === 'string') return prettyJson(value);
  return JSON.stringify(value, null, 2) ?? String(value);
}
