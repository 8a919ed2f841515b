/** `path` and `path/posix`: the npm `path-browserify` package, Node's POSIX path module. */
'use strict';
module.exports = require('path-browserify');
