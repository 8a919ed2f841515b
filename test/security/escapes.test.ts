/**
 * Sandbox escape attempts, black box over real HTTP: a deployed function
 * tries to reach the host through constructor chains (from every global and
 * from every object the sandbox's own APIs hand out), through V8's stack-trace
 * hooks and through `caller`; it pollutes builtins and checks another
 * function cannot see it; it looks for the host's environment and module
 * system. These hold today; the suite keeps them holding.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerIndexFor } from '../../src/runtime/pool.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';

const KEY = 'admin-key-the-sandbox-must-not-see';
const AUTH = { authorization: `Bearer ${KEY}` };

let svc: RunningService;
let receiver: Receiver;

async function deploy(name: string, code: string, extra: Record<string, unknown> = {}) {
  const res = await svc.request('POST', '/api/functions', { name, code, ...extra }, AUTH);
  expect(res.status, `${name}: ${res.text}`).toBe(201);
}

/** Runs a function through the management invoke endpoint; returns its result (status 200 expected). */
async function run(name: string, event: unknown = {}): Promise<any> {
  const res = await svc.request('POST', `/api/functions/${name}/invoke`, event, AUTH);
  expect(res.status, res.text).toBe(200);
  expect(res.json.error, `${name}: ${JSON.stringify(res.json.error)}`).toBeNull();
  return res.json.result.body;
}

/**
 * In-isolate probe: walks everything reachable from the given roots (own
 * properties by descriptor, so no getter runs, and prototypes) and, for every
 * object, checks its realm and tries the constructor chain to a global and a
 * `process`. Findings are strings; an empty list means nothing escaped.
 */
const PROBE = String.raw`
function probe(roots) {
  const findings = [];
  const seen = new Set();
  const queue = roots.slice();
  const realmRoots = new Set([Object.prototype, null]);
  const ctorKinds = new Set();
  const knownCtors = [Function, (async function () {}).constructor, (function* () {}).constructor, (async function* () {}).constructor];
  let visited = 0;
  while (queue.length > 0 && visited < 20000) {
    const x = queue.shift();
    if (x === null || (typeof x !== 'object' && typeof x !== 'function') || seen.has(x)) continue;
    seen.add(x);
    visited++;
    // Every object must belong to this isolate's realm: its prototype chain ends at our Object.prototype.
    let p = x;
    for (let i = 0; i < 100 && p !== null; i++) p = Object.getPrototypeOf(p);
    if (!(x === Object.prototype || realmRoots.has(p))) findings.push('foreign realm object: ' + Object.prototype.toString.call(x));
    if (typeof x === 'function') {
      const F = Object.getPrototypeOf(x) && Object.getPrototypeOf(x).constructor;
      if (typeof F === 'function') {
        ctorKinds.add(F.name);
        try {
          const body = F.name.startsWith('Async') ? 'return 1' : 'return this';
          const made = F(body);
          if (F === Function) {
            const g = made();
            if (g !== globalThis) findings.push('a Function constructor with another global: ' + typeof g);
          }
        } catch (e) { /* refusing is fine */ }
      }
    }
    try {
      // The classic chain: x.constructor.constructor('return process')().
      const C = x.constructor && x.constructor.constructor;
      if (typeof C === 'function' && !knownCtors.includes(C)) findings.push('an unknown constructor: ' + C.name);
      if (C === Function) {
        let proc = null;
        try { proc = C('return typeof process === "undefined" ? null : process')(); } catch (e) { proc = null; }
        if (proc !== null && proc !== globalThis.process) findings.push('another process object');
      }
    } catch (e) { /* a throwing getter on constructor: no escape */ }
    queue.push(Object.getPrototypeOf(x));
    let keys = [];
    try { keys = Reflect.ownKeys(x); } catch (e) { keys = []; }
    for (const k of keys) {
      let d;
      try { d = Object.getOwnPropertyDescriptor(x, k); } catch (e) { continue; }
      if (!d) continue;
      if ('value' in d) queue.push(d.value);
      if (d.get) queue.push(d.get);
      if (d.set) queue.push(d.set);
    }
  }
  return { findings, visited, ctorKinds: [...ctorKinds].sort() };
}
`;

beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startService({
    env: { SWITCHYARD_ADMIN_KEY: KEY, SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1', HOST_ONLY_SECRET: 'host-secret-value' },
  });
}, 30000);

afterAll(async () => {
  await Promise.all([svc?.stop(), receiver?.close()]);
});

describe('constructor chains', () => {
  it('from every global and everything reachable from it lead only back into the sandbox', async () => {
    await deploy(
      'chains-globals',
      `${PROBE}
      exports.handler = async function () {
        const names = Object.getOwnPropertyNames(globalThis);
        const result = probe([globalThis, ...names.map((n) => { try { return globalThis[n]; } catch (e) { return null; } })]);
        return { statusCode: 200, body: { ...result, names } };
      };`,
    );
    const out = await run('chains-globals');
    expect(out.findings).toEqual([]);
    expect(out.visited).toBeGreaterThan(500);
    expect(out.ctorKinds).toContain('Function');
    // setImmediate is the sandbox's own (isolate/sandbox/timers.js), walked above like every global.
    for (const hostName of ['require', 'module', 'exports', 'global', 'ivm', '_ivm', '__dirname', '__filename']) {
      expect(out.names, hostName).not.toContain(hostName);
    }
    // Node's Buffer is a global, built in the isolate (walked above like every other global).
    expect(out.names).toContain('Buffer');
  });

  it('from every Node built-in module and what it returns lead only back into the sandbox', async () => {
    await deploy(
      'chains-node-modules',
      `${PROBE}
      const names = ['assert', 'buffer', 'crypto', 'events', 'path', 'querystring', 'string_decoder', 'url', 'util'];
      exports.handler = async function () {
        const crypto = require('node:crypto');
        const mods = names.map((n) => require(n));
        const made = [crypto.createHash('sha256').update('x'), crypto.createHmac('sha256', 'k'), crypto.randomBytes(8),
          crypto.createHash('md5').update('y').digest(), crypto.createSecretKey(Buffer.from('k')), new (require('events'))(),
          require('url').parse('https://a.test/x?y=1', true), new (require('string_decoder').StringDecoder)('utf8'),
          require('util').promisify((cb) => cb(null, 1)), Buffer.from('abc'), require('util').inspect];
        let assertion = null;
        try { require('assert').deepStrictEqual({ a: 1 }, { a: 2 }); } catch (e) { assertion = e; }
        const result = probe([require, ...mods, ...made, assertion]);
        return { statusCode: 200, body: result };
      };`,
    );
    const out = await run('chains-node-modules');
    expect(out.findings).toEqual([]);
    expect(out.visited).toBeGreaterThan(300);
  });

  it('from the objects fetch, crypto, URL, TextEncoder, timers and structuredClone return lead only back into the sandbox', async () => {
    await deploy(
      'chains-returned',
      `${PROBE}
      exports.handler = async function (event, context) {
        const res = await fetch(${JSON.stringify(receiver.url + '/probe')});
        const text = await res.clone().text();
        const json = await res.json();
        let refused = null;
        try { await fetch('ftp://example.com/x'); } catch (e) { refused = e; }
        const bytes = new TextEncoder().encode('héllo');
        const digest = await crypto.subtle.digest('SHA-256', bytes);
        const random = crypto.getRandomValues(new Uint8Array(8));
        const url = new URL('https://user:pw@example.com:8443/a/b?c=d#e');
        let badUrl = null;
        try { new URL('not a url'); } catch (e) { badUrl = e; }
        const timer = setTimeout(() => {}, 1000);
        clearTimeout(timer);
        const interval = setInterval(() => {}, 1000);
        clearInterval(interval);
        const cloned = structuredClone({ m: new Map([[1, { d: new Date(0) }]]), s: new Set([1]), u: new Uint8Array(2) });
        const roots = [res, res.headers, text, json, refused, bytes, new TextDecoder(), digest, random, url, url.searchParams,
          badUrl, timer, interval, cloned, event, context, this, arguments, atob('eA=='), btoa('x'), crypto.randomUUID(),
          console, Promise.resolve(1), new Response('x'), new Headers({ a: 'b' }), new Request('https://example.com/')];
        const r = probe(roots.filter((v) => v !== undefined));
        let viaThis = 'none';
        try { viaThis = typeof this.constructor.constructor('return process')().pid; } catch (e) { viaThis = 'threw'; }
        const procs = [res, url, bytes, digest, refused, json].map((o) => {
          try { return Object.keys(o.constructor.constructor('return process')()); } catch (e) { return 'threw'; }
        });
        return { statusCode: 200, body: { ...r, viaThis, procs, fetched: typeof res.status } };
      };`,
    );
    const out = await run('chains-returned');
    expect(out.findings).toEqual([]);
    expect(out.fetched).toBe('number');
    expect(['undefined', 'threw', 'none']).toContain(out.viaThis);
    for (const keys of out.procs) expect(keys).toEqual(['env']);
    expect(receiver.requests.some((r) => r.url === '/probe')).toBe(true);
  });

  it('through Function, AsyncFunction, GeneratorFunction and AsyncGeneratorFunction constructors find no host', async () => {
    await deploy(
      'chains-ctors',
      `exports.handler = async function () {
        const kinds = {
          Function: function () {}.constructor,
          AsyncFunction: (async function () {}).constructor,
          GeneratorFunction: (function* () {}).constructor,
          AsyncGeneratorFunction: (async function* () {}).constructor,
        };
        const body = 'return [typeof process === "undefined" ? null : Object.keys(process), typeof require, typeof module, typeof global, this === undefined ? "undefined" : this === globalThis ? "global" : typeof this]';
        const out = {};
        for (const [name, K] of Object.entries(kinds)) {
          const f = K(body);
          let r = f();
          if (name === 'AsyncFunction') r = await r;
          else if (name === 'GeneratorFunction') r = r.next().value;
          else if (name === 'AsyncGeneratorFunction') r = (await r.next()).value;
          out[name] = r;
        }
        out.bound = Function.prototype.bind.call(kinds.Function, null, 'return typeof process.binding')()();
        return { statusCode: 200, body: out };
      };`,
    );
    const out = await run('chains-ctors');
    for (const name of ['Function', 'AsyncFunction', 'GeneratorFunction', 'AsyncGeneratorFunction']) {
      expect(out[name], name).toEqual([['env'], 'undefined', 'undefined', 'undefined', 'global']);
    }
    expect(out.bound).toBe('undefined');
  });
});

describe('stack-trace hooks and caller', () => {
  it('Error.prepareStackTrace and captureStackTrace see only sandbox frames, no host functions, receivers or paths', async () => {
    await deploy(
      'stack-hooks',
      `${PROBE}
      exports.handler = async function () {
        const frames = [];
        const grabbed = [];
        Error.stackTraceLimit = Infinity;
        Error.prepareStackTrace = (err, callsites) => {
          for (const c of callsites) {
            let fn, self;
            try { fn = c.getFunction(); } catch (e) { fn = undefined; }
            try { self = c.getThis(); } catch (e) { self = undefined; }
            if (fn !== undefined) grabbed.push(fn);
            if (self !== undefined && self !== null && typeof self === 'object') grabbed.push(self);
            frames.push(String(c.getFileName()) + ' ' + String(c.getTypeName()) + ' ' + String(c.getFunctionName()));
          }
          return 'prepared';
        };
        const stacks = [];
        // From inside the sandbox's own machinery: timers, promise jobs, fetch completion, URL parsing, crypto.
        await new Promise((resolve) => setTimeout(() => { stacks.push(new Error('timer').stack); resolve(); }, 1));
        await Promise.resolve().then(() => stacks.push(new Error('then').stack));
        await fetch(${JSON.stringify(receiver.url + '/stack')}).then((r) => { stacks.push(new Error('fetch').stack); return r.text(); });
        try { new URL('::'); } catch (e) { stacks.push(e.stack); }
        await crypto.subtle.digest('SHA-256', new Uint8Array(1)).then(() => stacks.push(new Error('digest').stack));
        [3, 1, 2].sort((a, b) => { stacks.push(new Error('sort').stack); return a - b; });
        JSON.parse('{"a":1}', function (k, v) { stacks.push(new Error('reviver').stack); return v; });
        const holder = {};
        Error.captureStackTrace(holder);
        stacks.push(holder.stack);
        Error.prepareStackTrace = undefined;
        const plain = {};
        Error.captureStackTrace(plain);
        const r = probe(grabbed);
        return { statusCode: 200, body: { frames, stacks, plain: plain.stack, findings: r.findings, grabbed: grabbed.length } };
      };`,
    );
    const out = await run('stack-hooks');
    expect(out.findings).toEqual([]);
    expect(out.stacks.every((s: string) => s === 'prepared')).toBe(true);
    expect(out.frames.length).toBeGreaterThan(5);
    const text = JSON.stringify([out.frames, out.plain]);
    // Frames are the function's own file and the sandbox bootstrap; never a file of the host.
    for (const hostMark of ['node:', 'file:', '/dist/', '/src/', '/work', 'node_modules', 'isolated-vm', 'worker.js', 'isolate-host']) {
      expect(text, hostMark).not.toContain(hostMark);
    }
  });

  it('a sloppy callback called by the sandbox machinery gets no caller to climb', async () => {
    await deploy(
      'callers',
      `exports.handler = async function () {
        const seen = {};
        function record(name) { return function sloppy() { const c = sloppy.caller; seen[name] = c === null ? null : typeof c; }; }
        await new Promise((resolve) => setTimeout(() => { record('timer')(); resolve(); }, 1));
        const t = record('timeout'); await new Promise((resolve) => setTimeout(function () { t(); resolve(); }, 1));
        const direct = {};
        await new Promise((resolve) => setTimeout(function cb() { direct.timer = cb.caller === null ? null : typeof cb.caller; resolve(); }, 1));
        await Promise.resolve().then(function cb() { direct.then = cb.caller === null ? null : typeof cb.caller; });
        await fetch(${JSON.stringify(receiver.url + '/caller')}).then(function cb(r) { direct.fetch = cb.caller === null ? null : typeof cb.caller; return r.text(); });
        return { statusCode: 200, body: direct };
      };`,
    );
    const out = await run('callers');
    expect(out).toEqual({ timer: null, then: null, fetch: null });
  });
});

describe('pollution across functions', () => {
  it("one function's changes to builtins and prototypes are invisible to others, on its worker and the other", async () => {
    const idx = (n: string) => workerIndexFor(n, 2);
    const polluter = 'polluter';
    const sameWorker = ['neighbour-0', 'neighbour-1', 'neighbour-2', 'neighbour-3', 'neighbour-4', 'neighbour-5'].find(
      (n) => idx(n) === idx(polluter),
    )!;
    const otherWorker = ['stranger-0', 'stranger-1', 'stranger-2', 'stranger-3', 'stranger-4', 'stranger-5'].find(
      (n) => idx(n) !== idx(polluter),
    )!;
    await deploy(
      polluter,
      `exports.handler = async () => {
        Object.prototype.polluted = 'yes';
        Array.prototype.polluted = 'yes';
        Object.defineProperty(Object.prototype, 'isAdmin', { value: true, writable: true, configurable: true });
        String.prototype.toUpperCase = () => 'PWNED';
        Math.random = () => 4;
        Date.now = () => 0;
        globalThis.sharedSecret = 'from-polluter';
        Error.prepareStackTrace = () => 'polluted-stack';
        Object.freeze(Array.prototype);
        return { statusCode: 200, body: { polluted: ({}).polluted, upper: 'a'.toUpperCase() } };
      };`,
    );
    const inspector = `exports.handler = async () => {
      const e = new Error('x');
      return { statusCode: 200, body: {
        polluted: ({}).polluted ?? null, arrayPolluted: [].polluted ?? null, isAdmin: ({}).isAdmin ?? null,
        upper: 'a'.toUpperCase(), random: Math.random() < 1, now: Date.now() > 0, shared: globalThis.sharedSecret ?? null,
        stack: typeof e.stack === 'string' && e.stack.startsWith('Error: x'), arrayFrozen: Object.isFrozen(Array.prototype),
      } };
    };`;
    await deploy(sameWorker, inspector);
    await deploy(otherWorker, inspector);

    expect(await run(polluter)).toEqual({ polluted: 'yes', upper: 'PWNED' });
    const clean = {
      polluted: null,
      arrayPolluted: null,
      isAdmin: null,
      upper: 'A',
      random: true,
      now: true,
      shared: null,
      stack: true,
      arrayFrozen: false,
    };
    expect(await run(sameWorker)).toEqual(clean);
    expect(await run(otherWorker)).toEqual(clean);
    // Running the polluter again (its isolate is warm and still polluted) changes nothing for the others.
    await run(polluter);
    const [a, b] = await Promise.all([run(sameWorker), run(otherWorker)]);
    expect(a).toEqual(clean);
    expect(b).toEqual(clean);
  });

  it('a function returning __proto__ and constructor keys pollutes nothing in the gateway', async () => {
    await deploy(
      'proto-result',
      `exports.handler = async () => JSON.parse('{"statusCode":200,"headers":{"__proto__":{"x-polluted":"yes"},"x-own":"1"},"body":{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"isAdmin":true}}}}');`,
    );
    await deploy('plain-after', `exports.handler = async () => ({ statusCode: 200, body: { ok: true } });`);
    const api = await svc.request(
      'POST',
      '/api/apis',
      {
        name: 'proto',
        basePath: '/',
        routes: [
          { method: 'GET', path: '/proto', function: 'proto-result' },
          { method: 'GET', path: '/plain', function: 'plain-after' },
        ],
      },
      AUTH,
    );
    expect(api.status, api.text).toBe(201);
    const res = await svc.request('GET', `/api/invoke/fn/${api.json.id}/proto`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-polluted')).toBeNull();
    const after = await svc.request('GET', `/api/invoke/fn/${api.json.id}/plain`);
    expect(after.status).toBe(200);
    expect(after.json).toEqual({ ok: true });
    expect(after.headers.get('x-polluted')).toBeNull();
    const list = await svc.request('GET', '/api/functions', undefined, AUTH);
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('isAdmin');
  });
});

describe('the host environment', () => {
  it('process.env holds only the function`s own env, by every route to a process object', async () => {
    await deploy(
      'env-reader',
      `exports.handler = async function () {
        const seen = [process.env, Function('return process')().env, (async function () {}).constructor('return process')()];
        const texts = [];
        for (const v of seen) texts.push(JSON.stringify(v instanceof Promise ? (await v).env : v));
        texts.push(JSON.stringify(Object.getOwnPropertyNames(globalThis)));
        return { statusCode: 200, body: { env: { ...process.env }, texts } };
      };`,
      { env: { OWN_SETTING: 'mine' } },
    );
    const out = await run('env-reader');
    // And TZ, Lambda's ':UTC' (functions run in UTC), the same for every function.
    expect(out.env).toEqual({ OWN_SETTING: 'mine', TZ: ':UTC' });
    const all = JSON.stringify(out.texts);
    for (const leak of [KEY, 'SWITCHYARD_ADMIN_KEY', 'DATABASE_URL', 'sqlite:', 'HOST_ONLY_SECRET', 'host-secret-value', 'PATH']) {
      expect(all, leak).not.toContain(leak);
    }
  });

  it('offers no host require, module, global, import() or host module objects', async () => {
    await deploy(
      'no-modules',
      `exports.handler = async function () {
        const out = {
          require: typeof require, module: typeof module, global: typeof global, exportsGlobal: typeof globalThis.exports,
          moduleGlobal: typeof globalThis.module, process: Object.keys(process), globalProcess: typeof globalThis.process.binding,
          dlopen: typeof process.dlopen, mainModule: typeof process.mainModule, importMeta: 'n/a',
        };
        for (const spec of ['node:fs', 'fs', 'node:child_process', 'isolated-vm', 'data:text/javascript,export default 1']) {
          try { await import(spec); out[spec] = 'imported'; } catch (e) { out[spec] = 'refused'; }
        }
        try { out.evalRequire = eval('require') === require; } catch (e) { out.evalRequire = 'threw'; }
        // Node's host-only modules load as the sandbox's inert ones: each host function throws when called.
        const use = {
          'isolated-vm': (m) => m, 'node:fs': (m) => m.readFileSync('/etc/hostname'), module: (m) => m.createRequire('/'),
          'node:worker_threads': (m) => new m.Worker('x'), v8: (m) => m.getHeapStatistics(), vm: (m) => m.runInThisContext('1'),
        };
        out.requireHost = Object.keys(use).map((spec) => {
          try { use[spec](require(spec)); return 'ran'; } catch (e) { return e.code; }
        });
        return { statusCode: 200, body: out };
      };`,
    );
    const out = await run('no-modules');
    expect(out).toMatchObject({
      // The module's require is the sandbox's loader of Node built-ins (in the isolate); it has no host modules.
      require: 'function',
      requireHost: ['MODULE_NOT_FOUND', ...Array(5).fill('ERR_FEATURE_UNAVAILABLE_ON_PLATFORM')],
      global: 'undefined',
      exportsGlobal: 'undefined',
      moduleGlobal: 'undefined',
      process: ['env'],
      globalProcess: 'undefined',
      dlopen: 'undefined',
      mainModule: 'undefined',
      'node:fs': 'refused',
      fs: 'refused',
      'node:child_process': 'refused',
      'isolated-vm': 'refused',
      'data:text/javascript,export default 1': 'refused',
    });
    expect(out.evalRequire).toBe(true);
  });
});
