// Sandbox globals inside a real isolated-vm isolate (needs --no-node-snapshot, see vitest.config.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import ivm from 'isolated-vm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { installSandbox, type SandboxHandle } from '../../src/runtime/sandbox/index.js';

interface Box {
  isolate: ivm.Isolate;
  context: ivm.Context;
  handle: SandboxHandle;
  run<T = unknown>(src: string): Promise<T>;
}

const boxes: Box[] = [];
async function makeBox(
  opts: { env?: Record<string, string>; allowPrivateTargets?: boolean; countEntries?: boolean; onEmit?: (event: string) => undefined } = {},
): Promise<Box> {
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  const context = await isolate.createContext();
  const handle = await installSandbox(isolate, context, {
    env: opts.env ?? {},
    allowPrivateTargets: opts.allowPrivateTargets ?? false,
    ...(opts.countEntries === undefined ? {} : { countEntries: opts.countEntries }),
    ...(opts.onEmit ? { onEmit: opts.onEmit } : {}),
  });
  const box: Box = {
    isolate,
    context,
    handle,
    run: (src) => context.eval(src, { promise: true, copy: true }) as Promise<never>,
  };
  boxes.push(box);
  return box;
}
afterEach(() => {
  for (const b of boxes.splice(0)) {
    b.handle.dispose();
    if (!b.isolate.isDisposed) b.isolate.dispose();
  }
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sandbox globals', () => {
  it('exposes process.env (a writable copy, strings as in Node) and nothing of the host', async () => {
    const box = await makeBox({ env: { API_KEY: 'k1', REGION: 'eu' } });
    const out = await box.run<string>(`(() => {
      'use strict';
      const env = { ...process.env };
      process.env.PORT = 8080;
      return JSON.stringify({
        env, keys: Object.keys(process), port: process.env.PORT,
        require: typeof require, module: typeof module, global: typeof global, exports: typeof exports,
      });
    })()`);
    expect(JSON.parse(out)).toEqual({
      // TZ is Lambda's, which the function's own env does not set.
      env: { API_KEY: 'k1', REGION: 'eu', TZ: ':UTC' },
      keys: ['env'],
      port: '8080',
      require: 'undefined',
      module: 'undefined',
      global: 'undefined',
      exports: 'undefined',
    });
  });

  it('cannot reach host objects through function constructors', async () => {
    const box = await makeBox({ env: { A: '1' } });
    const out = await box.run<string>(`(() => {
      const viaFetch = fetch.constructor.constructor('return this')();
      const viaUrl = URL.constructor('return this')();
      const viaTimer = setTimeout.constructor.constructor('return typeof process === "undefined" ? null : process')();
      return JSON.stringify({
        sameGlobal: viaFetch === globalThis && viaUrl === globalThis,
        processKeys: Object.keys(viaTimer),
        // The sandbox's own process (Node's versions and nextTick are its placeholders), never the host's.
        own: viaTimer === process, pid: typeof viaTimer.pid, binding: typeof viaTimer.binding,
        req: typeof viaFetch.require,
        // Node's global Buffer is the sandbox's own, built in this isolate.
        bufferRealm: Buffer.constructor('return this')() === globalThis && Buffer.from('a').constructor.constructor('return this')() === globalThis,
        bufferIsView: Buffer.alloc(1) instanceof Uint8Array,
      });
    })()`);
    expect(JSON.parse(out)).toEqual({
      sameGlobal: true,
      processKeys: ['env'],
      own: true,
      pid: 'undefined',
      binding: 'undefined',
      req: 'undefined',
      bufferRealm: true,
      bufferIsView: true,
    });
  });

  it('round-trips non-ASCII text through TextEncoder/TextDecoder', async () => {
    const box = await makeBox();
    const out = await box.run<string>(`(() => {
      const s = 'héllo wörld € 😀 日本';
      const bytes = new TextEncoder().encode(s);
      const streamed = new TextDecoder();
      const euro = new TextEncoder().encode('€');
      const partial = streamed.decode(euro.subarray(0, 1), { stream: true }) + streamed.decode(euro.subarray(1));
      let fatal = null;
      try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])); } catch (e) { fatal = e.name; }
      return JSON.stringify({ back: new TextDecoder().decode(bytes), len: bytes.length, head: Array.from(bytes.slice(0, 3)),
        partial, fatal, lenient: new TextDecoder().decode(new Uint8Array([0x61, 0xff])) });
    })()`);
    expect(JSON.parse(out)).toEqual({
      back: 'héllo wörld € 😀 日本',
      len: Buffer.byteLength('héllo wörld € 😀 日本'),
      head: [0x68, 0xc3, 0xa9],
      partial: '€',
      fatal: 'TypeError',
      lenient: 'a\ufffd',
    });
  });

  it('implements atob and btoa', async () => {
    const box = await makeBox();
    const out = await box.run<string>(`(() => {
      let bad = null;
      try { btoa('€'); } catch (e) { bad = e.name; }
      let badAtob = null;
      try { atob('a'); } catch (e) { badAtob = e.name; }
      return JSON.stringify([btoa('hello world'), atob('aGVsbG8gd29ybGQ='), atob(' aGk '), btoa(String.fromCharCode(255, 0)), bad, badAtob]);
    })()`);
    expect(JSON.parse(out)).toEqual([
      'aGVsbG8gd29ybGQ=',
      'hello world',
      'hi',
      Buffer.from([255, 0]).toString('base64'),
      'InvalidCharacterError',
      'InvalidCharacterError',
    ]);
  });

  it('structuredClone deep-copies Map, Date, Set, typed arrays and cycles, and refuses functions', async () => {
    const box = await makeBox();
    const out = await box.run<string>(`(() => {
      const src = { when: new Date(86400000), m: new Map([['k', { d: new Date(0), s: new Set([1, 2]) }]]),
        bytes: new Uint8Array([1, 2, 3]), re: /a+/gi };
      src.self = src;
      const c = structuredClone(src);
      src.m.get('k').d.setTime(5);
      let err = null;
      try { structuredClone({ f() {} }); } catch (e) { err = e.name; }
      return JSON.stringify({
        when: c.when.toISOString(), isMap: c.m instanceof Map, inner: c.m.get('k').d.getTime(),
        set: Array.from(c.m.get('k').s), bytes: Array.from(c.bytes), distinct: c.bytes !== src.bytes,
        re: String(c.re), cycle: c.self === c, err,
      });
    })()`);
    expect(JSON.parse(out)).toEqual({
      when: '1970-01-02T00:00:00.000Z',
      isMap: true,
      inner: 0,
      set: [1, 2],
      bytes: [1, 2, 3],
      distinct: true,
      re: '/a+/gi',
      cycle: true,
      err: 'DataCloneError',
    });
  });

  it('parses URLs through the host and keeps searchParams in sync', async () => {
    const box = await makeBox();
    const out = await box.run<string>(`(() => {
      const u = new URL('/p/a th?x=1&y=a+b#frag', 'https://Example.COM:443');
      const sp = u.searchParams;
      sp.append('z', 'ü &');
      sp.set('x', '2');
      const afterParams = u.href;
      u.search = '?q=9';
      let invalid = null;
      try { new URL('not a url'); } catch (e) { invalid = e.name + ':' + e.code; }
      const qs = new URLSearchParams({ a: '1', b: 'two words' });
      return JSON.stringify({ host: u.host, path: u.pathname, afterParams, y: new URL(afterParams).searchParams.get('y'),
        q: sp.get('q'), x: sp.get('x'), href: u.href, invalid, qs: qs.toString(), canParse: URL.canParse('http://a') });
    })()`);
    expect(JSON.parse(out)).toEqual({
      host: 'example.com',
      path: '/p/a%20th',
      afterParams: 'https://example.com/p/a%20th?x=2&y=a+b&z=%C3%BC+%26#frag',
      y: 'a b',
      q: '9',
      x: null,
      href: 'https://example.com/p/a%20th?q=9#frag',
      invalid: 'TypeError:ERR_INVALID_URL',
      qs: 'a=1&b=two+words',
      canParse: true,
    });
  });

  it('computes HMAC-SHA256, verifies it, and digests SHA-256 (known answers)', async () => {
    const box = await makeBox();
    const out = await box.run<string>(`(async () => {
      const enc = new TextEncoder();
      const hex = (b) => Array.from(new Uint8Array(b)).map((x) => x.toString(16).padStart(2, '0')).join('');
      const key = await crypto.subtle.importKey('raw', enc.encode('key'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
      const msg = enc.encode('The quick brown fox jumps over the lazy dog');
      const sig = await crypto.subtle.sign('HMAC', key, msg);
      const ok = await crypto.subtle.verify('HMAC', key, sig, msg);
      const tampered = await crypto.subtle.verify('HMAC', key, sig, enc.encode('other'));
      const digest = await crypto.subtle.digest('SHA-256', enc.encode('abc'));
      const sha1 = await crypto.subtle.digest({ name: 'SHA-1' }, enc.encode('abc'));
      let unsupported = null;
      try { await crypto.subtle.digest('MD5', enc.encode('abc')); } catch (e) { unsupported = e.name; }
      return JSON.stringify({ sig: hex(sig), isBuffer: sig instanceof ArrayBuffer, ok, tampered, digest: hex(digest), sha1: hex(sha1),
        unsupported, keyType: key.type, alg: key.algorithm });
    })()`);
    expect(JSON.parse(out)).toEqual({
      sig: 'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
      isBuffer: true,
      ok: true,
      tampered: false,
      digest: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      sha1: 'a9993e364706816aba3e25717850c26c9cd0d89d',
      unsupported: 'NotSupportedError',
      keyType: 'secret',
      alg: { name: 'HMAC', hash: { name: 'SHA-256' }, length: 24 },
    });
  });

  it('produces random UUIDs and random values', async () => {
    const box = await makeBox();
    const out = await box.run<string>(`(() => {
      const ids = Array.from({ length: 50 }, () => crypto.randomUUID());
      const arr = crypto.getRandomValues(new Uint32Array(16));
      let floatErr = null;
      try { crypto.getRandomValues(new Float64Array(2)); } catch (e) { floatErr = e.name; }
      return JSON.stringify({ ids, distinct: new Set(ids).size, nonZero: arr.some((x) => x !== 0), floatErr });
    })()`);
    const r = JSON.parse(out) as { ids: string[]; distinct: number; nonZero: boolean; floatErr: string };
    for (const id of r.ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(r.distinct).toBe(50);
    expect(r.nonZero).toBe(true);
    expect(r.floatErr).toBe('TypeMismatchError');
  });

  it('runs timers in delay order, honours clearTimeout, and repeats intervals', async () => {
    const box = await makeBox();
    const out = await box.run<string>(`new Promise((resolve) => {
      const order = [];
      setTimeout(() => order.push('c'), 30);
      setTimeout((x) => order.push(x), 1, 'a');
      const cancelled = setTimeout(() => order.push('never'), 10);
      setTimeout(() => order.push('b'), 15);
      clearTimeout(cancelled);
      let n = 0;
      const iv = setInterval(() => { if (++n === 3) clearInterval(iv); }, 2);
      setTimeout(() => resolve(order.join(',') + '|' + n), 60);
    })`);
    expect(out).toBe('a,b,c|3');
  });

  it('dispose() stops pending timers of that context', async () => {
    const box = await makeBox();
    await box.run(`globalThis.fired = false; setTimeout(() => { globalThis.fired = true; }, 30); undefined`);
    box.handle.dispose();
    await sleep(80);
    expect(await box.run('fired')).toBe(false);
  });

  it('setActive(false) clears pending timers on the host and delivers nothing into the isolate', async () => {
    const box = await makeBox();
    await box.run(`globalThis.ticks = 0; setInterval(() => { globalThis.ticks++; }, 5); setTimeout(() => { globalThis.late = true; }, 40); undefined`);
    await sleep(30);
    box.handle.setActive(false);
    const at = await box.run<number>('ticks');
    expect(at).toBeGreaterThan(0);
    await sleep(80);
    expect(await box.run('[ticks, typeof late]')).toEqual([at, 'undefined']);
    // Active again: new timers run; the cleared ones stay cleared.
    box.handle.setActive(true);
    expect(await box.run(`new Promise((r) => setTimeout(() => r(ticks), 10))`)).toBe(at);
  });

  it('a timer firing after the isolate was disposed does not throw into the host', async () => {
    const box = await makeBox();
    await box.run(`setTimeout(() => {}, 5); undefined`);
    box.isolate.dispose();
    await sleep(30); // vitest fails the file on any uncaught exception
    expect(box.isolate.isDisposed).toBe(true);
  });
});

describe('sandbox fetch', () => {
  let server: http.Server;
  let base = '';
  let hangingClosed: Promise<void>;
  let hangingReceived: Promise<void>;
  let onHangingClosed: () => void = () => {};
  let onHangingReceived: () => void = () => {};
  let idleClosed: Promise<void>;
  let idleReceived: Promise<void>;
  let onIdleClosed: () => void = () => {};
  let onIdleReceived: () => void = () => {};
  beforeAll(async () => {
    idleClosed = new Promise((r) => (onIdleClosed = r));
    idleReceived = new Promise((r) => (onIdleReceived = r));
    hangingClosed = new Promise((r) => (onHangingClosed = r));
    hangingReceived = new Promise((r) => (onHangingReceived = r));
    server = http.createServer((req, res) => {
      if (req.url === '/hang-forever') return; // never answers, never told
      if (req.url === '/hang-idle') {
        req.on('close', () => onIdleClosed());
        onIdleReceived();
        return; // never answers
      }
      if (req.url === '/hang') {
        req.on('close', () => onHangingClosed());
        onHangingReceived();
        return; // never answers
      }
      if (req.url === '/big') {
        res.end(Buffer.alloc(5 * 1024 * 1024 + 10, 97));
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.setHeader('x-echo', 'yes');
        res.statusCode = req.url?.startsWith('/created') ? 201 : 200;
        res.end(
          JSON.stringify({
            method: req.method,
            url: req.url,
            auth: req.headers.authorization ?? null,
            type: req.headers['content-type'] ?? null,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('performs a real request when private targets are allowed', async () => {
    const box = await makeBox({ allowPrivateTargets: true });
    const out = await box.run<string>(`(async () => {
      const res = await fetch('${base}/created?q=1', { method: 'POST', headers: { Authorization: 'Bearer t' },
        body: JSON.stringify({ hi: 'wörld' }) });
      const data = await res.json();
      const form = await fetch(new URL('/form', '${base}'), { method: 'PUT', headers: [['x-a', '1']],
        body: new URLSearchParams({ a: 'b c' }) }).then((r) => r.json());
      const bin = await fetch('${base}/bin', { method: 'POST', body: new Uint8Array([104, 105]) }).then((r) => r.text());
      let reused = null;
      try { await res.text(); } catch (e) { reused = e.name; }
      return JSON.stringify({ ok: res.ok, status: res.status, echo: res.headers.get('x-echo'), hasType: res.headers.has('Content-Type'),
        url: res.url, data, form, bin: JSON.parse(bin).body, reused, isResponse: res instanceof Response });
    })()`);
    expect(JSON.parse(out)).toEqual({
      ok: true,
      status: 201,
      echo: 'yes',
      hasType: true,
      url: `${base}/created?q=1`,
      data: {
        method: 'POST',
        url: '/created?q=1',
        auth: 'Bearer t',
        type: 'text/plain;charset=UTF-8',
        body: '{"hi":"wörld"}',
      },
      form: {
        method: 'PUT',
        url: '/form',
        auth: null,
        type: 'application/x-www-form-urlencoded;charset=UTF-8',
        body: 'a=b+c',
      },
      bin: 'hi',
      reused: 'TypeError',
      isResponse: true,
    });
  });

  it('refuses private targets with the clear error when not allowed', async () => {
    const box = await makeBox({ allowPrivateTargets: false });
    const out = await box.run<string>(`(async () => {
      const results = [];
      for (const u of ['${base}/x', '${base.replace('127.0.0.1', 'localhost')}/x']) {
        try { await fetch(u); results.push('fetched'); } catch (e) { results.push(e.name + '|' + e.code + '|' + e.message); }
      }
      return JSON.stringify(results);
    })()`);
    const [literal, named] = JSON.parse(out) as string[];
    expect(literal).toBe(
      'TypeError|ERR_PRIVATE_TARGET|fetch failed: connect refused: 127.0.0.1 is a private address (set SWITCHYARD_ALLOW_PRIVATE_TARGETS=1 to allow)',
    );
    expect(named).toMatch(/^TypeError\|ERR_PRIVATE_TARGET\|fetch failed: connect refused: localhost \((127\.0\.0\.1|::1)\) is a private address/);
  });

  it('refuses non-http schemes and response bodies over 5 MiB', async () => {
    const box = await makeBox({ allowPrivateTargets: true });
    const out = await box.run<string>(`(async () => {
      const r = [];
      for (const u of ['file:///etc/passwd', '${base}/big']) {
        try { await fetch(u); r.push('fetched'); } catch (e) { r.push(String(e.code) + '|' + e.message); }
      }
      return JSON.stringify(r);
    })()`);
    const [file, big] = JSON.parse(out) as string[];
    expect(file).toMatch(/only http: and https: URLs are supported/);
    expect(big).toMatch(/^ERR_RESPONSE_TOO_LARGE\|fetch failed: response body .* is larger than 5242880 bytes$/);
  });

  it('dispose() aborts in-flight fetches', async () => {
    const box = await makeBox({ allowPrivateTargets: true });
    await box.run(`fetch('${base}/hang').catch(() => {}); undefined`);
    await hangingReceived;
    box.handle.dispose();
    // Without the abort this never settles and the test times out.
    await expect(hangingClosed).resolves.toBeUndefined();
  });

  it('outside an invocation (activity 0) timers never fire and fetch refuses; pending fetches reject on the next one', async () => {
    const box = await makeBox({ allowPrivateTargets: true });
    await box.run(`globalThis.pendingFetch = fetch('${base}/hang-forever').then(() => 'answered', (e) => e.code + ': ' + e.message); undefined`);
    await box.handle.hook.apply(undefined, ['activity', 0]);
    await box.run(`globalThis.fired = false; globalThis.id = setTimeout(() => { globalThis.fired = true; }, 1);
      globalThis.idle = fetch('${base}/again').then(() => 'answered', (e) => e.message); undefined`);
    await sleep(30);
    expect(await box.run('[fired, typeof id]')).toEqual([false, 'object']);
    expect(await box.run('idle')).toMatch(/no invocation is in flight/);
    await box.handle.hook.apply(undefined, ['activity', 1]);
    expect(await box.run('pendingFetch')).toMatch(/^ERR_ABORTED: fetch aborted: the invocation that started it had ended$/);
  });

  it('setActive(false) aborts in-flight fetches, and fetch works again once active', async () => {
    const box = await makeBox({ allowPrivateTargets: true });
    await box.run(`fetch('${base}/hang-idle').catch(() => {}); undefined`);
    await idleReceived;
    box.handle.setActive(false);
    await expect(idleClosed).resolves.toBeUndefined();
    box.handle.setActive(true);
    expect(await box.run(`fetch('${base}/again').then((r) => r.status)`)).toBe(200);
  });
});

describe('counting calls into the isolate (the synchronous fast path, isolate-host.ts)', () => {
  // A timer callback that emits, then spins: once the emit is here, the call into the isolate has not finished.
  async function entriesWhileATimerRuns(countEntries: boolean | undefined): Promise<number> {
    const emitted: string[] = [];
    const box = await makeBox({ countEntries, onEmit: (event) => void emitted.push(event) });
    await box.run(`setTimeout(() => { emit('in-timer'); for (;;) {} }, 1); 0`);
    while (!emitted.includes('in-timer')) await sleep(5);
    return box.handle.entering();
  }

  it('counts a timer callback still running in the isolate by default', async () => {
    expect(await entriesWhileATimerRuns(undefined)).toBe(1);
  });

  it('counts nothing with countEntries: false (SWITCHYARD_SYNC_CALLS=0): the calls are sent and forgotten', async () => {
    expect(await entriesWhileATimerRuns(false)).toBe(0);
  });
});
