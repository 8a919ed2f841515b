import { describe, expect, it } from 'vitest';
import {
  awsTemplate,
  joinPath,
  pathShape,
  safeDecode,
  validateBasePath,
  validateRoutePath,
} from '../../src/gateway/paths.js';

describe('validateBasePath', () => {
  it('accepts the root, static segments, unreserved characters and percent-escapes', () => {
    for (const p of ['/', '/users', '/v1/users', '/a-b.c_d~e', '/caf%C3%A9', '/A9']) {
      expect(validateBasePath(p), p).toBeNull();
    }
  });

  it.each([
    ['users', 'basePath must start with /'],
    ['', 'basePath must start with /'],
    ['/users/', 'basePath must not end with / (except the root /)'],
    ['/a//b', 'basePath must not contain empty segments (//)'],
    ['/users/:id', "basePath segments must be static: ':id' found"],
    ['/files/*', "basePath segments must be static: '*' found"],
    ['/items/{id}', "basePath segments must be static: '{id}' found"],
    ['/{proxy+}', "basePath segments must be static: '{proxy+}' found"],
    ['/a*b', "basePath segments must be static: 'a*b' found"],
    ['/a b', "basePath segment 'a b' may only contain letters, digits, '-', '.', '_', '~' and percent-escapes (%XX)"],
    ['/a?b', "basePath segment 'a?b' may only contain letters, digits, '-', '.', '_', '~' and percent-escapes (%XX)"],
    ['/%zz', "basePath segment '%zz' may only contain letters, digits, '-', '.', '_', '~' and percent-escapes (%XX)"],
    ['/%FF', "basePath segment '%FF' contains a percent-escape that is not valid UTF-8"],
    ['/a/..', "basePath must not contain '.' or '..' segments"],
    ['/./a', "basePath must not contain '.' or '..' segments"],
    ['/a/%2e%2e', "basePath must not contain '.' or '..' segments, percent-encoded ('%2e%2e') or not"],
    ['/.%2E/a', "basePath must not contain '.' or '..' segments, percent-encoded ('.%2E') or not"],
    ['/%2E', "basePath must not contain '.' or '..' segments, percent-encoded ('%2E') or not"],
  ])('rejects %j', (p, message) => {
    expect(validateBasePath(p)).toBe(message);
  });

  it('rejects a non-string without throwing', () => {
    expect(validateBasePath(42 as unknown as string)).toBe('basePath must be a string');
  });
});

describe('validateRoutePath', () => {
  it('accepts static, params, a final wildcard and the root', () => {
    for (const p of ['/', '/:id', '/users/:id/posts/:postId', '/files/*', '/*', '/:bucket/*', '/:_x9']) {
      expect(validateRoutePath(p), p).toBeNull();
    }
  });

  it.each([
    ['users', 'path must start with /'],
    ['/users/', 'path must not end with / (except the root /)'],
    ['//', 'path must not end with / (except the root /)'],
    ['/a//b', 'path must not contain empty segments (//)'],
    ['/*/x', "path wildcard '*' is only allowed as the last segment"],
    ['/a*', "path segment 'a*' is invalid: '*' must be a whole, final segment"],
    ['/:', "path parameter ':' must be ':' followed by a name matching [A-Za-z_][A-Za-z0-9_]*"],
    ['/:1id', "path parameter ':1id' must be ':' followed by a name matching [A-Za-z_][A-Za-z0-9_]*"],
    ['/:id-x', "path parameter ':id-x' must be ':' followed by a name matching [A-Za-z_][A-Za-z0-9_]*"],
    ['/:id/x/:id', "path parameter ':id' appears more than once"],
    ['/a:b', "path segment 'a:b' may only contain letters, digits, '-', '.', '_', '~' and percent-escapes (%XX)"],
    ['/..', "path must not contain '.' or '..' segments"],
    ['/%2e%2e', "path must not contain '.' or '..' segments, percent-encoded ('%2e%2e') or not"],
    ['/x/%2E./:id', "path must not contain '.' or '..' segments, percent-encoded ('%2E.') or not"],
    ['/%2e/*', "path must not contain '.' or '..' segments, percent-encoded ('%2e') or not"],
  ])('rejects %j', (p, message) => {
    expect(validateRoutePath(p)).toBe(message);
  });
});

describe("validateRoutePath: API Gateway's {name} and {name+} spellings", () => {
  it('accepts them as serverless.yml and SAM templates write them', () => {
    for (const p of [
      '/items/{id}',
      '/{proxy+}',
      '/files/{key+}',
      '/produce/{produce-category}/{product_type}',
      '/v1/{a.b}/:c/{rest+}',
    ]) {
      expect(validateRoutePath(p), p).toBeNull();
    }
  });

  const NAME_RULE = "must be '{name}' or a final '{name+}', the name made of letters, digits, '.', '_' and '-'";
  it.each([
    ['/{}', `path parameter '{}' ${NAME_RULE}`],
    ['/{+}', `path parameter '{+}' ${NAME_RULE}`],
    ['/{a b}', `path parameter '{a b}' ${NAME_RULE}`],
    ['/{id', `path parameter '{id' ${NAME_RULE}`],
    ['/{a+b}', `path parameter '{a+b}' ${NAME_RULE}`],
    ['/{proxy+}/x', "path parameter '{proxy+}' is greedy and only allowed as the last segment"],
    ['/x{id}', "path segment 'x{id}' may only contain letters, digits, '-', '.', '_', '~' and percent-escapes (%XX)"],
    ['/:id/{id}', "path parameter '{id}' appears more than once"],
    ['/{id}/x/:id', "path parameter ':id' appears more than once"],
    ['/{key}/{key+}', "path parameter '{key+}' appears more than once"],
  ])('rejects %j', (p, message) => {
    expect(validateRoutePath(p)).toBe(message);
  });
});

describe('joinPath', () => {
  it.each([
    ['/users', '/', '/users'],
    ['/users', '/:id', '/users/:id'],
    ['/', '/x', '/x'],
    ['/', '/', '/'],
    ['/v1/users', '/*', '/v1/users/*'],
  ])('%s + %s = %s', (base, route, joined) => {
    expect(joinPath(base, route)).toBe(joined);
  });
});

describe('pathShape and safeDecode', () => {
  it('treats differently named params as the same shape', () => {
    expect(pathShape('/users/:id')).toBe(pathShape('/users/:name'));
    expect(pathShape('/users/:id')).not.toBe(pathShape('/users/me'));
    expect(pathShape('/files/*')).toBe('/files/*');
  });

  it("gives API Gateway's spellings the shape of ours: {id} is :id, {proxy+} and {key+} are *", () => {
    expect(pathShape('/items/{id}')).toBe(pathShape('/items/:id'));
    expect(pathShape('/{proxy+}')).toBe(pathShape('/*'));
    expect(pathShape('/files/{key+}')).toBe('/files/*');
    expect(pathShape('/a/{x}/b/{rest+}')).toBe(pathShape('/a/:y/b/*'));
    expect(pathShape('/items/{id}')).not.toBe(pathShape('/items/*'));
  });

  it("awsTemplate writes a template in API Gateway's syntax", () => {
    expect(awsTemplate('/users/:id')).toBe('/users/{id}');
    expect(awsTemplate('/*')).toBe('/{proxy+}');
    expect(awsTemplate('/v1/:bucket/*')).toBe('/v1/{bucket}/{proxy+}');
    expect(awsTemplate('/items/{id}/{key+}')).toBe('/items/{id}/{key+}');
    expect(awsTemplate('/static/path')).toBe('/static/path');
  });

  it('decodes good escapes and keeps bad ones raw', () => {
    expect(safeDecode('a%20b')).toBe('a b');
    expect(safeDecode('100%')).toBe('100%');
    expect(safeDecode('plain')).toBe('plain');
  });
});
