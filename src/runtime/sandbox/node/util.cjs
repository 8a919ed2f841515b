/**
 * `util`: the npm `util` package (format, inspect, promisify, callbackify,
 * inherits, deprecate, types) plus what it lacks and Node has: TextEncoder,
 * TextDecoder, isDeepStrictEqual, stripVTControlCharacters, toUSVString.
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
module.exports = util;
