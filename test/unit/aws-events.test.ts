/**
 * The `aws-v1` and `aws-v2` events, built for fixed requests and compared
 * field by field with the sample events AWS publishes (test/fixtures/aws/).
 * Each golden test sends the request the sample describes and lists, with the
 * reason, every field where Switchyard's event differs from the sample: a
 * value the sample's deployment had and Switchyard has not (stage, stage
 * variables, an authorizer), a synthetic value (docs/functions.md lists them),
 * or a quirk of the published page. Every other field, in either direction,
 * must be equal: a field missing from ours or one the sample does not have
 * fails the test.
 */
import { describe, expect, it } from 'vitest';
import { buildAwsV1Event, defaultAwsV1Event } from '../../src/gateway/aws-event-v1.js';
import { buildAwsV2Event, defaultAwsV2Event } from '../../src/gateway/aws-event-v2.js';
import { awsDomain, awsRequestTime } from '../../src/gateway/aws-event-common.js';
import type { RequestFacts } from '../../src/gateway/event.js';
import { RouteTable, type RouteMatch } from '../../src/gateway/route-table.js';
import { InvalidRequestError } from '../../src/errors.js';
import { API_POLICY_DEFAULTS, type RouteMethod } from '../../src/types.js';
import { FUNCTION_URL_V2_INPUT } from '../fixtures/aws/function-url-v2-input.js';
import { HTTP_API_V1_INPUT } from '../fixtures/aws/http-api-v1-input.js';
import { HTTP_API_V2_INPUT } from '../fixtures/aws/http-api-v2-input.js';
import { REST_PROXY_INPUT } from '../fixtures/aws/rest-proxy-input.js';

/** The sample has this field and Switchyard's event has not. */
const ABSENT = Symbol('absent');
type Differences = Record<string, unknown>;

/** Every leaf of a JSON value by its dotted path; arrays, null and empty objects are leaves. */
function leaves(value: unknown, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) leaves(v, prefix === '' ? k : `${prefix}.${k}`, out);
  } else {
    out.set(prefix, value);
  }
  return out;
}

function at(value: unknown, path: string): unknown {
  let cur: unknown = value;
  for (const key of path.split('.')) {
    if (typeof cur !== 'object' || cur === null || !Object.hasOwn(cur, key)) return ABSENT;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/**
 * Ours equals the sample except at the listed paths, where ours holds the
 * listed value (ABSENT: not there). A path may name a whole subtree.
 */
function expectSampleWithDifferences(ours: unknown, sample: unknown, differences: Differences): void {
  // Through JSON, as the function receives it: an undefined field is no field.
  const received = JSON.parse(JSON.stringify(ours)) as unknown;
  const listed = (path: string) => Object.keys(differences).some((d) => path === d || path.startsWith(d + '.'));
  const problems: string[] = [];
  const ourLeaves = leaves(received);
  for (const [path, value] of leaves(sample)) {
    if (listed(path)) continue;
    if (!ourLeaves.has(path)) problems.push(`${path}: missing (the sample has ${JSON.stringify(value)})`);
    else if (JSON.stringify(ourLeaves.get(path)) !== JSON.stringify(value)) {
      problems.push(`${path}: ${JSON.stringify(ourLeaves.get(path))}, the sample has ${JSON.stringify(value)}`);
    }
  }
  for (const path of ourLeaves.keys()) {
    if (!listed(path) && !leaves(sample).has(path)) problems.push(`${path}: not in the sample and not listed`);
  }
  for (const [path, expected] of Object.entries(differences)) {
    const actual = at(received, path);
    if (JSON.stringify(actual) !== JSON.stringify(expected) || (expected === ABSENT) !== (actual === ABSENT)) {
      problems.push(`${path}: ${actual === ABSENT ? 'absent' : JSON.stringify(actual)}, listed as ${expected === ABSENT ? 'absent' : JSON.stringify(expected)}`);
    }
  }
  expect(problems).toEqual([]);
}

function matchOf(basePath: string, method: RouteMethod, path: string, routeId: string, requestMethod: string, requestPath: string): RouteMatch {
  const table = new RouteTable({
    id: 'api_x',
    name: 'x',
    basePath,
    routes: [{ id: routeId, method, path, function: 'fn' }],
    cors: null,
    createdAt: '',
    updatedAt: '',
    minimumCompressionSize: null,
    binaryMediaTypes: null,
    ...API_POLICY_DEFAULTS,
  });
  const m = table.match(requestMethod, requestPath);
  if (m.kind !== 'match') throw new Error(`${requestMethod} ${requestPath} does not match ${method} ${path}`);
  return m;
}

function facts(over: Partial<RequestFacts>): RequestFacts {
  return {
    method: 'GET',
    path: '/',
    rawQuery: '',
    rawHeaders: [],
    body: null,
    sourceIp: '127.0.0.1',
    requestId: 'req_1',
    apiId: 'api_x',
    requestTimeEpoch: Date.UTC(2026, 0, 2, 3, 4, 5),
    httpVersion: '1.1',
    localPort: 3000,
    ...over,
  };
}

/** [name, value, name, value, ...] from an object, in its order. */
function raw(headers: Record<string, string>): string[] {
  return Object.entries(headers).flat();
}

describe('aws-v1 against the published REST proxy sample', () => {
  it('equals it field by field, except where listed', () => {
    const { 'X-Forwarded-For': _xff, ...sent } = REST_PROXY_INPUT.headers;
    const epoch = Date.UTC(2016, 8, 13, 15, 40, 11, 123);
    const event = buildAwsV1Event(
      facts({
        method: 'POST',
        path: '/hello/world',
        rawQuery: 'name=me&multivalueName=you&multivalueName=me',
        // The CloudFront edge's request: it sent X-Forwarded-For with the client's address.
        rawHeaders: [...raw(sent), 'X-Forwarded-For', '54.240.196.186'],
        body: Buffer.from('{\r\n\t"a": 1\r\n}'),
        sourceIp: '54.182.214.83',
        requestId: REST_PROXY_INPUT.requestContext.requestId,
        apiId: REST_PROXY_INPUT.requestContext.apiId,
        requestTimeEpoch: epoch,
      }),
      matchOf('/', 'ANY', '/{proxy+}', 'roq9wj', 'POST', '/hello/world'),
    );
    expectSampleWithDifferences(event, REST_PROXY_INPUT, {
      // The page's artefact: a header with an empty name, which the request does not send.
      'multiValueHeaders.': ABSENT,
      // Switchyard has no stages or stage variables.
      stageVariables: null,
      'requestContext.stage': '$default',
      // Synthetic (the page's is one digit short of an account id).
      'requestContext.accountId': '123456789012',
      // The page anonymised it differently from X-Forwarded-For; the caller here is the edge that connected.
      'requestContext.identity.sourceIp': '54.182.214.83',
      // Fields REST events carry today that this older sample predates (the page's own
      // AWS_IAM example shows path, protocol and requestTime; see also HTTP_API_V1_INPUT).
      'requestContext.path': '/api/invoke/fn/gy415nuibc/hello/world',
      'requestContext.protocol': 'HTTP/1.1',
      'requestContext.requestTime': '13/Sep/2016:15:40:11 +0000',
      'requestContext.requestTimeEpoch': epoch,
      'requestContext.domainName': 'gy415nuibc.execute-api.us-east-1.amazonaws.com',
      'requestContext.domainPrefix': 'gy415nuibc',
      'requestContext.extendedRequestId': REST_PROXY_INPUT.requestContext.requestId,
      'requestContext.identity.accessKey': null,
      'requestContext.identity.apiKeyId': null,
      'requestContext.identity.clientCert': null,
      'requestContext.identity.principalOrgId': null,
    });
  });
});

describe('aws-v1 against the published payload format 1.0 sample', () => {
  it('equals it field by field, except where listed', () => {
    const s = HTTP_API_V1_INPUT;
    const event = buildAwsV1Event(
      facts({
        method: 'GET',
        path: '/my/path',
        rawQuery: 'parameter1=value1&parameter1=value2&parameter2=value',
        rawHeaders: [
          'Header1', 'value1', 'Header2', 'value1', 'Header2', 'value2',
          'Host', 'id.execute-api.us-east-1.amazonaws.com', 'User-Agent', 'user-agent',
        ],
        body: Buffer.from('Hello from Lambda!'),
        sourceIp: '198.51.100.7',
        requestId: s.requestContext.requestId,
        apiId: s.requestContext.apiId,
        requestTimeEpoch: s.requestContext.requestTimeEpoch,
        localPort: 443,
      }),
      matchOf('/', 'GET', '/my/path', 'rt_mypath', 'GET', '/my/path'),
    );
    expectSampleWithDifferences(event, s, {
      // HTTP API additions that REST events do not carry; no authorizer here.
      version: ABSENT,
      'requestContext.authorizer': ABSENT,
      // REST gives a repeated query key's last value, as its own sample above does (this one shows the first).
      'queryStringParameters.parameter1': 'value2',
      // The sample leaves out the Host and User-Agent its request must have sent, and what API Gateway adds.
      'headers.Host': 'id.execute-api.us-east-1.amazonaws.com',
      'headers.User-Agent': 'user-agent',
      'headers.X-Forwarded-For': '198.51.100.7',
      'headers.X-Forwarded-Port': '443',
      'headers.X-Forwarded-Proto': 'http',
      'multiValueHeaders.Host': ['id.execute-api.us-east-1.amazonaws.com'],
      'multiValueHeaders.User-Agent': ['user-agent'],
      'multiValueHeaders.X-Forwarded-For': ['198.51.100.7'],
      'multiValueHeaders.X-Forwarded-Port': ['443'],
      'multiValueHeaders.X-Forwarded-Proto': ['http'],
      // Synthetic: the request id, the route id, and the prefix the function is reached under.
      'requestContext.extendedRequestId': 'id=',
      'requestContext.resourceId': 'rt_mypath',
      'requestContext.path': '/api/invoke/fn/id/my/path',
      'requestContext.identity.sourceIp': '198.51.100.7',
      // No client certificates (no mutual TLS); REST's identity also has apiKey and apiKeyId.
      'requestContext.identity.clientCert': null,
      'requestContext.identity.apiKey': null,
      'requestContext.identity.apiKeyId': null,
    });
  });
});

describe('aws-v2 against the published payload format 2.0 sample (HTTP API)', () => {
  it('equals it field by field, except where listed', () => {
    const s = HTTP_API_V2_INPUT;
    const event = buildAwsV2Event(
      facts({
        method: 'POST',
        path: '/my/path',
        rawQuery: s.rawQueryString,
        rawHeaders: [
          'Header1', 'value1', 'Header2', 'value1', 'Header2', 'value2', 'Cookie', 'cookie1; cookie2',
          'Host', 'id.execute-api.us-east-1.amazonaws.com', 'User-Agent', 'agent',
        ],
        body: Buffer.from('Hello from Lambda'),
        sourceIp: '198.51.100.7',
        requestId: s.requestContext.requestId,
        apiId: s.requestContext.apiId,
        requestTimeEpoch: s.requestContext.timeEpoch,
        localPort: 443,
      }),
      matchOf('/', 'POST', '/my/{parameter1}', 'rt_x', 'POST', '/my/path'),
    );
    expectSampleWithDifferences(event, s, {
      // 2.0 lower-cases header names (the page's capitals are its own; the function URL page has them
      // lower-case); the request's Host and User-Agent, and what API Gateway adds, are there too.
      headers: {
        header1: 'value1',
        header2: 'value1,value2',
        host: 'id.execute-api.us-east-1.amazonaws.com',
        'user-agent': 'agent',
        'x-forwarded-for': '198.51.100.7',
        'x-forwarded-port': '443',
        'x-forwarded-proto': 'http',
      },
      // A route, not the $default catch-all: its key, and the page's own parameter value.
      routeKey: 'POST /my/{parameter1}',
      'requestContext.routeKey': 'POST /my/{parameter1}',
      pathParameters: { parameter1: 'path' },
      // No authentication, no authorizer, no stage variables.
      'requestContext.authentication': ABSENT,
      'requestContext.authorizer': ABSENT,
      stageVariables: ABSENT,
      'requestContext.http.sourceIp': '198.51.100.7',
      // The page's `time` is a week after its `timeEpoch`; ours is the epoch's.
      'requestContext.time': '04/Mar/2020:19:03:58 +0000',
    });
  });
});

describe('aws-v2 against the published function URL request payload', () => {
  it('equals it field by field, except where listed', () => {
    const s = FUNCTION_URL_V2_INPUT;
    const event = buildAwsV2Event(
      facts({
        method: 'POST',
        path: '/my/path',
        rawQuery: s.rawQueryString,
        rawHeaders: [
          'header1', 'value1', 'header2', 'value1', 'header2', 'value2', 'cookie', 'cookie1', 'cookie', 'cookie2',
          'host', '<url-id>.lambda-url.us-west-2.on.aws', 'user-agent', 'agent',
        ],
        body: Buffer.from('Hello from client!'),
        sourceIp: '::ffff:123.123.123.123',
        requestId: s.requestContext.requestId,
        apiId: s.requestContext.apiId,
        requestTimeEpoch: s.requestContext.timeEpoch,
        localPort: 443,
      }),
      matchOf('/', 'ANY', '/{proxy+}', 'rt_x', 'POST', '/my/path'),
    );
    expectSampleWithDifferences(event, s, {
      'headers.host': '<url-id>.lambda-url.us-west-2.on.aws',
      'headers.user-agent': 'agent',
      'headers.x-forwarded-for': '123.123.123.123',
      'headers.x-forwarded-port': '443',
      'headers.x-forwarded-proto': 'http',
      routeKey: 'ANY /{proxy+}',
      'requestContext.routeKey': 'ANY /{proxy+}',
      // A route with a greedy parameter: the page's function URL has none (null, "or excludes this").
      pathParameters: { proxy: 'my/path' },
      'requestContext.authentication': ABSENT,
      'requestContext.authorizer': ABSENT,
      stageVariables: ABSENT,
      'requestContext.time': '04/Mar/2020:19:03:58 +0000',
    });
  });
});

describe('buildAwsV1Event', () => {
  const match = matchOf('/users', 'GET', '/:id', 'rt_1', 'GET', '/users/42');

  it('keeps header names as sent; a repeated header (any case) gives its last value under its first spelling', () => {
    const e = buildAwsV1Event(
      facts({ rawHeaders: ['X-Trace', 'a', 'Accept', 'text/html', 'x-trace', 'b', 'Content-Type', 'text/plain'] }),
      match,
    );
    expect(e.headers).toMatchObject({ 'X-Trace': 'b', Accept: 'text/html', 'Content-Type': 'text/plain' });
    expect(e.multiValueHeaders).toMatchObject({ 'X-Trace': ['a', 'b'], Accept: ['text/html'] });
    expect(e.headers['x-trace']).toBeUndefined();
  });

  it('adds X-Forwarded-For/-Port/-Proto, appending the caller to a given X-Forwarded-For and keeping a given proto and port', () => {
    const plain = buildAwsV1Event(facts({ sourceIp: '::ffff:10.0.0.9', localPort: 8080 }), match);
    expect(plain.headers).toEqual({ 'X-Forwarded-For': '10.0.0.9', 'X-Forwarded-Port': '8080', 'X-Forwarded-Proto': 'http' });
    expect(plain.requestContext.identity.sourceIp).toBe('10.0.0.9');
    const proxied = buildAwsV1Event(
      facts({
        rawHeaders: ['x-forwarded-for', '203.0.113.5', 'X-Forwarded-Proto', 'https', 'X-Forwarded-Port', '443'],
        sourceIp: '127.0.0.1',
      }),
      match,
    );
    expect(proxied.headers).toEqual({
      'x-forwarded-for': '203.0.113.5, 127.0.0.1',
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Port': '443',
    });
    expect(proxied.multiValueHeaders['x-forwarded-for']).toEqual(['203.0.113.5, 127.0.0.1']);
  });

  it('null query maps, path parameters by name, resource and resourcePath in {id} syntax', () => {
    const e = buildAwsV1Event(facts({ path: '/users/42' }), match);
    expect(e.queryStringParameters).toBeNull();
    expect(e.multiValueQueryStringParameters).toBeNull();
    expect(e.pathParameters).toEqual({ id: '42' });
    expect(e.resource).toBe('/users/{id}');
    expect(e.requestContext.resourcePath).toBe('/users/{id}');
    expect(e.requestContext.resourceId).toBe('rt_1');
    expect(e.stageVariables).toBeNull();
  });

  it('a * route gives its rest in pathParameters.proxy (no "*") and reads {proxy+}', () => {
    const star = matchOf('/', 'GET', '/files/*', 'rt_f', 'GET', '/files/a/b%20c.txt');
    const e = buildAwsV1Event(facts({ path: '/files/a/b%20c.txt' }), star);
    expect(e.pathParameters).toEqual({ proxy: 'a/b c.txt' });
    expect(e.resource).toBe('/files/{proxy+}');
    expect(e.path).toBe('/files/a/b%20c.txt');
  });

  it('the body is always a string: JSON is not parsed, empty is null, non-UTF-8 is base64', () => {
    const json = buildAwsV1Event(facts({ rawHeaders: ['Content-Type', 'application/json'], body: Buffer.from('{"a":1}') }), match);
    expect(json.body).toBe('{"a":1}');
    expect(json.isBase64Encoded).toBe(false);
    expect(buildAwsV1Event(facts({ body: null }), match).body).toBeNull();
    expect(buildAwsV1Event(facts({ body: Buffer.alloc(0) }), match).body).toBeNull();
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00]);
    const bin = buildAwsV1Event(facts({ body: bytes }), match);
    expect(bin).toMatchObject({ body: bytes.toString('base64'), isBase64Encoded: true });
  });

  it('identity is all null but sourceIp and userAgent; the protocol follows the request', () => {
    const e = buildAwsV1Event(facts({ httpVersion: '1.0' }), match);
    expect(e.requestContext.protocol).toBe('HTTP/1.0');
    const { sourceIp, userAgent, ...rest } = e.requestContext.identity;
    expect([sourceIp, userAgent]).toEqual(['127.0.0.1', null]);
    expect(Object.values(rest).every((v) => v === null)).toBe(true);
  });

  it('a header named __proto__ is an ordinary key', () => {
    const e = buildAwsV1Event(facts({ rawHeaders: ['__proto__', 'x', 'constructor', 'y'] }), match);
    expect(Object.hasOwn(e.headers, '__proto__')).toBe(true);
    expect(e.headers.constructor).toBe('y');
    expect(Object.getPrototypeOf(e.headers)).toBe(Object.prototype);
  });
});

describe('buildAwsV2Event', () => {
  const match = matchOf('/', 'ANY', '/items/{id}', 'rt_1', 'GET', '/items/7');

  it('leaves out cookies, query, body and path parameters when there are none', () => {
    const e = buildAwsV2Event(facts({ path: '/x' }), matchOf('/', 'GET', '/x', 'rt', 'GET', '/x'));
    expect(Object.keys(e).sort()).toEqual(['headers', 'isBase64Encoded', 'rawPath', 'rawQueryString', 'requestContext', 'routeKey', 'version']);
    expect(e.rawQueryString).toBe('');
    expect(e.routeKey).toBe('GET /x');
  });

  it('moves every Cookie header into cookies and joins other repeated headers with commas', () => {
    const e = buildAwsV2Event(
      facts({ rawHeaders: ['Cookie', 'a=1; b=2', 'X-A', '1', 'x-a', '2', 'cookie', 'c=3'] }),
      match,
    );
    expect(e.cookies).toEqual(['a=1', 'b=2', 'c=3']);
    expect(e.headers.cookie).toBeUndefined();
    expect(e.headers['x-a']).toBe('1,2');
  });

  it('joins a repeated query key with commas; keeps the raw query; the route key is method and {id} template', () => {
    const e = buildAwsV2Event(facts({ method: 'GET', path: '/items/7', rawQuery: 'a=1&a=2&b=x%20y' }), match);
    expect(e.queryStringParameters).toEqual({ a: '1,2', b: 'x y' });
    expect(e.rawQueryString).toBe('a=1&a=2&b=x%20y');
    expect(e.pathParameters).toEqual({ id: '7' });
    expect(e.routeKey).toBe('ANY /items/{id}');
    expect(e.requestContext.http).toEqual({ method: 'GET', path: '/items/7', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: '' });
  });

  it('a binary body is base64 with isBase64Encoded; a text one is as sent', () => {
    const bytes = Buffer.from([0xde, 0xad, 0xbe, 0xef]);
    expect(buildAwsV2Event(facts({ body: bytes }), match)).toMatchObject({ body: '3q2+7w==', isBase64Encoded: true });
    expect(buildAwsV2Event(facts({ body: Buffer.from('{"a":1}') }), match)).toMatchObject({ body: '{"a":1}', isBase64Encoded: false });
  });
});

describe('AWS request time and domain', () => {
  it("formats the time as API Gateway's dd/MMM/yyyy:HH:mm:ss +0000, in UTC", () => {
    expect(awsRequestTime(1583349317135)).toBe('04/Mar/2020:19:15:17 +0000');
    expect(awsRequestTime(Date.UTC(2026, 11, 31, 23, 59, 59, 999))).toBe('31/Dec/2026:23:59:59 +0000');
  });

  it('domainName is the Host as sent, domainPrefix its first label', () => {
    expect(awsDomain('api.example.com')).toEqual({ domainName: 'api.example.com', domainPrefix: 'api' });
    expect(awsDomain('localhost:3000')).toEqual({ domainName: 'localhost:3000', domainPrefix: 'localhost' });
    expect(awsDomain('[::1]:3000')).toEqual({ domainName: '[::1]:3000', domainPrefix: '[::1]' });
    expect(awsDomain(undefined)).toEqual({ domainName: 'localhost', domainPrefix: 'localhost' });
  });
});

describe('defaultAwsV1Event and defaultAwsV2Event (the manual invoke)', () => {
  const ids = { requestId: 'req_m', functionName: 'f' };

  it('v1: completes an empty event as a POST / with every field, body null', () => {
    const e = defaultAwsV1Event(undefined, ids);
    expect(e).toMatchObject({
      resource: '/',
      path: '/',
      httpMethod: 'POST',
      headers: {},
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
    });
    expect(e.requestContext).toMatchObject({ accountId: '123456789012', apiId: 'manual', requestId: 'req_m', stage: '$default' });
    expect(e.requestContext.identity.sourceIp).toBe('127.0.0.1');
  });

  it('v1: keeps given fields and header case, derives the multi-value maps, and sends a value body as its JSON', () => {
    const e = defaultAwsV1Event(
      {
        httpMethod: 'PUT',
        path: '/items/3',
        headers: { 'Content-Type': 'application/json', 'User-Agent': 'me' },
        queryStringParameters: { q: 'x' },
        body: { a: 1 },
        requestContext: { stage: 'prod', requestId: 'theirs' },
      },
      ids,
    );
    expect(e.headers).toEqual({ 'Content-Type': 'application/json', 'User-Agent': 'me' });
    expect(e.multiValueHeaders).toEqual({ 'Content-Type': ['application/json'], 'User-Agent': ['me'] });
    expect(e.multiValueQueryStringParameters).toEqual({ q: ['x'] });
    expect(e.body).toBe('{"a":1}');
    expect(e.requestContext).toMatchObject({ stage: 'prod', requestId: 'req_m', httpMethod: 'PUT', path: '/items/3' });
    expect(e.requestContext.identity.userAgent).toBe('me');
  });

  it('v2: completes an empty event as a function URL request, leaving out what 2.0 leaves out', () => {
    const e = defaultAwsV2Event({}, ids);
    expect(e).toMatchObject({ version: '2.0', routeKey: '$default', rawPath: '/', rawQueryString: '', headers: {}, isBase64Encoded: false });
    expect(e.requestContext).toMatchObject({
      accountId: '123456789012',
      apiId: 'manual',
      requestId: 'req_m',
      routeKey: '$default',
      stage: '$default',
      http: { method: 'POST', path: '/', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: '' },
    });
    for (const field of ['body', 'cookies', 'queryStringParameters', 'pathParameters', 'stageVariables']) {
      expect(Object.hasOwn(e, field), field).toBe(false);
    }
  });

  it('v2: lower-cases given header names, keeps cookies, sends a value body as its JSON', () => {
    const e = defaultAwsV2Event(
      { rawPath: '/a', headers: { 'X-Mixed': '1' }, cookies: ['s=1'], body: [1, 2], requestContext: { http: { method: 'GET' } } },
      ids,
    );
    expect(e.headers).toEqual({ 'x-mixed': '1' });
    expect(e.cookies).toEqual(['s=1']);
    expect(e.body).toBe('[1,2]');
    expect(e.requestContext.http).toMatchObject({ method: 'GET', path: '/a' });
  });

  it('refuses an event that is not an object, like the switchyard default', () => {
    expect(() => defaultAwsV1Event([1], ids)).toThrow(InvalidRequestError);
    expect(() => defaultAwsV2Event('x', ids)).toThrow(InvalidRequestError);
  });
});
