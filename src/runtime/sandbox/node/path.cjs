/**
 * `path` and `path/posix`: the npm `path-browserify` package, Node's POSIX
 * path module. A function has no working directory of its own: `resolve`
 * works from `/`.
 */
'use strict';
const npm = require('path-browserify');

const path = Object.assign({}, npm, {
  resolve(...segments) {
    return npm.resolve('/', ...segments);
  },
});
path.posix = path;
module.exports = path;
