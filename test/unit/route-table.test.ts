import { describe, expect, it } from 'vitest';
import { RouteTable, type MatchResult } from '../../src/gateway/route-table.js';
import { API_POLICY_DEFAULTS, type Api, type RouteMethod } from '../../src/types.js';

let seq = 0;
function table(basePath: string, routes: [RouteMethod, string][]): RouteTable {
  const api: Api = {
    id: 'api_test',
    name: 'test',
    basePath,
    routes: routes.map(([method, path]) => ({ id: `rt_${++seq}_${method}_${path}`, method, path, function: 'fn' })),
    cors: null,
    createdAt: '',
    updatedAt: '',
    minimumCompressionSize: null,
    binaryMediaTypes: null,
    ...API_POLICY_DEFAULTS,
  };
  return new RouteTable(api);
}

/** "METHOD template" of the winner, or the failure kind. */
function winner(r: MatchResult): string {
  if (r.kind === 'match') return `${r.route.method} ${r.resource}`;
  if (r.kind === 'method_not_allowed') return `405 ${r.allow.join(',')}`;
  return '404';
}

function params(r: MatchResult): Record<string, string> | null | undefined {
  return r.kind === 'match' ? r.pathParameters : undefined;
}

describe('RouteTable: the Users API example under /users', () => {
  const t = table('/users', [
    ['GET', '/'],
    ['POST', '/'],
    ['GET', '/:id'],
    ['DELETE', '/:id'],
  ]);

  it('matches the base path itself for route /', () => {
    expect(winner(t.match('GET', '/users'))).toBe('GET /users');
    expect(winner(t.match('POST', '/users'))).toBe('POST /users');
    expect(params(t.match('GET', '/users'))).toBeNull();
  });

  it('extracts :id', () => {
    const r = t.match('DELETE', '/users/42');
    expect(winner(r)).toBe('DELETE /users/:id');
    expect(params(r)).toEqual({ id: '42' });
    expect(r.kind === 'match' && r.route.function).toBe('fn');
  });

  it('ignores a trailing slash', () => {
    expect(winner(t.match('GET', '/users/'))).toBe('GET /users');
    expect(params(t.match('GET', '/users/42/'))).toEqual({ id: '42' });
  });

  it('404s outside the base path and on too-deep paths', () => {
    expect(t.match('GET', '/other')).toEqual({ kind: 'not_found' });
    expect(t.match('GET', '')).toEqual({ kind: 'not_found' });
    expect(t.match('GET', '/')).toEqual({ kind: 'not_found' });
    expect(t.match('GET', '/users/42/x')).toEqual({ kind: 'not_found' });
    expect(t.match('GET', '/usersx')).toEqual({ kind: 'not_found' });
  });

  it('405 with sorted Allow (HEAD added for GET) when the path matches but the method does not', () => {
    expect(t.match('PUT', '/users/42')).toEqual({ kind: 'method_not_allowed', allow: ['DELETE', 'GET', 'HEAD'] });
    expect(t.match('PATCH', '/users')).toEqual({ kind: 'method_not_allowed', allow: ['GET', 'HEAD', 'POST'] });
  });

  it('is case sensitive', () => {
    expect(winner(t.match('GET', '/Users'))).toBe('404');
  });

  it('a param never matches an empty segment', () => {
    expect(winner(t.match('GET', '/users//'))).toBe('404');
  });
});

describe('RouteTable: precedence', () => {
  it('static beats param beats wildcard at the same position', () => {
    const t = table('/', [
      ['GET', '/a/b'],
      ['GET', '/a/:x'],
      ['GET', '/a/*'],
    ]);
    expect(winner(t.match('GET', '/a/b'))).toBe('GET /a/b');
    expect(winner(t.match('GET', '/a/c'))).toBe('GET /a/:x');
    expect(params(t.match('GET', '/a/c'))).toEqual({ x: 'c' });
    expect(winner(t.match('GET', '/a/c/d'))).toBe('GET /a/*');
    expect(params(t.match('GET', '/a/c/d'))).toEqual({ '*': 'c/d' });
  });

  it('decides segment by segment: the earlier static segment wins', () => {
    const t = table('/', [
      ['GET', '/a/:x/c'],
      ['GET', '/a/b/:y'],
    ]);
    const r = t.match('GET', '/a/b/c');
    expect(winner(r)).toBe('GET /a/b/:y');
    expect(params(r)).toEqual({ y: 'c' });
    expect(params(t.match('GET', '/a/z/c'))).toEqual({ x: 'z' });
  });

  it('backtracks from a static branch that dead-ends', () => {
    const t = table('/', [
      ['GET', '/a/b/c'],
      ['GET', '/a/:x/d'],
      ['GET', '/:p/b/e'],
    ]);
    expect(winner(t.match('GET', '/a/b/d'))).toBe('GET /a/:x/d');
    expect(params(t.match('GET', '/a/b/d'))).toEqual({ x: 'b' });
    const r = t.match('GET', '/a/b/e');
    expect(winner(r)).toBe('GET /:p/b/e');
    expect(params(r)).toEqual({ p: 'a' });
  });

  it('filters by method before ranking paths', () => {
    const t = table('/', [
      ['GET', '/a/b'],
      ['POST', '/a/:x'],
    ]);
    expect(winner(t.match('POST', '/a/b'))).toBe('POST /a/:x');
    expect(winner(t.match('GET', '/a/b'))).toBe('GET /a/b');
    expect(winner(t.match('GET', '/a/c'))).toBe('405 POST');
  });

  it('keeps each route its own parameter names at a shared position', () => {
    const t = table('/', [
      ['GET', '/users/:id'],
      ['DELETE', '/users/:name'],
      ['GET', '/users/:userId/posts/:postId'],
    ]);
    expect(params(t.match('GET', '/users/1'))).toEqual({ id: '1' });
    expect(params(t.match('DELETE', '/users/1'))).toEqual({ name: '1' });
    expect(params(t.match('GET', '/users/1/posts/2'))).toEqual({ userId: '1', postId: '2' });
  });

  it('the first of two same-shape routes with the same method wins', () => {
    const t = table('/', [
      ['GET', '/x/:a'],
      ['GET', '/x/:b'],
    ]);
    expect(params(t.match('GET', '/x/1'))).toEqual({ a: '1' });
  });
});

describe('RouteTable: ANY and HEAD', () => {
  it('ANY accepts every method, and a specific method on the same path wins', () => {
    const t = table('/', [
      ['ANY', '/thing'],
      ['POST', '/thing'],
    ]);
    expect(winner(t.match('POST', '/thing'))).toBe('POST /thing');
    expect(winner(t.match('GET', '/thing'))).toBe('ANY /thing');
    expect(winner(t.match('PROPFIND', '/thing'))).toBe('ANY /thing');
  });

  it('ranks path specificity among all accepting routes, ANY included', () => {
    const t = table('/', [
      ['ANY', '/a/b'],
      ['GET', '/a/:x'],
    ]);
    // Both accept GET; /a/b is more specific.
    expect(winner(t.match('GET', '/a/b'))).toBe('ANY /a/b');
    expect(winner(t.match('GET', '/a/c'))).toBe('GET /a/:x');
    expect(winner(t.match('POST', '/a/c'))).toBe('405 GET,HEAD');
  });

  it('HEAD falls back to GET, but an explicit HEAD or ANY route comes first', () => {
    const onlyGet = table('/', [['GET', '/r']]);
    expect(winner(onlyGet.match('HEAD', '/r'))).toBe('GET /r');

    const withHead = table('/', [
      ['GET', '/r'],
      ['HEAD', '/r'],
    ]);
    expect(winner(withHead.match('HEAD', '/r'))).toBe('HEAD /r');

    const withAny = table('/', [
      ['GET', '/r'],
      ['ANY', '/r'],
    ]);
    expect(winner(withAny.match('HEAD', '/r'))).toBe('ANY /r');
    expect(winner(withAny.match('GET', '/r'))).toBe('GET /r');
  });

  it('HEAD resolves to the route a GET would, even if a less specific ANY exists', () => {
    const t = table('/', [
      ['GET', '/a/b'],
      ['ANY', '/a/:x'],
    ]);
    expect(winner(t.match('HEAD', '/a/b'))).toBe('GET /a/b');
  });

  it('405 Allow lists methods from every matching template, sorted and unique', () => {
    const t = table('/', [
      ['PUT', '/a/b'],
      ['POST', '/a/:x'],
      ['PUT', '/a/:x'],
      ['DELETE', '/a/*'],
      ['OPTIONS', '/z'],
    ]);
    expect(t.match('GET', '/a/b')).toEqual({ kind: 'method_not_allowed', allow: ['DELETE', 'POST', 'PUT'] });
    expect(t.match('HEAD', '/z')).toEqual({ kind: 'method_not_allowed', allow: ['OPTIONS'] });
  });
});

describe('RouteTable: wildcard', () => {
  const t = table('/', [['GET', '/files/*']]);

  it('matches an empty rest', () => {
    expect(params(t.match('GET', '/files'))).toEqual({ '*': '' });
    expect(params(t.match('GET', '/files/'))).toEqual({ '*': '' });
  });

  it('matches a deep rest, greedily, and decodes it', () => {
    const r = t.match('GET', '/files/a/b/c%20d.txt');
    expect(winner(r)).toBe('GET /files/*');
    expect(params(r)).toEqual({ '*': 'a/b/c d.txt' });
  });

  it('does not match a sibling prefix', () => {
    expect(winner(t.match('GET', '/filesx/a'))).toBe('404');
  });

  it('an exact route beats the empty wildcard', () => {
    const t2 = table('/', [
      ['GET', '/files/*'],
      ['GET', '/files'],
    ]);
    expect(winner(t2.match('GET', '/files'))).toBe('GET /files');
    expect(winner(t2.match('GET', '/files/x'))).toBe('GET /files/*');
  });

  it('a root wildcard catches everything, including the root', () => {
    const t3 = table('/', [
      ['ANY', '/*'],
      ['GET', '/health'],
    ]);
    expect(params(t3.match('GET', ''))).toEqual({ '*': '' });
    expect(params(t3.match('POST', '/health'))).toEqual({ '*': 'health' });
    expect(winner(t3.match('GET', '/health'))).toBe('GET /health');
    expect(params(t3.match('GET', '/x//y'))).toEqual({ '*': 'x//y' });
  });

  it('combines with params', () => {
    const t4 = table('/v1', [['GET', '/:bucket/*']]);
    const r = t4.match('GET', '/v1/photos/2024/a.png');
    expect(winner(r)).toBe('GET /v1/:bucket/*');
    expect(params(r)).toEqual({ bucket: 'photos', '*': '2024/a.png' });
  });
});

describe('RouteTable: base paths', () => {
  it('basePath / with route / serves the API root ("" or "/")', () => {
    const t = table('/', [
      ['GET', '/'],
      ['GET', '/x'],
    ]);
    expect(winner(t.match('GET', ''))).toBe('GET /');
    expect(winner(t.match('GET', '/'))).toBe('GET /');
    expect(winner(t.match('GET', '/x'))).toBe('GET /x');
  });

  it('nested basePath /v1/users', () => {
    const t = table('/v1/users', [
      ['GET', '/'],
      ['GET', '/:id'],
    ]);
    expect(winner(t.match('GET', '/v1/users'))).toBe('GET /v1/users');
    expect(params(t.match('GET', '/v1/users/7'))).toEqual({ id: '7' });
    expect(winner(t.match('GET', '/v1'))).toBe('404');
    expect(winner(t.match('GET', '/v2/users/7'))).toBe('404');
  });

  it('a path not starting with / matches nothing', () => {
    expect(winner(table('/', [['ANY', '/*']]).match('GET', 'x'))).toBe('404');
  });

  it('an empty API matches nothing', () => {
    expect(table('/', []).match('GET', '/')).toEqual({ kind: 'not_found' });
  });
});

describe('RouteTable: percent-encoding', () => {
  const t = table('/', [
    ['GET', '/users/:id'],
    ['GET', '/caf%C3%A9'],
  ]);

  it('decodes parameters, including an encoded slash, after splitting', () => {
    expect(params(t.match('GET', '/users/J%C3%BCrgen%20M'))).toEqual({ id: 'Jürgen M' });
    expect(params(t.match('GET', '/users/a%2Fb'))).toEqual({ id: 'a/b' });
  });

  it('keeps a malformed escape raw instead of throwing', () => {
    expect(params(t.match('GET', '/users/100%'))).toEqual({ id: '100%' });
    expect(params(t.match('GET', '/users/%E0%A4%A'))).toEqual({ id: '%E0%A4%A' });
  });

  it('compares static segments decoded, so any equivalent encoding matches', () => {
    expect(winner(t.match('GET', '/caf%C3%A9'))).toBe('GET /caf%C3%A9');
    expect(winner(t.match('GET', '/caf%c3%a9'))).toBe('GET /caf%C3%A9');
    expect(winner(t.match('GET', '/%75sers/1'))).toBe('GET /users/:id');
  });

  it('a parameter named __proto__ is an own property', () => {
    const p = params(table('/', [['GET', '/:__proto__']]).match('GET', '/x'));
    expect(Object.hasOwn(p!, '__proto__')).toBe(true);
    expect(JSON.parse(JSON.stringify(p))).toEqual(JSON.parse('{"__proto__":"x"}'));
  });
});

describe("RouteTable: API Gateway's {name} and {name+} spellings", () => {
  const aws = (r: MatchResult) => (r.kind === 'match' ? { resource: r.awsResource, greedy: r.awsGreedy } : undefined);

  it('{id} matches like :id, named id; resource as written, awsResource in AWS syntax', () => {
    const t = table('/shop', [['GET', '/items/{id}']]);
    const r = t.match('GET', '/shop/items/42');
    expect(winner(r)).toBe('GET /shop/items/{id}');
    expect(params(r)).toEqual({ id: '42' });
    expect(aws(r)).toEqual({ resource: '/shop/items/{id}', greedy: null });
  });

  it('{proxy+} matches like *: the rest in pathParameters.proxy and, as * has it, pathParameters["*"]', () => {
    const t = table('/', [['ANY', '/{proxy+}']]);
    const r = t.match('POST', '/hello/world');
    expect(winner(r)).toBe('ANY /{proxy+}');
    expect(params(r)).toEqual({ '*': 'hello/world', proxy: 'hello/world' });
    expect(aws(r)).toEqual({ resource: '/{proxy+}', greedy: 'proxy' });
    expect(params(t.match('GET', ''))).toEqual({ '*': '', proxy: '' });
  });

  it('a * route keeps only pathParameters["*"] and is {proxy+} to AWS; :id is {id}', () => {
    const t = table('/v1', [['GET', '/:bucket/*']]);
    const r = t.match('GET', '/v1/photos/2024/a.png');
    expect(params(r)).toEqual({ bucket: 'photos', '*': '2024/a.png' });
    expect(aws(r)).toEqual({ resource: '/v1/{bucket}/{proxy+}', greedy: 'proxy' });
  });

  it('{key+} names its greedy value key', () => {
    const t = table('/', [['GET', '/files/{key+}']]);
    const r = t.match('GET', '/files/a/b%20c.txt');
    expect(params(r)).toEqual({ '*': 'a/b c.txt', key: 'a/b c.txt' });
    expect(aws(r)).toEqual({ resource: '/files/{key+}', greedy: 'key' });
  });

  it('ranks them as their colon and star twins: static > {id} > {proxy+}', () => {
    const t = table('/', [
      ['GET', '/{proxy+}'],
      ['GET', '/items/{id}'],
      ['GET', '/items/new'],
    ]);
    expect(winner(t.match('GET', '/items/new'))).toBe('GET /items/new');
    expect(winner(t.match('GET', '/items/7'))).toBe('GET /items/{id}');
    expect(winner(t.match('GET', '/items/7/x'))).toBe('GET /{proxy+}');
    expect(t.match('DELETE', '/items/7')).toEqual({ kind: 'method_not_allowed', allow: ['GET', 'HEAD'] });
  });

  it('a static route has no path parameters in any spelling', () => {
    const r = table('/', [['GET', '/health']]).match('GET', '/health');
    expect(params(r)).toBeNull();
    expect(aws(r)).toEqual({ resource: '/health', greedy: null });
  });
});
