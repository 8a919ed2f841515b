/**
 * How `aws-v1` (REST API) and `aws-v2` (payload format 2.0) results become
 * responses: AWS's rules, and 502 `invalid_result` where API Gateway answers
 * a malformed result with its own 502.
 */
import { describe, expect, it } from 'vitest';
import { mapAwsV1Result, mapAwsV2Result } from '../../src/gateway/aws-result.js';
import { mapResultFor } from '../../src/gateway/formats.js';

const bodyOf = (r: { body: string | Buffer | null }) => JSON.parse(r.body as string);

describe('mapAwsV1Result', () => {
  it('sends a string body as is, application/json unless the function says otherwise', () => {
    expect(mapAwsV1Result({ statusCode: 201, body: '{"id":1}' })).toEqual({
      status: 201,
      headers: { 'content-type': 'application/json' },
      body: '{"id":1}',
    });
    expect(mapAwsV1Result({ statusCode: 200, body: 'hi', headers: { 'Content-Type': 'text/html' } }).headers).toEqual({
      'content-type': 'text/html',
    });
  });

  it('merges multiValueHeaders over headers; repeated set-cookie values stay separate headers', () => {
    const r = mapAwsV1Result({
      statusCode: 200,
      body: 'x',
      headers: { 'X-One': 1, 'X-Both': 'from-headers', 'Content-Type': 'text/plain' },
      multiValueHeaders: { 'X-Both': ['a', 'b'], 'Set-Cookie': ['s=1; Path=/', 't=2'] },
    });
    expect(r.headers).toEqual({
      'x-one': '1',
      'x-both': 'a, b',
      'content-type': 'text/plain',
      'set-cookie': ['s=1; Path=/', 't=2'],
    });
  });

  it('decodes a base64 body with isBase64Encoded (a REST API with binary media types)', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]);
    const r = mapAwsV1Result({ statusCode: 200, isBase64Encoded: true, headers: { 'content-type': 'image/png' }, body: png.toString('base64') });
    expect(Buffer.isBuffer(r.body) && r.body.equals(png)).toBe(true);
    expect(r.headers['content-type']).toBe('image/png');
  });

  it('an absent or null body is an empty response; statusCode may be a string of digits', () => {
    expect(mapAwsV1Result({ statusCode: 204 })).toEqual({ status: 204, headers: {}, body: null });
    expect(mapAwsV1Result({ statusCode: '302', headers: { Location: '/x' }, body: null })).toEqual({
      status: 302,
      headers: { location: '/x' },
      body: null,
    });
  });

  it('ignores cookies, a 2.0 field', () => {
    expect(mapAwsV1Result({ statusCode: 200, body: '', cookies: ['a=1'] }).headers['set-cookie']).toBeUndefined();
  });

  it.each([
    ['no statusCode', { body: '{"a":1}' }, 'object without statusCode'],
    ['a plain object', { hello: 'world' }, 'object without statusCode'],
    ['undefined', undefined, 'returned undefined'],
    ['null', null, 'returned null'],
    ['a string', 'hello', 'returned a string'],
    ['an array', [1, 2], 'returned an array'],
    ['an object body', { statusCode: 200, body: { a: 1 } }, 'object body'],
    ['an array body', { statusCode: 200, body: [1] }, 'array body'],
    ['a number body', { statusCode: 200, body: 5 }, 'number body'],
    ['statusCode 700', { statusCode: 700, body: 'x' }, 'statusCode 700'],
    ['statusCode 200.5', { statusCode: 200.5, body: 'x' }, 'statusCode 200.5'],
    ['statusCode "ok"', { statusCode: 'ok', body: 'x' }, 'statusCode "ok"'],
  ])('%s -> 502 invalid_result saying why (API Gateway: "Malformed Lambda proxy response")', (_what, result, reason) => {
    const r = mapAwsV1Result(result, 'req_7');
    expect(r.status).toBe(502);
    expect(bodyOf(r)).toMatchObject({ code: 'invalid_result', requestId: 'req_7', error: expect.stringContaining(reason) });
    expect(r.invalid).toContain(reason);
  });
});

describe('mapAwsV2Result', () => {
  it.each([
    [{ message: 'hi' }, '{"message":"hi"}'],
    ['Hello, world!', '"Hello, world!"'],
    [[1, 'a'], '[1,"a"]'],
    [42, '42'],
    [null, 'null'],
    [undefined, 'null'],
    [{ body: 'x', headers: { a: 'b' } }, '{"body":"x","headers":{"a":"b"}}'],
  ])('%j without statusCode -> 200 application/json of the whole value (2.0 infers the response)', (value, text) => {
    expect(mapAwsV2Result(value)).toEqual({ status: 200, headers: { 'content-type': 'application/json' }, body: text });
  });

  it('turns each of cookies into its own set-cookie header, after any set-cookie in headers', () => {
    const r = mapAwsV2Result({
      statusCode: 201,
      headers: { 'Content-Type': 'application/json', 'Set-Cookie': 'first=0', 'My-Custom-Header': 'Custom Value' },
      body: '{"message":"Hello, world!"}',
      cookies: ['Cookie_1=Value1; Expires=21 Oct 2021 07:48 GMT', 'Cookie_2=Value2; Max-Age=78000'],
    });
    expect(r).toEqual({
      status: 201,
      headers: {
        'content-type': 'application/json',
        'my-custom-header': 'Custom Value',
        'set-cookie': ['first=0', 'Cookie_1=Value1; Expires=21 Oct 2021 07:48 GMT', 'Cookie_2=Value2; Max-Age=78000'],
      },
      body: '{"message":"Hello, world!"}',
    });
  });

  it('drops cookies that are not strings or hold control characters, instead of failing the response', () => {
    const r = mapAwsV2Result({ statusCode: 200, cookies: ['ok=1', 5, 'bad=1\r\nX-Evil: 1', null] });
    expect(r.headers['set-cookie']).toEqual(['ok=1']);
  });

  it('ignores multiValueHeaders, a 1.0 field', () => {
    expect(mapAwsV2Result({ statusCode: 200, multiValueHeaders: { 'X-A': ['1'] } }).headers).toEqual({});
  });

  it('a string body without a content type: application/json when it parses, else text/plain', () => {
    expect(mapAwsV2Result({ statusCode: 200, body: '{"a":1}' }).headers['content-type']).toBe('application/json');
    expect(mapAwsV2Result({ statusCode: 200, body: 'plain' }).headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('decodes a base64 body with isBase64Encoded', () => {
    const r = mapAwsV2Result({ statusCode: 200, isBase64Encoded: true, body: Buffer.from([0, 1, 255]).toString('base64') });
    expect(r.body).toEqual(Buffer.from([0, 1, 255]));
    expect(r.headers['content-type']).toBe('application/octet-stream');
  });

  it.each([
    ['an object body', { statusCode: 200, body: { a: 1 } }, 'object body'],
    ['statusCode 99', { statusCode: 99 }, 'statusCode 99'],
    ['statusCode null', { statusCode: null }, 'statusCode null'],
  ])('%s -> 502 invalid_result', (_what, result, reason) => {
    const r = mapAwsV2Result(result);
    expect(r.status).toBe(502);
    expect(bodyOf(r)).toMatchObject({ code: 'invalid_result', error: expect.stringContaining(reason) });
  });
});

describe('mapResultFor', () => {
  it('reads each result by its function format; switchyard as before', () => {
    const result = { statusCode: 200, body: { a: 1 } };
    expect(mapResultFor('switchyard', result).status).toBe(200);
    expect(mapResultFor('aws-v1', result).status).toBe(502);
    expect(mapResultFor('aws-v2', result).status).toBe(502);
    expect(mapResultFor('switchyard', undefined).status).toBe(204);
    expect(mapResultFor('aws-v2', undefined).status).toBe(200);
  });
});
