import { describe, expect, it } from 'vitest';
import { mapResult } from '../../src/gateway/result.js';

const JSON_CT = 'application/json; charset=utf-8';
const TEXT_CT = 'text/plain; charset=utf-8';

describe('mapResult: proxy results with statusCode', () => {
  it('object body -> JSON with the given status (the documented example)', () => {
    expect(mapResult({ statusCode: 201, body: { id: 'u1', name: 'Ann' } })).toEqual({
      status: 201,
      headers: { 'content-type': JSON_CT },
      body: '{"id":"u1","name":"Ann"}',
    });
  });

  it.each([
    [[1, 2], '[1,2]'],
    [7, '7'],
    [false, 'false'],
    [null, 'null'],
  ])('body %j -> JSON text', (value, text) => {
    expect(mapResult({ statusCode: 200, body: value })).toEqual({
      status: 200,
      headers: { 'content-type': JSON_CT },
      body: text,
    });
  });

  it('string body that parses as JSON -> sent as is, JSON content type', () => {
    expect(mapResult({ statusCode: 200, body: '{"a":1}' })).toEqual({
      status: 200,
      headers: { 'content-type': JSON_CT },
      body: '{"a":1}',
    });
    expect(mapResult({ statusCode: 200, body: ' 12 ' }).headers['content-type']).toBe(JSON_CT);
  });

  it('string body that is not JSON -> text/plain', () => {
    expect(mapResult({ statusCode: 200, body: 'hello' })).toEqual({
      status: 200,
      headers: { 'content-type': TEXT_CT },
      body: 'hello',
    });
    expect(mapResult({ statusCode: 200, body: '{broken' }).headers['content-type']).toBe(TEXT_CT);
    expect(mapResult({ statusCode: 200, body: '' }).headers['content-type']).toBe(TEXT_CT);
  });

  it('string body with a content type in headers (any case) -> that content type', () => {
    const r = mapResult({ statusCode: 200, body: '<h1>hi</h1>', headers: { 'Content-Type': 'text/html' } });
    expect(r).toEqual({ status: 200, headers: { 'content-type': 'text/html' }, body: '<h1>hi</h1>' });
    const j = mapResult({ statusCode: 200, body: { a: 1 }, headers: { 'CONTENT-TYPE': 'application/vnd.x+json' } });
    expect(j.headers).toEqual({ 'content-type': 'application/vnd.x+json' });
    expect(j.body).toBe('{"a":1}');
  });

  it('body undefined -> empty body, no invented content type', () => {
    expect(mapResult({ statusCode: 302, headers: { Location: '/next' } })).toEqual({
      status: 302,
      headers: { location: '/next' },
      body: null,
    });
  });

  it('204 and 304 never carry a body', () => {
    expect(mapResult({ statusCode: 204, body: { a: 1 } })).toEqual({ status: 204, headers: {}, body: null });
    expect(mapResult({ statusCode: 304, body: 'x' }).body).toBeNull();
  });

  it('isBase64Encoded with a string body -> decoded bytes, octet-stream unless a type is given', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff]);
    const r = mapResult({ statusCode: 200, body: png.toString('base64'), isBase64Encoded: true });
    expect(r.status).toBe(200);
    expect(r.headers).toEqual({ 'content-type': 'application/octet-stream' });
    expect(Buffer.isBuffer(r.body) && r.body.equals(png)).toBe(true);
    const typed = mapResult({
      statusCode: 200,
      body: png.toString('base64'),
      isBase64Encoded: true,
      headers: { 'content-type': 'image/png' },
    });
    expect(typed.headers['content-type']).toBe('image/png');
    expect(Buffer.isBuffer(typed.body)).toBe(true);
  });

  it.each([99, 600, 0, -1, 1000])('statusCode %d -> 502 invalid_result', (statusCode) => {
    const r = mapResult({ statusCode, body: 'x' });
    expect(r.status).toBe(502);
    expect(r.headers['content-type']).toBe(JSON_CT);
    const parsed = JSON.parse(r.body as string);
    expect(parsed.code).toBe('invalid_result');
    expect(parsed.error).toContain(String(statusCode));
  });

  it('invalid_result carries the requestId when given', () => {
    const r = mapResult({ statusCode: 42 }, 'req_1');
    expect(JSON.parse(r.body as string)).toMatchObject({ code: 'invalid_result', requestId: 'req_1' });
  });

  it('the edges 100 and 599 are accepted', () => {
    expect(mapResult({ statusCode: 599, body: 'x' }).status).toBe(599);
    expect(mapResult({ statusCode: 100 }).status).toBe(100);
  });

  it('a body that cannot be serialised -> 502 invalid_result, not a crash', () => {
    const r = mapResult({ statusCode: 200, body: { n: 10n } });
    expect(r.status).toBe(502);
    expect(JSON.parse(r.body as string).code).toBe('invalid_result');
  });
});

describe('mapResult: headers', () => {
  it('copies headers with lower-case names, stringifying numbers/booleans and joining arrays', () => {
    const r = mapResult({
      statusCode: 200,
      body: 'x',
      headers: { 'X-Count': 3, 'X-Flag': true, Vary: ['Accept', 'Origin'], 'X-Obj': { a: 1 }, 'X-Null': null },
    });
    expect(r.headers).toEqual({
      'x-count': '3',
      'x-flag': 'true',
      vary: 'Accept, Origin',
      'content-type': TEXT_CT,
    });
  });

  it('drops x-request-id and hop-by-hop headers', () => {
    const r = mapResult({
      statusCode: 200,
      body: 'x',
      headers: {
        'X-Request-Id': 'spoofed',
        Connection: 'close',
        'Transfer-Encoding': 'chunked',
        'Content-Length': '999',
        'Keep-Alive': 'timeout=5',
        Upgrade: 'websocket',
        'x-ok': 'yes',
      },
    });
    expect(r.headers).toEqual({ 'x-ok': 'yes', 'content-type': TEXT_CT });
  });

  it('drops headers node would refuse (bad name or CR/LF in value) instead of failing the response', () => {
    const r = mapResult({
      statusCode: 200,
      body: 'x',
      headers: { 'bad name': 'v', 'x-inject': 'a\r\nset-cookie: evil=1', 'x-good': 'g' },
    });
    expect(r.headers).toEqual({ 'x-good': 'g', 'content-type': TEXT_CT });
  });

  it('multiValueHeaders replace headers of the same name; set-cookie stays a list', () => {
    const r = mapResult({
      statusCode: 200,
      body: 'x',
      headers: { 'X-A': 'single', 'Set-Cookie': 'a=1' },
      multiValueHeaders: { 'x-a': ['m1', 'm2'], 'Set-Cookie': ['a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT', 'b=2'] },
    });
    expect(r.headers).toEqual({
      'x-a': 'm1, m2',
      'set-cookie': ['a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT', 'b=2'],
      'content-type': TEXT_CT,
    });
  });
});

describe('mapResult: results without an integer statusCode', () => {
  it('undefined -> 204 with no body', () => {
    expect(mapResult(undefined)).toEqual({ status: 204, headers: {}, body: null });
  });

  it.each([
    [{ hello: 'world' }, '{"hello":"world"}'],
    [[1, 'a'], '[1,"a"]'],
    ['text', '"text"'],
    [5, '5'],
    [true, 'true'],
    [null, 'null'],
    [{ statusCode: '200', body: 'x' }, '{"statusCode":"200","body":"x"}'],
    [{ statusCode: 200.5 }, '{"statusCode":200.5}'],
  ])('%j -> 200 with the whole value as JSON', (value, text) => {
    expect(mapResult(value)).toEqual({ status: 200, headers: { 'content-type': JSON_CT }, body: text });
  });
});
