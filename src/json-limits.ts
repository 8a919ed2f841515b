/**
 * Bounds on the JSON that enters Switchyard: request bodies, events, function
 * results. V8's JSON.parse copes with any depth, but JSON.stringify and every
 * recursive walk after it (schema validation, templates, cloning) overflow the
 * stack on deeply nested values, which would surface as a 500. Checking the
 * nesting once at the edge turns that into a clear 4xx.
 *
 * Written by hand: the check is a single pass over the text that must run
 * before parsing (so nothing recursive ever sees the value), and no JSON
 * library exposes that on its own.
 */

/** Deepest nesting of arrays and objects accepted anywhere (the top-level value is depth 1). */
export const MAX_JSON_DEPTH = 100;

/**
 * True when the JSON text nests arrays/objects deeper than `max`. Scans
 * without parsing; brackets inside strings do not count. Malformed text is
 * not judged here (the parser reports it), only its nesting.
 */
export function jsonTextTooDeep(text: string, max: number = MAX_JSON_DEPTH): boolean {
  // Text with no more than `max` brackets cannot nest deeper, whatever they are:
  // counted with indexOf (native, a few per body) before the scan character by character.
  if (bracketsAtMost(text, max)) return false;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string, honouring backslash escapes.
      for (i++; i < n; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c /* \ */) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}

/** True when the text holds at most `max` opening brackets (strings included, so it may count some that do not nest). */
function bracketsAtMost(text: string, max: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++count > max) return false;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++count > max) return false;
  return true;
}

/**
 * True when a value (already in memory, e.g. built by code) nests deeper than
 * `max`. Iterative, so it never overflows itself; a cycle is endless nesting,
 * so it counts as too deep.
 */
export function valueTooDeep(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: Array<[object, number]> = [[value, 1]];
  let visited = 0;
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > max) return true;
    // Shared sub-objects are walked once per path: bound the work, not only the depth.
    if (++visited > 1_000_000) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
