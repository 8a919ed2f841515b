/**
 * An API's `minimumCompressionSize` (invoke answers compressed with gzip or
 * brotli as Accept-Encoding asks) and `binaryMediaTypes` (REST API semantics
 * for aws-v1 functions), over real HTTP, the bytes on the wire read with
 * node:http and decoded with node:zlib; and the compression of the
 * dashboard's assets and the management API's answers. Runs on SQLite and,
 * with TEST_STORE=postgres, on PostgreSQL (the fields are stored).
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, type RawAnswer } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';

const FUNCTIONS: Record<string, { format: 'aws-v1' | 'aws-v2'; code: string }> = {
  // `?n=` characters of text, with the status `?status=` and a Content-Encoding of its own with `?enc=`.
  sized: {
    format: 'aws-v2',
    code: `exports.handler = async (event) => {
      const q = event.queryStringParameters ?? {};
      const headers = { 'content-type': 'text/plain; charset=utf-8' };
      if (q.enc) headers['content-encoding'] = q.enc;
      if (q.vary) headers['vary'] = q.vary;
      let body = '';
      for (let i = 0; body.length < Number(q.n ?? 0); i++) body += 'line ' + i + ' of a long answer\\n';
      return { statusCode: Number(q.status ?? 200), headers, body: body.slice(0, Number(q.n ?? 0)) };
    };`,
  },
  // A REST handler answering bytes base64-encoded, telling what it received in headers.
  'v1-image': {
    format: 'aws-v1',
    code: `exports.handler = async (event) => {
      const q = event.queryStringParameters ?? {};
      return {
        statusCode: 200,
        isBase64Encoded: true,
        headers: {
          'Content-Type': q.ct ?? 'image/png',
          'X-In-Base64': String(event.isBase64Encoded),
          'X-In-Body': event.body ?? '',
        },
        body: btoa('\\x89PNG\\r\\n\\x1a\\n\\x00\\xff'),
      };
    };`,
  },
};

const PNG_BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
const PNG_BASE64 = PNG_BYTES.toString('base64');

let svc: RunningService;
const ids: Record<string, string> = {};

async function createApi(name: string, extra: Record<string, unknown>, fn: string): Promise<any> {
  const res = await svc.request('POST', '/api/apis', { name, basePath: '/', routes: [{ method: 'ANY', path: '/*', function: fn }], ...extra });
  expect(res.status, res.text).toBe(201);
  ids[name] = res.json.id;
  return res.json;
}

function invoke(api: string, rest: string, headers: string[] = [], method = 'GET', body?: Buffer | string): Promise<RawAnswer> {
  return rawRequest(svc.url, method, `/api/invoke/fn/${ids[api]}${rest}`, headers, body);
}

/** The text the `sized` function answers for `?n=`. */
function sizedText(n: number): string {
  let body = '';
  for (let i = 0; body.length < n; i++) body += `line ${i} of a long answer\n`;
  return body.slice(0, n);
}

beforeAll(async () => {
  svc = await startService();
  for (const [name, { format, code }] of Object.entries(FUNCTIONS)) {
    const res = await svc.request('POST', '/api/functions', { name, code, event_format: format });
    expect(res.status, `${name}: ${res.text}`).toBe(201);
  }
  await createApi('zipped', { minimumCompressionSize: 1000 }, 'sized');
  await createApi('raw', {}, 'sized');
  await createApi('binary', { binaryMediaTypes: ['image/*', 'application/octet-stream'] }, 'v1-image');
  await createApi('unset', {}, 'v1-image');
}, 60000);

afterAll(async () => {
  await svc?.stop();
});

describe('the API fields', () => {
  it('are stored, answered, changed and reset through the management API', async () => {
    const got = await svc.request('GET', `/api/apis/${ids.zipped}`);
    expect(got.json.minimumCompressionSize).toBe(1000);
    expect(got.json.binaryMediaTypes).toBeNull();
    const bin = await svc.request('GET', `/api/apis/${ids.binary}`);
    expect(bin.json.binaryMediaTypes).toEqual(['image/*', 'application/octet-stream']);
    expect(bin.json.minimumCompressionSize).toBeNull();

    const created = await createApi('changing', { minimumCompressionSize: 0, binaryMediaTypes: ['*/*'] }, 'sized');
    expect(created.minimumCompressionSize).toBe(0);
    const changed = await svc.request('PUT', `/api/apis/${ids.changing}`, { minimumCompressionSize: 2048 });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json.minimumCompressionSize).toBe(2048);
    // A field left out of the update stays as it was.
    expect(changed.json.binaryMediaTypes).toEqual(['*/*']);
    const reset = await svc.request('PUT', `/api/apis/${ids.changing}`, { minimumCompressionSize: null, binaryMediaTypes: null });
    expect(reset.json.minimumCompressionSize).toBeNull();
    expect(reset.json.binaryMediaTypes).toBeNull();
    expect((await svc.request('GET', `/api/apis/${ids.changing}`)).json).toMatchObject({ minimumCompressionSize: null, binaryMediaTypes: null });
  });

  it('refuses values out of range with a 400 naming the field', async () => {
    for (const [body, field] of [
      [{ minimumCompressionSize: -1 }, 'minimumCompressionSize'],
      [{ minimumCompressionSize: 10_485_761 }, 'minimumCompressionSize'],
      [{ minimumCompressionSize: 'big' }, 'minimumCompressionSize'],
      [{ binaryMediaTypes: ['png'] }, 'binaryMediaTypes'],
      [{ binaryMediaTypes: 'image/png' }, 'binaryMediaTypes'],
    ] as const) {
      const res = await svc.request('PUT', `/api/apis/${ids.raw}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.text).toContain(field);
    }
  });
});

describe('invoke answers of an API with minimumCompressionSize', () => {
  it('are gzip-compressed for a caller that accepts only gzip, with Vary and the compressed length', async () => {
    const res = await invoke('zipped', '/big?n=50000', ['accept-encoding', 'gzip']);
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(Number(res.headers['content-length'])).toBe(res.body.length);
    expect(res.body.length).toBeLessThan(50000 / 4);
    expect(gunzipSync(res.body).toString()).toBe(sizedText(50000));
  });

  it('are brotli-compressed when br and gzip are equally welcome', async () => {
    const res = await invoke('zipped', '/big?n=50000', ['accept-encoding', 'gzip, deflate, br']);
    expect(res.headers['content-encoding']).toBe('br');
    expect(Number(res.headers['content-length'])).toBe(res.body.length);
    expect(brotliDecompressSync(res.body).toString()).toBe(sizedText(50000));
  });

  it('honour q-values, identity and *', async () => {
    const cases: Array<[string, string | undefined]> = [
      ['br;q=0.5, gzip;q=0.8', 'gzip'],
      ['gzip;q=0.2, br', 'br'],
      ['br;q=0, *', 'gzip'],
      ['*', 'br'],
      ['gzip;q=0, br;q=0', undefined],
      ['identity;q=1, gzip;q=0.5', undefined],
      ['identity', undefined],
      ['deflate', undefined],
    ];
    for (const [accept, expected] of cases) {
      const res = await invoke('zipped', '/big?n=5000', ['accept-encoding', accept]);
      expect(res.headers['content-encoding'], accept).toBe(expected);
      const text = expected === 'br' ? brotliDecompressSync(res.body) : expected === 'gzip' ? gunzipSync(res.body) : res.body;
      expect(text.toString(), accept).toBe(sizedText(5000));
      expect(res.headers.vary, accept).toMatch(/accept-encoding/i);
    }
  });

  it('go out as they are below the threshold, without Accept-Encoding, and for HEAD', async () => {
    const small = await invoke('zipped', '/big?n=999', ['accept-encoding', 'gzip, br']);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.body.toString()).toBe(sizedText(999));
    const at = await invoke('zipped', '/big?n=1000', ['accept-encoding', 'gzip']);
    expect(at.headers['content-encoding']).toBe('gzip');

    const none = await invoke('zipped', '/big?n=50000');
    expect(none.headers['content-encoding']).toBeUndefined();
    expect(none.headers.vary).toMatch(/accept-encoding/i);
    expect(none.body.toString()).toBe(sizedText(50000));

    const head = await invoke('zipped', '/big?n=50000', ['accept-encoding', 'gzip, br'], 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.headers.vary).toMatch(/accept-encoding/i);
    expect(head.body.length).toBe(0);
  });

  it('keep a Content-Encoding the function set, and carry no body for 204 and 304', async () => {
    const own = await invoke('zipped', '/big?n=5000&enc=x-custom', ['accept-encoding', 'gzip, br']);
    expect(own.headers['content-encoding']).toBe('x-custom');
    expect(own.body.toString()).toBe(sizedText(5000));
    for (const status of [204, 304]) {
      const res = await invoke('zipped', `/big?n=5000&status=${status}`, ['accept-encoding', 'gzip, br']);
      expect(res.status).toBe(status);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.body.length).toBe(0);
    }
  });

  it("add Accept-Encoding to the function's own Vary", async () => {
    const res = await invoke('zipped', '/big?n=5000&vary=Origin', ['accept-encoding', 'gzip']);
    expect(res.headers.vary).toBe('Origin, Accept-Encoding');
  });

  it('are never compressed for an API without it, nor once it is reset', async () => {
    const res = await invoke('raw', '/big?n=50000', ['accept-encoding', 'gzip, br']);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toBeUndefined();
    expect(res.body.toString()).toBe(sizedText(50000));

    await createApi('later', { minimumCompressionSize: 100 }, 'sized');
    expect((await invoke('later', '/x?n=5000', ['accept-encoding', 'gzip'])).headers['content-encoding']).toBe('gzip');
    expect((await svc.request('PUT', `/api/apis/${ids.later}`, { minimumCompressionSize: null })).status).toBe(200);
    expect((await invoke('later', '/x?n=5000', ['accept-encoding', 'gzip'])).headers['content-encoding']).toBeUndefined();
  });
});

describe('an API with both cors and minimumCompressionSize', () => {
  it('stores both, answers a preflight uncompressed, and compresses an allowed answer carrying the CORS headers and one Vary', async () => {
    const api = await createApi(
      'both',
      { cors: { allowOrigins: ['https://app.example.com'], allowMethods: ['GET'] }, minimumCompressionSize: 1000, binaryMediaTypes: ['image/png'] },
      'sized',
    );
    expect(api).toMatchObject({ minimumCompressionSize: 1000, binaryMediaTypes: ['image/png'], cors: { allowOrigins: ['https://app.example.com'] } });

    const res = await invoke('both', '/big?n=50000', ['accept-encoding', 'gzip', 'origin', 'https://app.example.com']);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toBe('Origin, Accept-Encoding');
    expect(gunzipSync(res.body).toString()).toBe(sizedText(50000));

    const preflight = await invoke('both', '/big', ['origin', 'https://app.example.com', 'access-control-request-method', 'GET', 'accept-encoding', 'gzip'], 'OPTIONS');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toContain('GET');
    expect(preflight.headers['content-encoding']).toBeUndefined();

    // Changing one leaves the other: compression off, the policy kept; then the policy removed, compression back.
    const off = await svc.request('PUT', `/api/apis/${ids.both}`, { minimumCompressionSize: null });
    expect(off.json).toMatchObject({ minimumCompressionSize: null, binaryMediaTypes: ['image/png'], cors: { allowOrigins: ['https://app.example.com'] } });
    const plain = await invoke('both', '/big?n=50000', ['accept-encoding', 'gzip', 'origin', 'https://app.example.com']);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['access-control-allow-origin']).toBe('https://app.example.com');
    const noCors = await svc.request('PUT', `/api/apis/${ids.both}`, { cors: null, minimumCompressionSize: 1000 });
    expect(noCors.json).toMatchObject({ cors: null, minimumCompressionSize: 1000, binaryMediaTypes: ['image/png'] });
    const zipped = await invoke('both', '/big?n=50000', ['accept-encoding', 'gzip', 'origin', 'https://app.example.com']);
    expect(zipped.headers['access-control-allow-origin']).toBeUndefined();
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
  });
});

describe('binaryMediaTypes with an aws-v1 function', () => {
  it("decodes a base64 answer whose Content-Type is one of the API's binary types", async () => {
    const res = await invoke('binary', '/img', ['accept', 'text/html']);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.body).toEqual(PNG_BYTES);
  });

  it("sends the base64 text as it is when neither the Content-Type nor the first Accept type matches", async () => {
    const res = await invoke('binary', '/img?ct=application/json', ['accept', 'text/html, image/webp']);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body.toString()).toBe(PNG_BASE64);
  });

  it("decodes when the request's first Accept type matches", async () => {
    const res = await invoke('binary', '/img?ct=application/json', ['accept', 'image/webp, text/html']);
    expect(res.body).toEqual(PNG_BYTES);
    const octet = await invoke('binary', '/img?ct=text/plain', ['accept', 'application/octet-stream']);
    expect(octet.body).toEqual(PNG_BYTES);
  });

  it('passes a request body of a binary type base64-encoded, and any other as text', async () => {
    const bytes = Buffer.from('hello bytes');
    const png = await invoke('binary', '/upload', ['content-type', 'image/png'], 'POST', bytes);
    expect(png.headers['x-in-base64']).toBe('true');
    expect(png.headers['x-in-body']).toBe(bytes.toString('base64'));
    const text = await invoke('binary', '/upload', ['content-type', 'text/plain'], 'POST', bytes);
    expect(text.headers['x-in-base64']).toBe('false');
    expect(text.headers['x-in-body']).toBe('hello bytes');
  });

  it('decodes every base64 answer, as before the field, when the API has none set', async () => {
    const res = await invoke('unset', '/img?ct=application/json', ['accept', 'text/html']);
    expect(res.body).toEqual(PNG_BYTES);
    const text = await invoke('unset', '/upload', ['content-type', 'image/png'], 'POST', 'plain text');
    expect(text.headers['x-in-base64']).toBe('false');
  });

  it('matches everything with */*', async () => {
    await createApi('everything', { binaryMediaTypes: ['*/*'] }, 'v1-image');
    const res = await invoke('everything', '/img?ct=application/json', ['accept', 'text/html']);
    expect(res.body).toEqual(PNG_BYTES);
  });
});

describe('the dashboard and the management API', () => {
  it("compress the dashboard's scripts once and serve the same bytes again", async () => {
    const page = await rawRequest(svc.adminUrl, 'GET', '/');
    const script = /src="\/assets\/([^"]+\.js)"/.exec(page.body.toString())?.[1];
    expect(script).toBeDefined();
    const plain = await rawRequest(svc.adminUrl, 'GET', `/assets/${script}`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const br = await rawRequest(svc.adminUrl, 'GET', `/assets/${script}`, ['accept-encoding', 'gzip, br']);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    expect(brotliDecompressSync(br.body)).toEqual(plain.body);
    const again = await rawRequest(svc.adminUrl, 'GET', `/assets/${script}`, ['accept-encoding', 'br']);
    expect(again.body).toEqual(br.body);
    const gz = await rawRequest(svc.adminUrl, 'GET', `/assets/${script}`, ['accept-encoding', 'gzip']);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body)).toEqual(plain.body);
  });

  it('compress the OpenAPI document and large lists', async () => {
    const plain = await rawRequest(svc.adminUrl, 'GET', '/api/openapi.json');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gz = await rawRequest(svc.adminUrl, 'GET', '/api/openapi.json', ['accept-encoding', 'gzip']);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.body).toString())).toEqual(JSON.parse(plain.body.toString()));
    const list = await rawRequest(svc.adminUrl, 'GET', '/api/apis', ['accept-encoding', 'br']);
    expect(list.status).toBe(200);
    expect(list.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(list.body).toString())).toBeInstanceOf(Array);
  });
});
