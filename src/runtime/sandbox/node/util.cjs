/**
 * `util`: the npm `util` package (format, inspect, promisify, callbackify,
 * inherits, deprecate, types) plus what it lacks and Node has: TextEncoder,
 * TextDecoder, isDeepStrictEqual, stripVTControlCharacters, toUSVString, and
 * Node's `format` (the package's knows %s %d %j only; loggers use %o, %i, %f).
 */
'use strict';
const npm = require('util/');
const host = require('./host.cjs');

const util = Object.assign({}, npm);
util.types = Object.assign({}, npm.types);
util.TextEncoder = host.TextEncoder;
util.TextDecoder = host.TextDecoder;
util.isDeepStrictEqual = function isDeepStrictEqual(a, b) {
  try {
    require('./assert.cjs').deepStrictEqual(a, b);
    return true;
  } catch {
    return false;
  }
};
util.stripVTControlCharacters = (s) => String(s).replace(/[\u001B\u009B][[\]()#;?]*(?:(?:(?:;[-a-zA-Z\d/#&.:=?%@~_]+)*|[a-zA-Z\d]+(?:;[-a-zA-Z\d/#&.:=?%@~_]*)*)?\u0007|(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PR-TZcf-ntqry=><~])/g, '');
util.toUSVString = (s) => String(s).toWellFormed();

/** Node's util.format: %s %d %i %f %j %o %O %c %%, then the rest joined by spaces (strings as they are, others inspected). */
function formatWithOptions(options, ...args) {
  const inspect = (v, extra) => npm.inspect(v, Object.assign({}, options, extra));
  const first = args[0];
  let a = 0;
  let out = '';
  if (typeof first === 'string') {
    a = 1;
    let last = 0;
    for (let i = 0; i < first.length - 1; i++) {
      if (first.charCodeAt(i) !== 37) continue;
      const c = first[i + 1];
      if (c === '%') {
        out += first.slice(last, i) + '%';
        last = i + 2;
        i++;
        continue;
      }
      if (a >= args.length || !'sdifjoOc'.includes(c)) continue;
      const v = args[a++];
      let text;
      if (c === 's') text = typeof v === 'string' ? v : typeof v === 'bigint' ? v + 'n' : typeof v === 'object' && v !== null ? inspect(v, { depth: 0 }) : String(v);
      else if (c === 'd') text = typeof v === 'bigint' ? v + 'n' : typeof v === 'symbol' ? 'NaN' : String(Number(v));
      else if (c === 'i') text = typeof v === 'bigint' ? v + 'n' : typeof v === 'symbol' ? 'NaN' : String(parseInt(v, 10));
      else if (c === 'f') text = typeof v === 'symbol' ? 'NaN' : String(parseFloat(v));
      else if (c === 'j') {
        try {
          text = JSON.stringify(v);
        } catch {
          text = '[Circular]';
        }
      } else if (c === 'o') text = inspect(v, { showHidden: true, depth: 4 });
      else if (c === 'O') text = inspect(v);
      else text = '';
      out += first.slice(last, i) + text;
      last = i + 2;
      i++;
    }
    out += first.slice(last);
  }
  for (; a < args.length; a++) {
    const v = args[a];
    out += (out === '' && a === 0 ? '' : ' ') + (typeof v === 'string' ? v : inspect(v));
  }
  return out;
}
util.format = (...args) => formatWithOptions({}, ...args);
util.formatWithOptions = formatWithOptions;
module.exports = util;
