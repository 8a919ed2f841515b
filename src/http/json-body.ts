/**
 * The only body parser of the Fastify routes, so any other content type is a
 * 415: Fastify's own JSON parser (with its `__proto__` / `constructor.prototype`
 * refusal), preceded by two checks on the raw bytes. Invalid UTF-8 is refused rather than silently turned into U+FFFD
 * and stored; nesting deeper than MAX_JSON_DEPTH is refused before parsing,
 * because JSON.stringify and every recursive walk after the parser (schema
 * validation, storage, templates) would overflow the stack on it and answer 500.
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { InvalidRequestError, jsonTooDeep } from '../errors.js';
import { jsonTextTooDeep } from '../json-limits.js';

export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Management bodies are JSON only: without Fastify's text/plain parser a body
  // of any other type is a 415 unsupported_media_type, not a string that fails
  // validation as a 400.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, function parseJsonBody(request, body, done) {
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) {
      done(new InvalidRequestError('Body is not valid UTF-8', { field: 'body' }), undefined);
      return;
    }
    const text = bytes.toString('utf8');
    if (jsonTextTooDeep(text)) {
      done(jsonTooDeep('body'), undefined);
      return;
    }
    parseJson(request, text, function parsed(err, value) {
      done(err ? explainJsonError(text) : null, value);
    });
  });
}

/**
 * Fastify's parser reports every refusal alike; say which one it was (only on
 * the error path, so the second parse costs nothing in the common case).
 */
function explainJsonError(text: string): Error {
  if (text.length === 0) return new InvalidRequestError('Body is empty: send a JSON object', { field: 'body' });
  try {
    JSON.parse(text);
  } catch (err) {
    return new InvalidRequestError(`Body is not valid JSON: ${(err as Error).message}`, { field: 'body' });
  }
  return new InvalidRequestError('Body must not contain a "__proto__" key or a "constructor" key holding "prototype"', {
    field: 'body',
  });
}
