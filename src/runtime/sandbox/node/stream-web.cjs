/**
 * `stream/web`: the sandbox's global web stream classes, each read when its
 * name is asked for, so the module sees whatever the sandbox defines.
 */
'use strict';
const WEB_NAMES = [
  'ReadableStream',
  'ReadableStreamDefaultReader',
  'ReadableStreamBYOBReader',
  'ReadableStreamBYOBRequest',
  'ReadableByteStreamController',
  'ReadableStreamDefaultController',
  'TransformStream',
  'TransformStreamDefaultController',
  'WritableStream',
  'WritableStreamDefaultWriter',
  'WritableStreamDefaultController',
  'ByteLengthQueuingStrategy',
  'CountQueuingStrategy',
  'TextEncoderStream',
  'TextDecoderStream',
  'CompressionStream',
  'DecompressionStream',
];

function web() {
  const out = {};
  for (const name of WEB_NAMES) {
    Object.defineProperty(out, name, { enumerable: true, get: () => globalThis[name] });
  }
  return out;
}

module.exports = web;
