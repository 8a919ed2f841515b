import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../src/errors.js';
import { buildEvent, defaultEvent, type RequestFacts } from '../../src/gateway/event.js';
import { MAX_JSON_DEPTH } from '../../src/json-limits.js';
import type { Route } from '../../src/types.js';

const route: Route = { id: 'rt_1', method: 'GET', path: '/:id', function: 'users' };
const match = { route, pathParameters: { id: '42' }, resource: '/users/:id' };

function facts(over: Partial<RequestFacts> = {}): RequestFacts {
  return {
    method: 'GET',
    path: '/users/42',
    rawQuery: '',
    rawHeaders: [],
    body: null,
    sourceIp: '10.0.0.9',
    requestId: 'req_abc',
    apiId: 'api_1',
    requestTimeEpoch: 1700000000000,
    ...over,
  };
}

function query(rawQuery: string) {
  const e = buildEvent(facts({ rawQuery }), match);
  return [e.queryStringParameters, e.multiValueQueryStringParameters];
}

function body(buf: Buffer | null, contentType?: string) {
  const rawHeaders = contentType === undefined ? [] : ['Content-Type', contentType];
  const e = buildEvent(facts({ method: 'POST', body: buf, rawHeaders }), match);
  return { body: e.body, isBase64Encoded: e.isBase64Encoded };
}

describe('buildEvent: shape', () => {
  it('has exactly the documented fields', () => {
    const e = buildEvent(facts(), match);
    expect(e).toEqual({
      httpMethod: 'GET',
      path: '/users/42',
      resource: '/users/:id',
      headers: {},
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: { id: '42' },
      body: null,
      isBase64Encoded: false,
      requestContext: {
        requestId: 'req_abc',
        apiId: 'api_1',
        routeId: 'rt_1',
        httpMethod: 'GET',
        path: '/api/invoke/fn/api_1/users/42',
        sourceIp: '10.0.0.9',
        requestTimeEpoch: 1700000000000,
      },
    });
  });

  it('passes null pathParameters through and turns an empty path into /', () => {
    const e = buildEvent(facts({ path: '' }), { route, pathParameters: null, resource: '/' });
    expect(e.pathParameters).toBeNull();
    expect(e.path).toBe('/');
    expect(e.resource).toBe('/');
  });

  it('survives a JSON round trip (what crosses into the isolate)', () => {
    const e = buildEvent(facts({ rawQuery: 'a=1', rawHeaders: ['X', 'y'] }), match);
    expect(JSON.parse(JSON.stringify(e))).toEqual(e);
  });
});

describe('buildEvent: headers', () => {
  it('lower-cases names, joins repeats with ", " and keeps every value in multiValueHeaders', () => {
    const e = buildEvent(
      facts({
        rawHeaders: ['Host', 'example.com', 'X-Webhook-Secret', 's3cret', 'Accept', 'text/html', 'accept', 'application/json'],
      }),
      match,
    );
    expect(e.headers).toEqual({ host: 'example.com', 'x-webhook-secret': 's3cret', accept: 'text/html, application/json' });
    expect(e.multiValueHeaders).toEqual({
      host: ['example.com'],
      'x-webhook-secret': ['s3cret'],
      accept: ['text/html', 'application/json'],
    });
  });

  it('stores header names that collide with Object.prototype as own values', () => {
    const e = buildEvent(facts({ rawHeaders: ['Constructor', 'a', '__proto__', 'b', '__proto__', 'c'] }), match);
    expect(e.headers.constructor).toBe('a');
    expect(e.multiValueHeaders.constructor).toEqual(['a']);
    expect(Object.hasOwn(e.headers, '__proto__')).toBe(true);
    expect(JSON.parse(JSON.stringify(e.headers))).toEqual(JSON.parse('{"constructor":"a","__proto__":"b, c"}'));
    expect(Object.getPrototypeOf(e.headers)).toBe(Object.prototype);
  });
});

describe('buildEvent: query string', () => {
  it('no query or an empty one -> null', () => {
    expect(query('')).toEqual([null, null]);
    expect(query('&')).toEqual([null, null]);
  });

  it('single values', () => {
    expect(query('page=2&limit=10')).toEqual([
      { page: '2', limit: '10' },
      { page: ['2'], limit: ['10'] },
    ]);
  });

  it('a repeated key: last value single, all values multi', () => {
    expect(query('tag=a&tag=b&x=1')).toEqual([
      { tag: 'b', x: '1' },
      { tag: ['a', 'b'], x: ['1'] },
    ]);
  });

  it("decodes '+' as space and percent-escapes, in keys and values", () => {
    expect(query('q=hello+world&na%6De=J%C3%BCrgen%20M&plus=1%2B1')).toEqual([
      { q: 'hello world', name: 'Jürgen M', plus: '1+1' },
      { q: ['hello world'], name: ['Jürgen M'], plus: ['1+1'] },
    ]);
  });

  it('keys without "=" get "", empty pairs are skipped, "=" inside values is kept', () => {
    expect(query('flag&&a=b=c&empty=')).toEqual([
      { flag: '', a: 'b=c', empty: '' },
      { flag: [''], a: ['b=c'], empty: [''] },
    ]);
  });

  it('a malformed escape does not throw', () => {
    const [single] = query('a=100%&b=%zz');
    expect(single).toEqual({ a: '100%', b: '%zz' });
  });
});

describe('buildEvent: body', () => {
  it('absent or empty -> null', () => {
    expect(body(null, 'application/json')).toEqual({ body: null, isBase64Encoded: false });
    expect(body(Buffer.alloc(0), 'text/plain')).toEqual({ body: null, isBase64Encoded: false });
  });

  it('JSON content types that parse -> the parsed value', () => {
    const value = { name: 'Ann', email: 'ann@example.com' };
    const buf = Buffer.from(JSON.stringify(value));
    expect(body(buf, 'application/json')).toEqual({ body: value, isBase64Encoded: false });
    expect(body(buf, 'application/json; charset=utf-8')).toEqual({ body: value, isBase64Encoded: false });
    expect(body(buf, 'Application/JSON')).toEqual({ body: value, isBase64Encoded: false });
    expect(body(buf, 'application/vnd.api+json')).toEqual({ body: value, isBase64Encoded: false });
    expect(body(Buffer.from('[1,2]'), 'application/json')).toEqual({ body: [1, 2], isBase64Encoded: false });
  });

  it('JSON content type that does not parse -> the raw string', () => {
    expect(body(Buffer.from('{"name":'), 'application/json')).toEqual({ body: '{"name":', isBase64Encoded: false });
  });

  it('text and other types stay strings, even when they look like JSON', () => {
    expect(body(Buffer.from('hi there'), 'text/plain')).toEqual({ body: 'hi there', isBase64Encoded: false });
    expect(body(Buffer.from('{"a":1}'), 'text/plain')).toEqual({ body: '{"a":1}', isBase64Encoded: false });
    expect(body(Buffer.from('a=1&b=2'), 'application/x-www-form-urlencoded')).toEqual({
      body: 'a=1&b=2',
      isBase64Encoded: false,
    });
    expect(body(Buffer.from('{"a":1}'), 'application/jsonp')).toEqual({ body: '{"a":1}', isBase64Encoded: false });
  });

  it('no content type is treated like text', () => {
    expect(body(Buffer.from('{"a":1}'))).toEqual({ body: '{"a":1}', isBase64Encoded: false });
    expect(body(Buffer.from('héllo'))).toEqual({ body: 'héllo', isBase64Encoded: false });
  });

  it('bytes that are not valid UTF-8 arrive base64, whatever the content type', () => {
    const bin = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]);
    expect(body(bin, 'image/jpeg')).toEqual({ body: bin.toString('base64'), isBase64Encoded: true });
    expect(body(bin, 'application/json')).toEqual({ body: bin.toString('base64'), isBase64Encoded: true });
    expect(body(bin)).toEqual({ body: '/9j/4AAQ', isBase64Encoded: true });
  });

  it('refuses JSON nested deeper than the bound with a 400 naming the limit; at the bound it parses', () => {
    const nested = (n: number) => Buffer.from('['.repeat(n) + ']'.repeat(n));
    let caught: unknown;
    try {
      body(nested(10_000), 'application/json');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidRequestError);
    expect((caught as InvalidRequestError).message).toContain(String(MAX_JSON_DEPTH));
    expect((caught as InvalidRequestError).details).toEqual({ field: 'body', max_depth: MAX_JSON_DEPTH });
    expect(() => body(nested(MAX_JSON_DEPTH + 1), 'application/json')).toThrow(InvalidRequestError);
    expect(body(nested(MAX_JSON_DEPTH), 'application/json').body).toBeInstanceOf(Array);
    // Not JSON by its type: the function gets the text and decides.
    expect(body(nested(10_000), 'text/plain').body).toBe(nested(10_000).toString());
  });
});

describe('defaultEvent', () => {
  const ids = { requestId: 'req_t', functionName: 'users' };

  it('fills every field for an empty event', () => {
    const e = defaultEvent(undefined, ids);
    expect(e).toMatchObject({
      httpMethod: 'POST',
      path: '/',
      resource: '/',
      headers: {},
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { requestId: 'req_t', apiId: null, routeId: null, httpMethod: 'POST', path: '/' },
    });
    expect(typeof e.requestContext.requestTimeEpoch).toBe('number');
    expect(typeof e.requestContext.sourceIp).toBe('string');
    expect(defaultEvent(null, ids).httpMethod).toBe('POST');
  });

  it('keeps what the user gave and derives the multi-value maps', () => {
    const e = defaultEvent(
      {
        httpMethod: 'GET',
        path: '/users/7',
        headers: { 'X-Webhook-Secret': 'abc' },
        queryStringParameters: { page: '2' },
        pathParameters: { id: '7' },
        body: { name: 'Ann' },
        custom: 1,
        requestContext: { sourceIp: '1.2.3.4', stage: 'test' },
      },
      ids,
    );
    expect(e.httpMethod).toBe('GET');
    expect(e.path).toBe('/users/7');
    expect(e.headers).toEqual({ 'x-webhook-secret': 'abc' });
    expect(e.multiValueHeaders).toEqual({ 'x-webhook-secret': ['abc'] });
    expect(e.queryStringParameters).toEqual({ page: '2' });
    expect(e.multiValueQueryStringParameters).toEqual({ page: ['2'] });
    expect(e.pathParameters).toEqual({ id: '7' });
    expect(e.body).toEqual({ name: 'Ann' });
    expect((e as unknown as { custom: number }).custom).toBe(1);
    expect(e.requestContext).toMatchObject({ sourceIp: '1.2.3.4', stage: 'test', requestId: 'req_t', httpMethod: 'GET' });
  });

  it('keeps a string body and isBase64Encoded as given', () => {
    const e = defaultEvent({ body: 'aGk=', isBase64Encoded: true }, ids);
    expect(e.body).toBe('aGk=');
    expect(e.isBase64Encoded).toBe(true);
  });

  it('refuses a non-object event with a 400-class error', () => {
    for (const bad of [[1, 2], 'x', 3]) {
      expect(() => defaultEvent(bad, ids)).toThrow(InvalidRequestError);
    }
  });
});
