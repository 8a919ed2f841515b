/** `assert` and `assert/strict`: the npm `assert` package, a port of Node's (deepStrictEqual, throws, rejects...). */
'use strict';
module.exports = require('assert/');
