// @ts-check
/**
 * Isolate-side source: stack traces in the user's positions. Installs
 * `Error.prepareStackTrace`, which V8 calls when a stack is first read: frames
 * in the user's script (compiled as `userFile`) get the line and column of
 * the user's own source, read from the function's source map (`userMappings`,
 * decoded on first use); frames of code the compiler added (module helpers)
 * are left out; other frames (the sandbox's) stay as V8 prints them.
 * `firstLineOffset` is the length of the module wrapper that shares the
 * script's first line. Everything it calls was captured before user code
 * runs, and it never throws: a stack is always a string.
 */
// isolate source begins
{
  const B64V = createObject(null);
  const B64C = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < 64; i++) B64V[B64C[i]] = i;
  const errorToString = Error.prototype.toString;
  const lastIndexOf = String.prototype.lastIndexOf;
  const sliceString = String.prototype.slice;
  // CallSite's methods, taken from a frame before user code can change them.
  const prev = Error.prepareStackTrace;
  Error.prepareStackTrace = (_, frames) => frames;
  // @ts-expect-error with the prepareStackTrace above, stack is the array of CallSites
  const site = Object.getPrototypeOf(new Error().stack[0]);
  Error.prepareStackTrace = prev;
  const siteText = site.toString, siteFile = site.getFileName, siteLine = site.getLineNumber, siteColumn = site.getColumnNumber;

  // Per generated line, the flat [column, line, column, ...] of its mapped segments; decoded on first use.
  let lines = null;
  function decode(text) {
    const out = [];
    let seg = [], srcLine = 0, srcCol = 0, genCol = 0, i = 0;
    while (i <= text.length) {
      const c = text[i];
      if (c === ';' || c === undefined) { out.push(seg); seg = []; genCol = 0; i++; continue; }
      if (c === ',') { i++; continue; }
      const f = [];
      while (i < text.length && text[i] !== ',' && text[i] !== ';') {
        let value = 0, shift = 0, digit;
        do { digit = B64V[text[i++]]; value += (digit & 31) << shift; shift += 5; } while (digit & 32);
        f.push(value & 1 ? -(value >>> 1) : value >>> 1);
      }
      genCol += f[0] || 0;
      if (f.length >= 4) { srcLine += f[2]; srcCol += f[3]; seg.push(genCol, srcLine + 1, srcCol + 1); }
      else seg.push(genCol, 0, 0);
    }
    return out;
  }
  // The user's [line, column] for a 1-based position in the user's script, or null for added code.
  function original(line, column) {
    const col = (line === 1 ? column - firstLineOffset : column) - 1;
    if (userMappings === null) return [line, col + 1];
    if (lines === null) lines = decode(userMappings);
    const seg = lines[line - 1];
    if (!seg) return null;
    let found = -1;
    for (let k = 0; k < seg.length && seg[k] <= col; k += 3) found = k;
    return found < 0 || seg[found + 1] === 0 ? null : [seg[found + 1], seg[found + 2]];
  }
  function frameText(frame) {
    const text = callFunction(siteText, frame, []);
    if (callFunction(siteFile, frame, []) !== userFile) return text;
    const line = callFunction(siteLine, frame, []), column = callFunction(siteColumn, frame, []);
    const pos = original(line, column);
    if (pos === null) return null;
    const needle = userFile + ':' + line + ':' + column;
    const at = callFunction(lastIndexOf, text, [needle]);
    if (at < 0) return text;
    return callFunction(sliceString, text, [0, at]) + userFile + ':' + pos[0] + ':' + pos[1] +
      callFunction(sliceString, text, [at + needle.length]);
  }
  function prepareStackTrace(error, frames) {
    let text;
    try { text = callFunction(errorToString, error, []); } catch (_) { text = 'Error'; }
    for (let i = 0; i < frames.length; i++) {
      let line;
      try { line = frameText(frames[i]); } catch (_) { line = '<unknown>'; }
      if (line !== null) text += '\n    at ' + line;
    }
    return text;
  }
  Object.defineProperty(Error, 'prepareStackTrace', { value: prepareStackTrace, writable: true, configurable: true, enumerable: false });
}
// isolate source ends
