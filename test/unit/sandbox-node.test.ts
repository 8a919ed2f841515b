// Node built-ins inside the isolate and positions in the user's source, through the real
// runtime (worker processes, isolates, compileSource). Needs `npm run build` first
// (dist/runtime/worker.js and the bundle dist/sandbox/node-builtins.js).
import crypto from 'node:crypto';
import path from 'node:path';
import querystring from 'node:querystring';
import { StringDecoder } from 'node:string_decoder';
import url from 'node:url';
import util from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSource } from '../../src/runtime/compile.js';
import { SANDBOX_MODULES, unavailableModules } from '../../src/runtime/node-builtins.js';
import { createRuntime, type Runtime } from '../../src/runtime/pool.js';
import type { DeployedFunction, InvokeOutcome } from '../../src/runtime/types.js';
import { InvalidCodeError } from '../../src/errors.js';

let rt: Runtime;
beforeAll(() => {
  rt = createRuntime({ workers: 1, allowPrivateTargets: false });
});
afterAll(async () => {
  await rt.close(1000);
});

let seq = 0;
async function fn(code: string, runtime: 'javascript' | 'typescript' = 'javascript', name = `node-${++seq}`): Promise<DeployedFunction> {
  const { compiled } = await compileSource(code, runtime, name);
  return { name, version: 1, compiled, env: {}, timeoutMs: 5000, memoryMb: 64, handler: null };
}
const call = (f: DeployedFunction, event: unknown = {}) => rt.invoke(f, JSON.stringify(event), 'req_node');
function ok(out: InvokeOutcome): any {
  if (!out.ok) throw new Error(`expected ok, got ${out.error.code}: ${out.error.message}`);
  return out.result;
}
async function run(code: string, event: unknown = {}): Promise<any> {
  return ok(await call(await fn(code), event));
}

describe('sandbox modules: loading', () => {
  it('loads every module with require and import, with and without node:', async () => {
    const names = SANDBOX_MODULES as readonly string[];
    const code = `
      import * as a from 'assert';
      import * as b from 'node:buffer';
      exports.handler = () => {
        const names = ${JSON.stringify(names)};
        const out = {};
        for (const n of names) {
          const plain = require(n), prefixed = require('node:' + n);
          out[n] = { same: plain === prefixed, type: typeof plain };
        }
        out.esm = typeof a.deepStrictEqual === 'function' && typeof b.Buffer === 'function';
        return out;
      };`;
    const out = await run(code);
    expect(out.esm).toBe(true);
    for (const n of names) expect(out[n], n).toMatchObject({ same: true });
    expect(out.events.type).toBe('function');
    expect(out.assert.type).toBe('function');
    expect(out.crypto.type).toBe('object');
  });

  it('gives ESM named and default imports and TypeScript imports the same modules', async () => {
    const ts = await fn(
      `import { createHash } from 'node:crypto';
import EventEmitter, { once } from 'events';
import * as path from 'path';
export async function handler(): Promise<string[]> {
  const e = new EventEmitter();
  setTimeout(() => e.emit('ready', 42), 1);
  const [v] = await once(e, 'ready');
  return [createHash('sha1').update('x').digest('hex'), String(v), path.join('/a', 'b')];
}`,
      'typescript',
    );
    expect(ok(await call(ts))).toEqual([crypto.createHash('sha1').update('x').digest('hex'), '42', '/a/b']);
  });

  it('lets a dynamic require of a built-in work, loads the inert ones, and names the module it refuses when loaded', async () => {
    const inert = await run(`exports.handler = (e) => { const cp = require(e.name); try { cp.execSync('ls'); } catch (err) { return [typeof cp.spawn, err.code]; } };`, {
      name: 'child_' + 'process',
    });
    expect(inert).toEqual(['function', 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM']);
    const out = await call(await fn(`exports.handler = (e) => require(e.bad);`), { bad: 'node:no-such-module' });
    expect(!out.ok && out.error.code).toBe('function_error');
    expect(!out.ok && out.error.message).toContain("module 'node:no-such-module' is not a Node built-in the function sandbox knows");
    const pkg = await call(await fn(`exports.handler = (e) => require(e.name);`), { name: 'left-pad' });
    expect(!pkg.ok && pkg.error.message).toContain("module 'left-pad' is not available");
    expect(!pkg.ok && pkg.error.message).toContain('bundled into its code');
  });

  it('compiles every import, noting in the code those that will throw if used; a missing one throws when the code loads it', async () => {
    const cases: Array<[string, string[]]> = [
      [`const x = 1;\nconst fs = require('fs');`, ['fs']],
      [`\n\nimport { exec } from 'node:child_process';`, ['child_process']],
      [`import { v4 } from 'uuid';`, ['uuid']],
      [`const h = require('./helpers');`, ['./helpers']],
      [`const AWS = require('aws-sdk'); const z = require('zlib');`, ['aws-sdk']],
      [`const z = require('node:zlib'); const s = require('stream');`, []],
    ];
    for (const [code, unavailable] of cases) {
      const { compiled } = await compileSource(code, 'javascript', 'imports');
      expect(unavailableModules(compiled), code).toEqual(unavailable);
    }
    const top = await call(await fn(`const AWS = require('aws-sdk');\nexports.handler = () => 1;`));
    expect(!top.ok && top.error.message).toContain("module 'aws-sdk' is not available in the function sandbox");
  });

  it("drops a TypeScript import of 'aws-lambda' used only for types, in both spellings, and keeps one used as a value", async () => {
    for (const code of [
      `import { APIGatewayProxyHandler, Context } from 'aws-lambda';\nexport const handler: APIGatewayProxyHandler = async (e, c: Context) => ({ statusCode: 200, body: c.functionName });`,
      `import type { APIGatewayProxyEvent } from 'aws-lambda';\nexport const handler = async (e: APIGatewayProxyEvent) => ({ statusCode: 200, body: e.path });`,
    ]) {
      const { compiled } = await compileSource(code, 'typescript', 'typed');
      expect(compiled, code).not.toContain('aws-lambda');
    }
    const { compiled } = await compileSource(`import { Handler } from 'aws-lambda';\nexport const handler = Handler;`, 'typescript', 'valued');
    expect(unavailableModules(compiled)).toEqual(['aws-lambda']);
  });
});

describe('sandbox modules: crypto', () => {
  it('matches node for SHA and HMAC digests in hex, base64 and bytes', async () => {
    const body = '{"event":"order.paid","amount":1999,"note":"ünïcødé"}';
    const out = await run(
      `const crypto = require('crypto');
      exports.handler = (e) => ({
        sha256: crypto.createHash('sha256').update(e.body.slice(0, 10)).update(e.body.slice(10)).digest('hex'),
        sha1b64: crypto.createHash('sha1').update(e.body).digest('base64'),
        md5: crypto.createHash('md5').update(e.body).digest('hex'),
        sha512: crypto.createHash('sha512').update(Buffer.from(e.body)).digest('base64url'),
        hmac: crypto.createHmac('sha256', e.key).update(e.body).digest('hex'),
        hmacB64: crypto.createHmac('sha256', Buffer.from(e.key)).update(e.body, 'utf8').digest('base64'),
        hmacBytes: Array.from(crypto.createHmac('sha384', e.key).update(e.body).digest()).slice(0, 8),
        hash: crypto.hash('sha256', 'abc'),
      });`,
      { body, key: 'whsec_test' },
    );
    expect(out).toEqual({
      sha256: crypto.createHash('sha256').update(body).digest('hex'),
      sha1b64: crypto.createHash('sha1').update(body).digest('base64'),
      md5: crypto.createHash('md5').update(body).digest('hex'),
      sha512: crypto.createHash('sha512').update(body).digest('base64url'),
      hmac: crypto.createHmac('sha256', 'whsec_test').update(body).digest('hex'),
      hmacB64: crypto.createHmac('sha256', 'whsec_test').update(body).digest('base64'),
      hmacBytes: [...crypto.createHmac('sha384', 'whsec_test').update(body).digest().subarray(0, 8)],
      hash: crypto.createHash('sha256').update('abc').digest('hex'),
    });
  });

  it('has randomBytes, randomUUID, randomInt, timingSafeEqual and webcrypto, and refuses the rest clearly', async () => {
    const out = await run(`const c = require('node:crypto');
      exports.handler = () => {
        let unequal, cipher, finalized;
        try { c.timingSafeEqual(Buffer.from('a'), Buffer.from('ab')); } catch (e) { unequal = e.code; }
        try { c.createCipheriv('aes-256-gcm', Buffer.alloc(32), Buffer.alloc(12)); } catch (e) { cipher = e.message; }
        const h = c.createHash('sha256'); h.digest();
        try { h.update('x'); } catch (e) { finalized = e.code; }
        const r = c.randomBytes(16);
        return { len: r.length, isBuffer: Buffer.isBuffer(r), hex: r.toString('hex').length, uuid: c.randomUUID(),
          int: c.randomInt(10, 12), same: c.timingSafeEqual(Buffer.from('abc'), Buffer.from('abc')),
          differ: c.timingSafeEqual(Buffer.from('abc'), Buffer.from('abd')), unequal, cipher, finalized,
          subtle: typeof c.webcrypto.subtle.digest, values: c.getRandomValues(new Uint8Array(4)).length };
      };`);
    expect(out).toMatchObject({ len: 16, isBuffer: true, hex: 32, same: true, differ: false, subtle: 'function', values: 4 });
    expect(out.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([10, 11]).toContain(out.int);
    expect(out.unequal).toBe('ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH');
    expect(out.cipher).toContain('crypto.createCipheriv is not available in the function sandbox');
    expect(out.finalized).toBe('ERR_CRYPTO_HASH_FINALIZED');
  });
});

describe('sandbox modules: crypto signatures', () => {
  it('signs and verifies with RSA (PKCS#1 v1.5 and PSS), ECDSA and Ed25519 keys as Node does, keys shown as Node shows them', async () => {
    const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const ed = crypto.generateKeyPairSync('ed25519');
    const pem = (k: crypto.KeyObject) => k.export({ format: 'pem', type: k.type === 'private' ? 'pkcs8' : 'spki' }) as string;
    const data = 'header.payload';
    const out = await run(
      `const c = require('crypto');
      exports.handler = (e) => {
        const rsaKey = c.createPrivateKey(e.rsa);
        const rsaPub = c.createPublicKey(rsaKey);
        const pkcs1 = c.createSign('RSA-SHA256').update(e.data).sign(rsaKey, 'base64');
        const pss = c.sign('sha256', Buffer.from(e.data), { key: e.rsa, padding: c.constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }).toString('base64');
        const es = c.createSign('SHA256').update(e.data).sign({ key: e.ec, dsaEncoding: 'ieee-p1363' }).toString('base64');
        const eddsa = c.sign(null, Buffer.from(e.data), e.ed).toString('base64');
        return {
          pkcs1, pss, es, eddsa,
          hostPkcs1: c.createVerify('RSA-SHA256').update(e.data).verify(e.rsaPub, e.hostPkcs1, 'base64'),
          tampered: c.createVerify('RSA-SHA256').update(e.data + 'x').verify(rsaPub, pkcs1, 'base64'),
          shown: [rsaKey instanceof c.KeyObject, rsaKey.type, rsaKey.asymmetricKeyType, rsaKey.asymmetricKeyDetails.modulusLength,
            typeof rsaKey.asymmetricKeyDetails.publicExponent, rsaPub.type, c.createPublicKey(e.ec).asymmetricKeyDetails.namedCurve,
            c.createSecretKey(Buffer.from('k')) instanceof c.KeyObject],
          jwk: c.createPublicKey(e.ed).export({ format: 'jwk' }).crv,
          bad: (() => { try { c.createPrivateKey('not a key'); } catch (err) { return typeof err.code; } })(),
        };
      };`,
      {
        data,
        rsa: pem(rsa.privateKey),
        rsaPub: pem(rsa.publicKey),
        ec: pem(ec.privateKey),
        ed: pem(ed.privateKey),
        hostPkcs1: crypto.createSign('RSA-SHA256').update(data).sign(rsa.privateKey, 'base64'),
      },
    );
    // PKCS#1 v1.5 and Ed25519 are deterministic: the same bytes as the host's.
    expect(out.pkcs1).toBe(crypto.createSign('RSA-SHA256').update(data).sign(rsa.privateKey, 'base64'));
    expect(out.eddsa).toBe(crypto.sign(null, Buffer.from(data), ed.privateKey).toString('base64'));
    expect(crypto.verify('sha256', Buffer.from(data), { key: rsa.publicKey, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }, Buffer.from(out.pss, 'base64'))).toBe(true);
    expect(crypto.verify('sha256', Buffer.from(data), { key: ec.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(out.es, 'base64'))).toBe(true);
    expect(out).toMatchObject({ hostPkcs1: true, tampered: false, shown: [true, 'private', 'rsa', 2048, 'bigint', 'public', 'prime256v1', true], jwk: 'Ed25519', bad: 'string' });
  });
});

describe('sandbox modules: buffer, util, events, path, querystring, url, string_decoder, assert', () => {
  it('round-trips Buffers like node', async () => {
    const out = await run(`exports.handler = () => {
      const b = Buffer.from('héllo wörld', 'utf8');
      const parts = [Buffer.from('ab'), Buffer.from([0xff, 0x00]), Buffer.from('Y2Q=', 'base64')];
      return {
        b64: b.toString('base64'), hex: b.toString('hex'), back: Buffer.from(b.toString('base64'), 'base64').toString('utf8'),
        fromHex: Buffer.from('68656c6c6f', 'hex').toString(), concat: Buffer.concat(parts).toString('hex'),
        equals: Buffer.from('abc').equals(Buffer.from('abc')), notEquals: Buffer.from('abc').equals(Buffer.from('abd')),
        b64url: Buffer.from([251, 255]).toString('base64url'), json: Buffer.from('hi').toJSON(),
        compare: Buffer.compare(Buffer.from('a'), Buffer.from('b')), byteLength: Buffer.byteLength('é'),
        unsafeZeroes: Buffer.allocUnsafe(4096).every((x) => x === 0), required: require('buffer').Buffer === Buffer,
        readUInt32BE: Buffer.from([0, 0, 1, 0]).readUInt32BE(0), latin1: Buffer.from('ÿ', 'latin1')[0],
      };
    };`);
    const b = Buffer.from('héllo wörld');
    expect(out).toEqual({
      b64: b.toString('base64'),
      hex: b.toString('hex'),
      back: 'héllo wörld',
      fromHex: 'hello',
      concat: Buffer.concat([Buffer.from('ab'), Buffer.from([0xff, 0]), Buffer.from('cd')]).toString('hex'),
      equals: true,
      notEquals: false,
      b64url: Buffer.from([251, 255]).toString('base64url'),
      json: { type: 'Buffer', data: [104, 105] },
      compare: -1,
      byteLength: 2,
      unsafeZeroes: true,
      required: true,
      readUInt32BE: 256,
      latin1: 255,
    });
  });

  it('has util.format, inspect, promisify, types and the text codecs', async () => {
    const out = await run(`const util = require('util');
      exports.handler = async () => {
        const wait = util.promisify((ms, cb) => setTimeout(() => cb(null, 'waited ' + ms), ms));
        const fail = util.promisify((cb) => cb(new Error('no')));
        let failed; try { await fail(); } catch (e) { failed = e.message; }
        return {
          format: util.format('%s is %d years and %j', 'Ann', 42, { a: 1 }, 'extra'),
          inspect: util.inspect({ a: [1, { b: 'c' }], d: null }),
          waited: await wait(2), failed,
          types: [util.types.isDate(new Date()), util.types.isPromise(Promise.resolve()), util.types.isRegExp(/x/)],
          codec: new util.TextDecoder().decode(new util.TextEncoder().encode('ü')),
          deep: [util.isDeepStrictEqual({ a: [1] }, { a: [1] }), util.isDeepStrictEqual({ a: 1 }, { a: '1' })],
          typesModule: require('util/types') === util.types,
        };
      };`);
    expect(out).toEqual({
      format: util.format('%s is %d years and %j', 'Ann', 42, { a: 1 }, 'extra'),
      inspect: util.inspect({ a: [1, { b: 'c' }], d: null }),
      waited: 'waited 2',
      failed: 'no',
      types: [true, true, true],
      codec: 'ü',
      deep: [true, false],
      typesModule: true,
    });
  });

  it('has EventEmitter, path, querystring, url, string_decoder and assert as node has them', async () => {
    const out = await run(`const EventEmitter = require('events');
      const path = require('path'), qs = require('querystring'), url = require('url');
      const { StringDecoder } = require('string_decoder');
      const assert = require('assert');
      exports.handler = () => {
        const e = new EventEmitter(); const seen = [];
        e.on('x', (v) => seen.push('on ' + v)); e.once('x', (v) => seen.push('once ' + v));
        e.emit('x', 1); e.emit('x', 2);
        const d = new StringDecoder('utf8'); const euro = Buffer.from('€');
        let assertion;
        try { assert.deepStrictEqual({ a: 1 }, { a: 2 }); } catch (err) { assertion = [err.name, err.code]; }
        const parsed = url.parse('https://user:pw@example.com:8080/p/a/t/h?query=string&a=1#hash', true);
        return {
          seen, count: e.listenerCount('x'), isClass: EventEmitter.EventEmitter === EventEmitter,
          join: path.join('/foo', 'bar', 'baz/asdf', 'quux', '..'), base: path.basename('/a/b/c.txt', '.txt'),
          ext: path.extname('x.tar.gz'), resolve: path.resolve('a', '../b'), rel: path.relative('/a/b', '/a/c/d'), posix: path.posix === path,
          qsParse: qs.parse('a=1&b=2&a=3&c=%20x'), qsString: qs.stringify({ w: 'a b', n: [1, 2] }),
          host: parsed.host, pathname: parsed.pathname, query: parsed.query, auth: parsed.auth, hash: parsed.hash,
          format: url.format({ protocol: 'https', hostname: 'x.test', pathname: '/p', query: { a: 1 } }),
          whatwg: new url.URL('/x?y=1', 'https://a.test').href, sameUrl: url.URL === URL,
          decoded: d.write(euro.subarray(0, 1)) + '|' + d.write(euro.subarray(1)) + d.end(),
          assertion, okThrows: (() => { try { assert.ok(false, 'nope'); } catch (err) { return err.message; } })(),
        };
      };`);
    const parsed = url.parse('https://user:pw@example.com:8080/p/a/t/h?query=string&a=1#hash', true);
    expect(out).toEqual({
      seen: ['on 1', 'once 1', 'on 2'],
      count: 1,
      isClass: true,
      join: path.posix.join('/foo', 'bar', 'baz/asdf', 'quux', '..'),
      base: 'c',
      ext: '.gz',
      resolve: '/b',
      rel: path.posix.relative('/a/b', '/a/c/d'),
      posix: true,
      qsParse: { ...querystring.parse('a=1&b=2&a=3&c=%20x') },
      qsString: querystring.stringify({ w: 'a b', n: [1, 2] }),
      host: parsed.host,
      pathname: parsed.pathname,
      query: { ...parsed.query },
      auth: parsed.auth,
      hash: parsed.hash,
      format: url.format({ protocol: 'https', hostname: 'x.test', pathname: '/p', query: { a: 1 } }),
      whatwg: 'https://a.test/x?y=1',
      sameUrl: true,
      decoded: '|€',
      assertion: ['AssertionError', 'ERR_ASSERTION'],
      okThrows: 'nope',
    });
    expect(new StringDecoder('utf8').write(Buffer.from('€'))).toBe('€');
  });

  it("keeps the modules' globals as they were before user code ran", async () => {
    const out = await run(`globalThis.URL = function Fake() {}; globalThis.crypto = null;
      exports.handler = () => ({ url: new (require('url').URL)('https://a.test/').host, uuid: require('crypto').randomUUID().length });`);
    expect(out).toEqual({ url: 'a.test', uuid: 36 });
  });
});

describe('positions in the user source', () => {
  it('reports a TypeScript throw on its line 5, in the message, err.stack and logs', async () => {
    const f = await fn(
      `interface Order { id: string }
type Answer = { statusCode: number };

export async function handler(event: Order): Promise<Answer> {
  console.error(new Error('logged'));  throw new Error('bad order ' + event.id);
}`,
      'typescript',
      'orders-get',
    );
    const out = await call(f, { id: 'o1' });
    expect(!out.ok && out.error.message).toBe('Error: bad order o1 (orders-get.ts, line 5, column 46)');
    expect(out.logs[0].message).toMatch(/^Error: logged\n {4}at handler \(orders-get\.ts:5:17\)/);
  });

  it('reports an ES module throw on line 6 after an import on line 4, and err.stack inside the isolate agrees', async () => {
    const f = await fn(
      `// a comment
const prefix = 'v';

import { createHash } from 'crypto';
export const handler = async () => {
  try { null.x; } catch (e) { return { stack: e.stack, hash: createHash('md5').update(prefix).digest('hex') }; }
};`,
      'javascript',
      'esm-stack',
    );
    const out = ok(await call(f));
    expect(out.stack.split('\n').slice(0, 2)).toEqual([
      "TypeError: Cannot read properties of null (reading 'x')",
      '    at handler (esm-stack.js:6:14)',
    ]);
    const thrower = await fn(`const a = 1;\n\n\nimport { createHash } from 'crypto';\nexport async function handler() {\n  throw new RangeError(createHash('sha1').update('').digest('hex').slice(0, 4));\n}`, 'javascript', 'esm-throw');
    const thrown = await call(thrower);
    expect(!thrown.ok && thrown.error.message).toBe('RangeError: da39 (esm-throw.js, line 6, column 9)');
  });

  it('reports syntax errors and top-level throws at deploy with the user line, once', async () => {
    const syntax = await compileSource('const a = 1;\n\nexport const handler = () => {\n  let x = ;\n};', 'javascript', 'syn').catch((e: unknown) => e);
    expect((syntax as InvalidCodeError).details).toEqual({ line: 4, column: 11 });
    expect((syntax as InvalidCodeError).message).toBe('code: Unexpected ";" (syn.js, line 4, column 11)');

    const top = await rt.validate((await compileSource(`import { join } from 'path';\nconst x = join('a');\n\nnull.boom;\nexport const handler = () => x;`, 'javascript', 'top')).compiled, {
      timeoutMs: 1000,
      memoryMb: 32,
      env: {},
    });
    expect(top).toEqual({ ok: false, message: "top-level code threw TypeError: Cannot read properties of null (reading 'boom')", line: 4, column: 6 });
  });

  it('maps an error only V8 finds (esbuild passes the code) back to the user line', async () => {
    const code = `import { join } from 'path';\n\nexport const handler = () => {\n  return /(?<a>x)(?<a>y)/.test(join('a'));\n};`;
    const out = await rt.validate((await compileSource(code, 'javascript', 'regex')).compiled, { timeoutMs: 1000, memoryMb: 32, env: {} });
    expect(out).toEqual({ ok: false, message: expect.stringContaining('Duplicate capture group name'), line: 4, column: 10 });
  });
});
