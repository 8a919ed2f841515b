/**
 * `stream` and `stream/promises`: the npm `readable-stream` package (Node's
 * own streams, published from Node's source). `require('stream')` is the
 * legacy Stream class with Readable, Writable, Duplex, Transform,
 * PassThrough, pipeline, finished and `promises` on it, as in Node.
 */
'use strict';
module.exports = require('readable-stream/lib/stream.js');
