/** `string_decoder`: the npm `string_decoder` package (Node's own, over the sandbox's Buffer). */
'use strict';
module.exports = require('string_decoder/');
