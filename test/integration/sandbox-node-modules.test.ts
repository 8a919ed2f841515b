/**
 * Node built-ins inside functions, over real HTTP: zlib against the host's
 * zlib, streams, node:console's Console, timers and timers/promises, events,
 * http.request over the sandbox's fetch and its SSRF rules, guarded requires,
 * inert modules that load and throw only when called, and the deploy
 * answer's `unavailable_modules`. Two services: the default one (private
 * targets refused) and one with SWITCHYARD_ALLOW_PRIVATE_TARGETS=1, whose
 * functions reach a local receiver.
 */
import { brotliCompressSync, brotliDecompressSync, deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';

let svc: RunningService;
let open: RunningService;
let receiver: Receiver;

/** Deploys `code` on `s` and invokes it once with `event`; returns the invoke answer (result, error, logs). */
async function run(s: RunningService, name: string, code: string, event: unknown = {}) {
  const fn = await s.request('POST', '/api/functions', { name, code });
  expect(fn.status, fn.text).toBe(201);
  const res = await s.request('POST', `/api/functions/${name}/invoke`, event);
  expect(res.status, res.text).toBe(200);
  return res.json as { result: any; error: { code: string; message: string } | null; logs: Array<{ message: string }> };
}

beforeAll(async () => {
  [svc, open, receiver] = await Promise.all([
    startService(),
    startService({ env: { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } }),
    startReceiver((req) => ({
      status: 201,
      body: JSON.stringify({ saw: req.method, body: req.body }),
      headers: { 'content-type': 'application/json', 'x-receiver': 'yes', 'set-cookie': 'r=1' },
    })),
  ]);
}, 60000);

afterAll(async () => {
  await Promise.all([svc?.stop(), open?.stop(), receiver?.close()]);
});

describe('zlib', () => {
  it("round-trips gzip, deflate, deflateRaw and brotli, and reads and writes what the host's zlib does", async () => {
    const text = 'switchyard '.repeat(200);
    const out = await run(
      svc,
      'zlib-trips',
      `const zlib = require('node:zlib');
      const { promisify } = require('util');
      exports.handler = async (event) => {
        const gz = zlib.gzipSync(event.text);
        const fromHost = {
          gunzip: zlib.gunzipSync(Buffer.from(event.hostGzip, 'base64')).toString(),
          inflate: zlib.inflateSync(Buffer.from(event.hostDeflate, 'base64')).toString(),
          brotli: zlib.brotliDecompressSync(Buffer.from(event.hostBrotli, 'base64')).toString(),
        };
        const callback = await new Promise((resolve, reject) =>
          zlib.deflate(event.text, (err, buf) => (err ? reject(err) : zlib.inflate(buf, (e2, back) => (e2 ? reject(e2) : resolve(back.toString()))))));
        const promised = (await promisify(zlib.gunzip)(await promisify(zlib.gzip)('promised'))).toString();
        const raw = zlib.inflateRawSync(zlib.deflateRawSync('raw bytes')).toString();
        const unzip = zlib.unzipSync(gz).toString() === event.text;
        let corrupt;
        try { zlib.gunzipSync(Buffer.from('not gzip at all')); } catch (e) { corrupt = e.code; }
        return {
          gzip: gz.toString('base64'),
          deflate: zlib.deflateSync(event.text).toString('base64'),
          brotli: zlib.brotliCompressSync(event.text).toString('base64'),
          fromHost, callback, promised, raw, unzip, corrupt,
          crc: zlib.crc32('hello'),
          level: zlib.constants.Z_BEST_COMPRESSION,
        };
      };`,
      {
        text,
        hostGzip: gzipSync(text).toString('base64'),
        hostDeflate: deflateSync(text).toString('base64'),
        hostBrotli: brotliCompressSync(text).toString('base64'),
      },
    );
    expect(out.error).toBeNull();
    const r = out.result;
    expect(gunzipSync(Buffer.from(r.gzip, 'base64')).toString()).toBe(text);
    expect(inflateSync(Buffer.from(r.deflate, 'base64')).toString()).toBe(text);
    expect(brotliDecompressSync(Buffer.from(r.brotli, 'base64')).toString()).toBe(text);
    // pako is zlib itself: the same bytes as the host's at the same level.
    expect(r.deflate).toBe(deflateSync(text).toString('base64'));
    expect(r.fromHost).toEqual({ gunzip: text, inflate: text, brotli: text });
    expect(r).toMatchObject({ callback: text, promised: 'promised', raw: 'raw bytes', unzip: true, corrupt: 'Z_DATA_ERROR', crc: 907060870, level: 9 });
  }, 30000);

  it('compresses through stream pipelines: gzip then gunzip, and a brotli stream', async () => {
    const out = await run(
      svc,
      'zlib-streams',
      `const zlib = require('zlib');
      const { Readable, Writable, Transform } = require('stream');
      const { pipeline } = require('stream/promises');
      const collect = (into) => new Writable({ write(chunk, enc, cb) { into.push(Buffer.from(chunk)); cb(); } });
      exports.handler = async () => {
        const a = [];
        const upper = new Transform({ transform(chunk, enc, cb) { cb(null, chunk.toString().toUpperCase()); } });
        await pipeline(Readable.from(['one ', 'two ', 'three']), upper, zlib.createGzip(), zlib.createGunzip(), collect(a));
        const b = [];
        await pipeline(Readable.from([Buffer.from('brotli '), Buffer.from('stream')]), zlib.createBrotliCompress(), collect(b));
        return { gz: Buffer.concat(a).toString(), br: zlib.brotliDecompressSync(Buffer.concat(b)).toString() };
      };`,
    );
    expect(out.error).toBeNull();
    expect(out.result).toEqual({ gz: 'ONE TWO THREE', br: 'brotli stream' });
  }, 30000);
});

describe('stream, console, timers, events', () => {
  it("stream's classes, pipeline's callback form and errors, and stream/promises' finished", async () => {
    const out = await run(
      svc,
      'streams',
      `const stream = require('node:stream');
      const { finished } = require('node:stream/promises');
      exports.handler = async () => {
        const seen = [];
        const sink = new stream.Writable({ objectMode: true, write(o, e, cb) { seen.push(o.n); cb(); } });
        const done = new Promise((resolve) => stream.pipeline(stream.Readable.from([{ n: 1 }, { n: 2 }]), sink, (err) => resolve(err || null)));
        const failing = new stream.Readable({ read() { this.destroy(new Error('source broke')); } });
        const failed = await new Promise((resolve) => stream.pipeline(failing, new stream.PassThrough(), (err) => resolve(err && err.message)));
        const pass = new stream.PassThrough();
        pass.end('x');
        pass.resume();
        await finished(pass);
        return {
          isStream: stream === stream.Stream && typeof stream.Duplex === 'function',
          pipelineError: await done, seen, failed, finished: pass.writableFinished,
        };
      };`,
    );
    expect(out.error).toBeNull();
    expect(out.result).toEqual({ isStream: true, pipelineError: null, seen: [1, 2], failed: 'source broke', finished: true });
  }, 30000);

  it("node:console's Console writes formatted lines to its streams, and to the function's log over process.stdout", async () => {
    const out = await run(
      svc,
      'consoles',
      `const { Console } = require('node:console');
      exports.handler = async () => {
        const lines = [];
        const c = new Console({ stdout: { write: (s) => lines.push(s) }, stderr: { write: (s) => lines.push('ERR ' + s) } });
        c.log('%s has %d items', 'cart', 3);
        c.error('bad %o', { a: 1 });
        c.count(); c.count();
        new Console(process.stdout, process.stderr).info('through stdout');
        const { log } = new Console({ stdout: process.stdout });
        log('unbound');
        return { lines, same: require('console').Console === Console };
      };`,
    );
    expect(out.error).toBeNull();
    expect(out.result).toEqual({ lines: ['cart has 3 items\n', 'ERR bad { a: 1 }\n', 'default: 1\n', 'default: 2\n'], same: true });
    expect(out.logs.map((l) => l.message)).toEqual(['through stdout', 'unbound']);
  }, 30000);

  it("timers answer Node's Timeout objects; timers/promises waits, iterates and aborts; setImmediate runs", async () => {
    const out = await run(
      svc,
      'timers',
      `const timers = require('node:timers');
      const tp = require('node:timers/promises');
      exports.handler = async () => {
        const t = setTimeout(() => { fired.push('cleared one ran'); }, 5);
        const fired = [];
        const shape = [typeof t, t.hasRef(), t.unref().hasRef(), t.ref().hasRef(), typeof t.refresh, typeof Number(t)];
        clearTimeout(t);
        const byNumber = timers.setTimeout(() => fired.push('number-cleared ran'), 5);
        timers.clearTimeout(+byNumber);
        const value = await tp.setTimeout(10, 'waited');
        const order = [];
        await new Promise((resolve) => { setImmediate(() => { order.push('immediate'); resolve(); }); Promise.resolve().then(() => order.push('microtask')); });
        const ticks = [];
        for await (const v of tp.setInterval(5, 'tick')) { ticks.push(v); if (ticks.length === 3) break; }
        const ac = new (globalThis.AbortController || class { constructor() { this.signal = null; } })();
        let aborted = 'no AbortController';
        if (ac.signal) {
          const p = tp.setTimeout(10000, 'never', { signal: ac.signal });
          ac.abort();
          aborted = await p.catch((e) => e.name);
        }
        await tp.setTimeout(15);
        return { shape, fired, value, order, ticks, aborted, immediate: typeof setImmediate + typeof clearImmediate };
      };`,
    );
    expect(out.error).toBeNull();
    expect(out.result).toMatchObject({
      shape: ['object', true, false, true, 'function', 'number'],
      fired: [],
      value: 'waited',
      order: ['microtask', 'immediate'],
      ticks: ['tick', 'tick', 'tick'],
      immediate: 'functionfunction',
    });
    expect(['AbortError', 'no AbortController']).toContain(out.result.aborted);
  }, 30000);

  it('events.once and events.on', async () => {
    const out = await run(
      svc,
      'events-helpers',
      `const { EventEmitter, once, on } = require('node:events');
      exports.handler = async () => {
        const ee = new EventEmitter();
        setTimeout(() => ee.emit('ready', 'a', 'b'), 1);
        const args = await once(ee, 'ready');
        setTimeout(() => { ee.emit('n', 1); ee.emit('n', 2); ee.emit('n', 3); }, 1);
        const got = [];
        for await (const [n] of on(ee, 'n')) { got.push(n); if (n === 3) break; }
        const failing = once(ee, 'never');
        ee.emit('error', new Error('boom'));
        return { args, got, rejected: await failing.catch((e) => e.message), left: ee.listenerCount('n') };
      };`,
    );
    expect(out.error).toBeNull();
    expect(out.result).toEqual({ args: ['a', 'b'], got: [1, 2, 3], rejected: 'boom', left: 0 });
  }, 30000);
});

describe('http.request over fetch', () => {
  const client = (target: string) => `const http = require('node:http');
    exports.handler = () => new Promise((resolve) => {
      const req = http.request(${JSON.stringify(target)}, { method: 'POST', headers: { 'content-type': 'text/plain', 'x-from': 'function' }, agent: new http.Agent({ keepAlive: true }) }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, message: res.statusMessage, header: res.headers['x-receiver'], cookies: res.headers['set-cookie'], body: JSON.parse(Buffer.concat(chunks).toString()) }));
      });
      req.on('error', (e) => resolve({ error: e.code, message: e.message }));
      req.write('hello ');
      req.end('receiver');
    });`;

  it('is refused for a private address under the default SSRF rules, as fetch is', async () => {
    const before = receiver.requests.length;
    const out = await run(svc, 'http-private', client(`${receiver.url}/in`));
    expect(out.error).toBeNull();
    expect(out.result.error).toBe('ERR_PRIVATE_TARGET');
    expect(out.result.message).toMatch(/private/i);
    expect(receiver.requests.length).toBe(before);
  }, 30000);

  it('reaches a local receiver where private targets are allowed: method, headers, body, and the answer read as an IncomingMessage', async () => {
    const out = await run(open, 'http-allowed', client(`${receiver.url}/in?x=1`));
    expect(out.error).toBeNull();
    expect(out.result).toEqual({
      status: 201,
      message: 'Created',
      header: 'yes',
      cookies: ['r=1'],
      body: { saw: 'POST', body: 'hello receiver' },
    });
    const got = receiver.requests.find((r) => r.url === '/in?x=1');
    expect(got?.headers['x-from']).toBe('function');
    expect(got?.headers['content-type']).toBe('text/plain');

    const viaGet = await run(
      open,
      'http-get',
      `const http = require('http');
      exports.handler = () => new Promise((resolve, reject) => {
        http.get(${JSON.stringify(`${receiver.url}/get`)}, (res) => { let s = ''; res.setEncoding('utf8'); res.on('data', (c) => (s += c)); res.on('end', () => resolve({ status: res.statusCode, s })); }).on('error', reject);
      });`,
    );
    expect(viaGet.result).toEqual({ status: 201, s: JSON.stringify({ saw: 'GET', body: '' }) });
  }, 30000);

  it('offers the module surface frameworks read: STATUS_CODES, METHODS, Agent, classes, createServer whose listen throws', async () => {
    const out = await run(
      svc,
      'http-surface',
      `const http = require('http'); const https = require('node:https');
      exports.handler = async () => {
        let listen;
        try { http.createServer(() => {}).listen(3000); } catch (e) { listen = e.code; }
        return {
          teapot: http.STATUS_CODES[418], hasPatch: http.METHODS.includes('PATCH'),
          agent: new https.Agent({ keepAlive: true }) instanceof http.Agent && https.globalAgent.defaultPort === 443,
          classes: [http.IncomingMessage, http.ServerResponse, http.ClientRequest, http.Server].every((c) => typeof c === 'function'),
          listen,
        };
      };`,
    );
    expect(out.result).toEqual({ teapot: "I'm a Teapot", hasPatch: true, agent: true, classes: true, listen: 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM' });
  }, 30000);
});

describe('imports decided at run time', () => {
  it('deploys guarded requires of missing modules and answers what the guard caught; the answer lists unavailable_modules', async () => {
    const code = `let pad = null;
      try { pad = require('left-pad'); } catch (e) { pad = e.code; }
      const fs = require('node:fs');
      const net = require('net');
      const os = require('os');
      exports.handler = async () => {
        let read;
        try { fs.readFileSync('/etc/passwd'); } catch (e) { read = { code: e.code, message: e.message }; }
        let sock;
        try { new net.Socket(); } catch (e) { sock = e.code; }
        let promised;
        await require('fs/promises').readFile('/x').catch((e) => (promised = e.code));
        let spawn;
        try { require('child_process').spawn('ls'); } catch (e) { spawn = e.code; }
        return {
          pad, read, sock, promised, spawn, exists: fs.existsSync('/etc/passwd'), isIP: [net.isIP('10.0.0.1'), net.isIP('::1'), net.isIP('nope')],
          os: [os.platform(), os.tmpdir(), os.hostname(), os.cpus().length, os.EOL, os.arch()],
          flags: typeof fs.constants.O_RDONLY,
        };
      };`;
    const fn = await svc.request('POST', '/api/functions', { name: 'guarded', code });
    expect(fn.status, fn.text).toBe(201);
    expect(fn.json.unavailable_modules).toEqual(['child_process', 'fs', 'fs/promises', 'left-pad', 'net']);
    const view = await svc.request('GET', '/api/functions/guarded');
    expect(view.json.unavailable_modules).toEqual(fn.json.unavailable_modules);

    const res = await svc.request('POST', '/api/functions/guarded/invoke', {});
    expect(res.json.error).toBeNull();
    expect(res.json.result).toEqual({
      pad: 'MODULE_NOT_FOUND',
      read: { code: 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM', message: expect.stringMatching(/^fs\.readFileSync\(\) is not available in the function sandbox: functions have no file system/) },
      sock: 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM',
      promised: 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM',
      spawn: 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM',
      exists: false,
      isIP: [4, 6, 0],
      os: ['linux', '/tmp', 'localhost', 1, '\n', 'x64'],
      flags: 'number',
    });

    const clean = await svc.request('POST', '/api/functions', { name: 'clean', code: `const z = require('zlib'); exports.handler = async () => typeof z.gzip;` });
    expect(clean.json.unavailable_modules).toEqual([]);
  }, 30000);

  it('refuses at deploy only what fails when the code first runs: an unguarded top-level require of a package that was not bundled', async () => {
    const res = await svc.request('POST', '/api/functions', { name: 'unbundled', code: `const pad = require('left-pad');\nexports.handler = async () => pad('1', 3);` });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('invalid_code');
    expect(res.json.error).toMatch(/module 'left-pad' is not available in the function sandbox: .*must be bundled/);
    // The same require inside the handler deploys and fails only when called.
    const late = await run(svc, 'late-require', `exports.handler = async () => require('left-pad')('1', 3);`);
    expect(late.error?.message).toMatch(/module 'left-pad' is not available/);
  }, 30000);
});
