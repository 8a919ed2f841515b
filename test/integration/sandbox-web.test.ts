/**
 * The sandbox's web APIs over real HTTP: UTC whatever the server's zone,
 * AbortController/AbortSignal (and fetch honouring them, the host cancelling
 * its request), EventTarget, web streams, Blob/File/FormData (as fetch bodies
 * too), performance, and crypto.subtle beyond HMAC (AES, RSA, ECDSA, Ed25519)
 * with its refusals. One server, started in America/New_York, that may fetch
 * from 127.0.0.1 (SWITCHYARD_ALLOW_PRIVATE_TARGETS=1) to reach the local
 * servers below.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';

let svc: RunningService;
let apiId = '';

/** A local target: `/hold` never answers (and records when its connection closes), `/echo` answers the body it got with its content type. */
interface Target {
  url: string;
  held: number;
  closed: number;
  close(): Promise<void>;
}
async function startTarget(): Promise<Target> {
  const t = { held: 0, closed: 0 };
  const server = http.createServer((req, res) => {
    if (req.url === '/hold') {
      t.held++;
      res.on('close', () => t.closed++);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/octet-stream' });
      res.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return Object.assign(t, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  });
}
let target: Target;

async function run(name: string, code: string, env: Record<string, string> = {}) {
  const res = await svc.request('POST', '/api/functions', { name, code, env, timeout_ms: 10000 });
  expect(res.status, `${name}: ${res.text}`).toBe(201);
  const route = await svc.request('POST', `/api/apis/${apiId}/routes`, { method: 'GET', path: `/${name}`, function: name });
  expect(route.status, route.text).toBe(201);
  const answer = await svc.request('GET', `/api/invoke/fn/${apiId}/${name}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.json;
}

beforeAll(async () => {
  [svc, target] = await Promise.all([
    startService({ env: { TZ: 'America/New_York', SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } }),
    startTarget(),
  ]);
  const api = await svc.request('POST', '/api/apis', { name: 'web', basePath: '/', routes: [], exposeErrors: true });
  expect(api.status, api.text).toBe(201);
  apiId = api.json.id;
}, 60000);

afterAll(async () => {
  await Promise.all([svc?.stop(), target?.close()]);
});

describe('time zone', () => {
  it('runs functions in UTC with process.env.TZ as Lambda sets it, on a server in America/New_York', async () => {
    const out = await run(
      'utc',
      `exports.handler = async () => ({ statusCode: 200, body: {
        tz: process.env.TZ,
        mine: process.env.MINE,
        epoch: new Date(0).toString(),
        offset: new Date(2024, 6, 1).getTimezoneOffset(),
        local: new Date(Date.UTC(2024, 0, 1, 12)).getHours(),
        intl: Intl.DateTimeFormat().resolvedOptions().timeZone,
      } });`,
      { MINE: 'kept' },
    );
    expect(out).toEqual({
      tz: ':UTC',
      mine: 'kept',
      epoch: 'Thu Jan 01 1970 00:00:00 GMT+0000 (Coordinated Universal Time)',
      offset: 0,
      local: 12,
      intl: 'UTC',
    });
  });
});

describe('events and abort signals', () => {
  it('has EventTarget, CustomEvent, AbortController, AbortSignal.abort/timeout/any and performance', async () => {
    const out = await run(
      'signals',
      `exports.handler = async () => {
        const seen = [];
        const target = new EventTarget();
        const listener = (e) => seen.push(e.type + ':' + e.detail);
        target.addEventListener('ping', listener, { once: true });
        target.addEventListener('ping', { handleEvent: (e) => seen.push('object:' + e.detail) });
        target.dispatchEvent(new CustomEvent('ping', { detail: 1 }));
        target.dispatchEvent(new CustomEvent('ping', { detail: 2 }));
        const cancelable = new Event('go', { cancelable: true });
        target.addEventListener('go', (e) => e.preventDefault());
        const notPrevented = target.dispatchEvent(cancelable);

        const controller = new AbortController();
        let heard = null;
        controller.signal.onabort = (e) => { heard = e.type; };
        controller.abort();
        const plain = controller.signal.reason;
        let thrown = null;
        try { controller.signal.throwIfAborted(); } catch (e) { thrown = e.name; }

        const timed = AbortSignal.timeout(20);
        const t0 = performance.now();
        await new Promise((resolve) => timed.addEventListener('abort', resolve));
        const elapsed = performance.now() - t0;

        const a = new AbortController();
        const any = AbortSignal.any([a.signal, new AbortController().signal]);
        a.abort('why');
        return { statusCode: 200, body: {
          seen, notPrevented, prevented: cancelable.defaultPrevented,
          plain: [plain instanceof DOMException, plain.name], heard, thrown,
          timed: [timed.aborted, timed.reason.name], waited: elapsed >= 15,
          any: [any.aborted, any.reason], early: AbortSignal.abort(7).reason,
          perf: [typeof performance.timeOrigin, performance.timeOrigin <= Date.now()],
          micro: await new Promise((r) => queueMicrotask(() => r('ran'))),
          clone: structuredClone({ d: [1, { e: 2 }] }),
        } };
      };`,
    );
    expect(out).toEqual({
      seen: ['ping:1', 'object:1', 'object:2'],
      notPrevented: false,
      prevented: true,
      plain: [true, 'AbortError'],
      heard: 'abort',
      thrown: 'AbortError',
      timed: [true, 'TimeoutError'],
      waited: true,
      any: [true, 'why'],
      early: 7,
      perf: ['number', true],
      micro: 'ran',
      clone: { d: [1, { e: 2 }] },
    });
  });

  it('rejects an aborted fetch with the signal reason and cancels the host request', async () => {
    const out = await run(
      'fetch-abort',
      `exports.handler = async () => {
        const outcome = async (p) => p.then(() => 'answered', (e) => e.name + ':' + (e instanceof DOMException));
        const timeout = await outcome(fetch('${target.url}/hold', { signal: AbortSignal.timeout(300) }));
        const c = new AbortController();
        const pending = outcome(fetch(new Request('${target.url}/hold', { signal: c.signal })));
        setTimeout(() => c.abort(), 100);
        const manual = await pending;
        const before = await outcome(fetch('${target.url}/hold', { signal: AbortSignal.abort() }));
        return { statusCode: 200, body: { timeout, manual, before } };
      };`,
    );
    expect(out).toEqual({ timeout: 'TimeoutError:true', manual: 'AbortError:true', before: 'AbortError:true' });
    // Two requests reached the target (the pre-aborted one never left), and the host closed both.
    expect(target.held).toBe(2);
    await waitFor(() => target.closed === 2);
  }, 20000);
});

describe('streams, blobs and forms', () => {
  it('pipes ReadableStream through TransformStream and TextEncoder/DecoderStream into a WritableStream', async () => {
    const out = await run(
      'streams',
      `exports.handler = async () => {
        const source = new ReadableStream({
          start(c) { this.n = 0; },
          pull(c) { this.n++; if (this.n > 3) c.close(); else c.enqueue('chunk' + this.n + ' '); },
        });
        const upper = new TransformStream({ transform(s, c) { c.enqueue(s.toUpperCase()); }, flush(c) { c.enqueue('END'); } });
        const got = [];
        await source.pipeThrough(upper).pipeThrough(new TextEncoderStream()).pipeThrough(new TextDecoderStream())
          .pipeTo(new WritableStream({ write(s) { got.push(s); } }));
        const [a, b] = ReadableStream.from(['x', 'y']).tee();
        const readAll = async (s) => { const r = []; for await (const v of s) r.push(v); return r.join(''); };
        const [c1, c2] = ReadableStream.from(['kept']).tee();
        await c1.cancel('not needed');
        const streamed = new Response(ReadableStream.from([new TextEncoder().encode('streamed')]));
        const copy = streamed.clone();
        const body = await streamed.text();
        const reader = new Response('bytes').body.getReader();
        const first = await reader.read();
        let refused = null;
        try { new ReadableStream().getReader({ mode: 'byob' }); } catch (e) { refused = e.name; }
        return { statusCode: 200, body: { joined: got.join(''), tee: [await readAll(a), await readAll(b)], body,
          afterCancel: await readAll(c2), copy: await copy.text(),
          first: new TextDecoder().decode(first.value), refused } };
      };`,
    );
    expect(out).toEqual({
      joined: 'CHUNK1 CHUNK2 CHUNK3 END',
      tee: ['xy', 'xy'],
      body: 'streamed',
      afterCancel: 'kept',
      copy: 'streamed',
      first: 'bytes',
      refused: 'TypeError',
    });
  });

  it('sends FormData with a File as multipart, and reads Blob and formData() answers', async () => {
    const out = await run(
      'forms',
      `exports.handler = async () => {
        const blob = new Blob(['hello ', new Uint8Array([119, 111]), 'rld'], { type: 'text/plain' });
        const form = new FormData();
        form.append('title', 'a report');
        form.append('upload', new File([blob], 'report.txt', { type: 'text/plain' }));
        form.append('raw', blob);
        const res = await fetch('${target.url}/echo', { method: 'POST', body: form });
        const echoed = await res.formData();
        const file = echoed.get('upload');
        const back = await (await fetch('${target.url}/echo', { method: 'POST', body: blob.slice(6, 11, 'text/x-part') })).blob();
        return { statusCode: 200, body: {
          sentType: res.headers.get('content-type').split(';')[0],
          title: echoed.get('title'), file: [file instanceof File, file.name, file.type, await file.text()],
          raw: echoed.get('raw').name, keys: [...echoed.keys()],
          blob: [blob.size, await blob.text()], back: [back.type, await back.text()],
        } };
      };`,
    );
    expect(out).toEqual({
      sentType: 'multipart/form-data',
      title: 'a report',
      file: [true, 'report.txt', 'text/plain', 'hello world'],
      raw: 'blob',
      keys: ['title', 'upload', 'raw'],
      blob: [11, 'hello world'],
      back: ['text/x-part', 'world'],
    });
  });
});

describe('crypto.subtle on the host', () => {
  it('round-trips AES-GCM and AES-CBC, signs with RSA-PSS, ECDSA P-384 and Ed25519, and refuses what is wrong', async () => {
    const out = await run(
      'subtle',
      `exports.handler = async () => {
        const s = crypto.subtle, enc = new TextEncoder(), dec = new TextDecoder();
        const name = async (p) => p.then(() => 'ok', (e) => e.name);
        const gcm = await s.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt', 'decrypt']);
        const iv = crypto.getRandomValues(new Uint8Array(12));
        const sealed = await s.encrypt({ name: 'AES-GCM', iv, additionalData: enc.encode('aad') }, gcm, enc.encode('secret text'));
        const opened = dec.decode(await s.decrypt({ name: 'AES-GCM', iv, additionalData: enc.encode('aad') }, gcm, sealed));
        const tampered = new Uint8Array(sealed); tampered[0] ^= 1;
        const raw = new Uint8Array(await s.exportKey('raw', gcm));
        const cbc = await s.importKey('raw', new Uint8Array(16).fill(7), 'AES-CBC', false, ['encrypt', 'decrypt']);
        const cbcIv = new Uint8Array(16);
        const cbcText = dec.decode(await s.decrypt({ name: 'AES-CBC', iv: cbcIv }, cbc, await s.encrypt({ name: 'AES-CBC', iv: cbcIv }, cbc, enc.encode('cbc'))));
        const rsa = await s.generateKey({ name: 'RSA-PSS', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
        const pss = await s.sign({ name: 'RSA-PSS', saltLength: 32 }, rsa.privateKey, enc.encode('m'));
        const spki = await s.exportKey('spki', rsa.publicKey);
        const rsaPub = await s.importKey('spki', spki, { name: 'RSA-PSS', hash: 'SHA-256' }, false, ['verify']);
        const ec = await s.generateKey({ name: 'ECDSA', namedCurve: 'P-384' }, false, ['sign', 'verify']);
        const ecSig = await s.sign({ name: 'ECDSA', hash: 'SHA-384' }, ec.privateKey, enc.encode('m'));
        const ed = await s.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify']);
        const edSig = await s.sign('Ed25519', ed.privateKey, enc.encode('m'));
        const edJwk = await s.exportKey('jwk', ed.publicKey);
        const edPub = await s.importKey('jwk', edJwk, 'Ed25519', false, ['verify']);
        return { statusCode: 200, body: {
          opened, tampered: await name(s.decrypt({ name: 'AES-GCM', iv, additionalData: enc.encode('aad') }, gcm, tampered)),
          raw: raw.length, cbcText,
          key: [String(gcm), gcm.type, gcm.algorithm, gcm.usages, gcm instanceof CryptoKey],
          pair: [rsa.publicKey.type, rsa.privateKey.type, rsa.publicKey.algorithm.modulusLength, [...rsa.publicKey.algorithm.publicExponent]],
          pss: await s.verify({ name: 'RSA-PSS', saltLength: 32 }, rsaPub, pss, enc.encode('m')),
          pssOther: await s.verify({ name: 'RSA-PSS', saltLength: 32 }, rsaPub, pss, enc.encode('n')),
          ec: [ec.publicKey.algorithm.namedCurve, await s.verify({ name: 'ECDSA', hash: 'SHA-384' }, ec.publicKey, ecSig, enc.encode('m'))],
          ecSecret: await name(s.exportKey('pkcs8', ec.privateKey)),
          ed: [edJwk.kty, edJwk.crv, await s.verify('Ed25519', edPub, edSig, enc.encode('m'))],
          badName: await name(s.generateKey({ name: 'DES' }, false, ['encrypt'])),
          badHash: await name(s.importKey('raw', new Uint8Array(8), { name: 'HMAC', hash: 'MD5' }, false, ['sign'])),
          badUsage: await name(s.importKey('raw', new Uint8Array(16), 'AES-GCM', false, ['fly'])),
          bigIv: await name(s.encrypt({ name: 'AES-GCM', iv: new Uint8Array(4096) }, gcm, enc.encode('x'))),
          wrongKey: await name(s.encrypt({ name: 'AES-GCM', iv }, ed.publicKey, enc.encode('x'))),
          fakeKey: await name(s.sign('Ed25519', { type: 'private' }, enc.encode('x'))),
          hugeRsa: await name(s.generateKey({ name: 'RSA-PSS', modulusLength: 16384, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, false, ['sign'])),
          digest: new Uint8Array(await s.digest('SHA-256', enc.encode(''))).slice(0, 4).join(','),
        } };
      };`,
    );
    expect(out).toEqual({
      opened: 'secret text',
      tampered: 'OperationError',
      raw: 32,
      cbcText: 'cbc',
      key: ['[object CryptoKey]', 'secret', { name: 'AES-GCM', length: 256 }, ['encrypt', 'decrypt'], true],
      pair: ['public', 'private', 2048, [1, 0, 1]],
      pss: true,
      pssOther: false,
      ec: ['P-384', true],
      ecSecret: 'InvalidAccessError',
      ed: ['OKP', 'Ed25519', true],
      badName: 'NotSupportedError',
      badHash: 'NotSupportedError',
      badUsage: 'TypeError',
      bigIv: 'QuotaExceededError',
      wrongKey: 'InvalidAccessError',
      fakeKey: 'TypeError',
      hugeRsa: 'OperationError',
      digest: '227,176,196,66',
    });
  }, 30000);

  it("answers a key imported by the module's top-level code to the invocations that await it", async () => {
    const code = `const keyPromise = crypto.subtle.importKey('raw', new TextEncoder().encode('k'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      exports.handler = async () => {
        const key = await keyPromise;
        const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode('m')));
        return { statusCode: 200, body: { first: mac[0], length: mac.length } };
      };`;
    const first = await run('subtle-module', code);
    expect(first).toEqual({ first: createHmac('sha256', 'k').update('m').digest()[0], length: 32 });
    // Again on the warm isolate, whose key promise settled long ago.
    const again = await svc.request('GET', `/api/invoke/fn/${apiId}/subtle-module`);
    expect(again.json).toEqual(first);
  }, 30000);

  it('derives with PBKDF2 (a known answer), HKDF, ECDH and X25519, and wraps keys with AES-KW', async () => {
    const out = await run(
      'subtle-derive',
      `exports.handler = async () => {
        const s = crypto.subtle, enc = new TextEncoder();
        const hex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');
        const name = async (p) => p.then(() => 'ok', (e) => e.name);
        const pw = await s.importKey('raw', enc.encode('password'), 'PBKDF2', false, ['deriveBits', 'deriveKey']);
        const pbkdf2 = hex(await s.deriveBits({ name: 'PBKDF2', hash: 'SHA-1', salt: enc.encode('salt'), iterations: 1 }, pw, 160));
        const tooMany = await name(s.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: enc.encode('salt'), iterations: 1e9 }, pw, 256));
        const ikm = await s.importKey('raw', new Uint8Array(32).fill(3), 'HKDF', false, ['deriveKey']);
        const aes = await s.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(16), info: enc.encode('ctx') }, ikm, { name: 'AES-GCM', length: 128 }, true, ['encrypt', 'decrypt']);
        const a = await s.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
        const b = await s.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
        const ab = hex(await s.deriveBits({ name: 'ECDH', public: b.publicKey }, a.privateKey, 256));
        const ba = hex(await s.deriveBits({ name: 'ECDH', public: a.publicKey }, b.privateKey, 256));
        const x = await s.generateKey({ name: 'X25519' }, false, ['deriveBits']);
        const y = await s.generateKey({ name: 'X25519' }, false, ['deriveBits']);
        const xy = hex(await s.deriveBits({ name: 'X25519', public: y.publicKey }, x.privateKey, 256));
        const yx = hex(await s.deriveBits({ name: 'X25519', public: x.publicKey }, y.privateKey, 256));
        const kek = await s.generateKey({ name: 'AES-KW', length: 256 }, false, ['wrapKey', 'unwrapKey']);
        const wrapped = await s.wrapKey('raw', aes, kek, 'AES-KW');
        const back = await s.unwrapKey('raw', wrapped, kek, 'AES-KW', 'AES-GCM', true, ['decrypt']);
        return { statusCode: 200, body: {
          pbkdf2, tooMany, aes: aes.algorithm, ecdh: [ab.length, ab === ba], x25519: [xy.length, xy === yx],
          wrapped: wrapped.byteLength, unwrapped: hex(await s.exportKey('raw', back)) === hex(await s.exportKey('raw', aes)),
          notPublic: await name(s.deriveBits({ name: 'ECDH', public: { type: 'public' } }, a.privateKey, 256)),
        } };
      };`,
    );
    expect(out).toEqual({
      // RFC 6070's first PBKDF2-HMAC-SHA1 vector.
      pbkdf2: '0c60c80f961f0e71f3a9b524af6012062fe037a6',
      tooMany: 'OperationError',
      aes: { name: 'AES-GCM', length: 128 },
      ecdh: [64, true],
      x25519: [64, true],
      wrapped: 24,
      unwrapped: true,
      notPublic: 'TypeError',
    });
  }, 30000);
});
