/**
 * The source map a compiled function carries (compile.ts appends it as an
 * inline `sourceMappingURL` comment, so it travels and is stored with the
 * code): split off before the code is run, and used on the host to turn a
 * position V8 reports in the compiled code into the user's. Stack traces
 * inside the isolate are mapped there, from the same `mappings` text
 * (isolate/sandbox/positions.js).
 */

const MARKER = '\n//# sourceMappingURL=data:application/json;base64,';

export interface SplitCode {
  /** The code to run, without the map comment. */
  code: string;
  /** The user's file name (the map's source), or null for code compiled without a map. */
  file: string | null;
  /** The map's VLQ `mappings`, or null. */
  mappings: string | null;
}

export function splitSourceMap(compiled: string): SplitCode {
  const at = compiled.lastIndexOf(MARKER);
  if (at < 0) return { code: compiled, file: null, mappings: null };
  try {
    const map = JSON.parse(Buffer.from(compiled.slice(at + MARKER.length).trim(), 'base64').toString('utf8')) as {
      sources?: unknown;
      mappings?: unknown;
    };
    const file = Array.isArray(map.sources) && typeof map.sources[0] === 'string' ? map.sources[0] : null;
    const mappings = typeof map.mappings === 'string' ? map.mappings : null;
    return { code: compiled.slice(0, at), file, mappings };
  } catch {
    return { code: compiled.slice(0, at), file: null, mappings: null };
  }
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * The user's 1-based [line, column] for a 1-based position in the compiled
 * code, or null when that position is code the compiler added. Decodes only
 * up to the line asked for.
 */
export function originalPosition(mappings: string, line: number, column: number): [number, number] | null {
  let genLine = 0;
  let srcLine = 0;
  let srcCol = 0;
  let best: [number, number] | null = null;
  let i = 0;
  const wantLine = line - 1;
  const col = column - 1;
  while (i < mappings.length && genLine <= wantLine) {
    let genCol = 0;
    // One line's segments.
    while (i < mappings.length && mappings[i] !== ';') {
      const fields: number[] = [];
      while (i < mappings.length && mappings[i] !== ',' && mappings[i] !== ';') {
        let value = 0;
        let shift = 0;
        let digit: number;
        do {
          digit = B64.indexOf(mappings[i++]);
          value += (digit & 31) << shift;
          shift += 5;
        } while (digit & 32);
        fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
      }
      genCol += fields[0] ?? 0;
      if (fields.length === 1 && genLine === wantLine && genCol <= col) best = null;
      if (fields.length >= 4) {
        srcLine += fields[2];
        srcCol += fields[3];
        if (genLine === wantLine && genCol <= col) best = [srcLine + 1, srcCol + 1];
      }
      if (mappings[i] === ',') i++;
    }
    if (genLine === wantLine) return best;
    genLine++;
    i++;
  }
  return null;
}
