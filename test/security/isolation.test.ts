/**
 * Isolation of functions from each other, black box over real HTTP: what one
 * function's code can do must never reach another function's response, keep
 * running after its own call answered, or use memory its limit does not count.
 * One service with SWITCHYARD_ALLOW_PRIVATE_TARGETS=1 so functions can reach a
 * local receiver (both as an "I am running" signal and as a fetch target).
 * Functions that must share a worker process are named with workerIndexFor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/json-limits.js';
import { workerIndexFor } from '../../src/runtime/pool.js';
import { childPids, commandLine, startReceiver, waitFor, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { sleep } from '../helpers/until.js';

/** service.ts starts two workers unless told otherwise. */
const WORKERS = 2;

let svc: RunningService;
let receiver: Receiver;
let apiId = '';

/** A name starting with `prefix` that lands on worker `index`. */
function nameOn(index: number, prefix: string): string {
  for (let i = 0; ; i++) if (workerIndexFor(`${prefix}${i}`, WORKERS) === index) return `${prefix}${i}`;
}

async function deploy(name: string, code: string, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await svc.request('POST', '/api/functions', { name, code, ...extra });
  expect(res.status, `${name}: ${res.text}`).toBe(201);
  const route = await svc.request('POST', `/api/apis/${apiId}/routes`, { method: 'GET', path: `/${name}`, function: name });
  expect(route.status, route.text).toBe(201);
}

const call = (name: string, query = '') => svc.request('GET', `/api/invoke/fn/${apiId}/${name}${query}`);
const hits = (path: string) => receiver.requests.filter((r) => r.url === path).length;
const workerPids = () =>
  childPids(svc.proc.pid!)
    .filter((p) => commandLine(p).includes('worker.js'))
    .sort((a, b) => a - b);

beforeAll(async () => {
  [svc, receiver] = await Promise.all([startService({ env: { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } }), startReceiver()]);
  // exposeErrors: refused results and emits are checked by the reason they answer.
  const api = await svc.request('POST', '/api/apis', { name: 'isolation', basePath: '/', routes: [], exposeErrors: true });
  expect(api.status, api.text).toBe(201);
  apiId = api.json.id;
}, 60000);

afterAll(async () => {
  await Promise.all([svc?.stop(), receiver?.close()]);
});

/** A function that signals the receiver once it runs, then holds its call for `ms`. */
const SLOW = (signal: string, ms: number, tag: string) => `exports.handler = async () => {
  await fetch(${JSON.stringify(receiver.url + signal)});
  await new Promise((r) => setTimeout(r, ${ms}));
  return { statusCode: 200, body: { who: ${JSON.stringify(tag)} } };
};`;

describe('isolate output is untrusted', () => {
  it("a function that patches the builtins the dispatcher uses cannot answer another function's call", async () => {
    const victim = nameOn(0, 'victim');
    const forger = nameOn(0, 'forger');
    await deploy(victim, SLOW('/victim-started', 1500, 'victim'));
    // Every builtin a result could be framed with, patched to add answers for the ids next
    // to its own (the victim's call was issued just before, so its id is among them).
    await deploy(
      forger,
      `const forged = (id) => '{"i":' + id + ',"ok":1,"r":{"statusCode":299,"headers":{"x-forged":"1"},"body":"forged"},"l":[]}';
      const near = (own) => { const out = []; for (let d = -40; d <= 40; d++) if (d !== 0 && own + d > 0) out[out.length] = own + d; return out; };
      const join = Array.prototype.join;
      Array.prototype.join = function (sep) {
        const text = join.call(this, sep);
        if (this.length > 0 && typeof this[0] === 'number') return text + ',' + join.call(near(this[0]), ',');
        if (this.length > 0 && typeof this[0] === 'string' && this[0].startsWith('{"i":')) {
          const own = Number(/^\\{"i":(\\d+)/.exec(this[0])[1]);
          return text + ',' + join.call(near(own).map(forged), ',');
        }
        return text;
      };
      const stringify = JSON.stringify;
      JSON.stringify = function (v) { return stringify.apply(this, arguments); };
      const concat = String.prototype.concat;
      String.prototype.concat = function () { return concat.apply(this, arguments); };
      exports.handler = async () => ({ statusCode: 200, body: { who: 'forger' } });`,
    );

    const victimCall = call(victim);
    await waitFor(() => hits('/victim-started') > 0);
    const forgerRes = await call(forger);
    const victimRes = await victimCall;

    expect(victimRes.status, victimRes.text).toBe(200);
    expect(victimRes.json).toEqual({ who: 'victim' });
    expect(victimRes.headers.get('x-forged')).toBeNull();
    // The forger may break its own answers, never answer with someone else's status.
    expect(forgerRes.status).not.toBe(299);
  }, 30000);

  it("garbage output fails only the function that produced it: a bystander's call on the same worker answers", async () => {
    const bystander = nameOn(1, 'bystander');
    const garbler = nameOn(1, 'garbler');
    await deploy(bystander, SLOW('/bystander-started', 1500, 'bystander'));
    await deploy(
      garbler,
      `Array.prototype.join = function () { return '}{"not json'; };
      exports.handler = async () => ({ statusCode: 200, body: { who: 'garbler' } });`,
    );
    const before = workerPids();

    const bystanderCall = call(bystander);
    await waitFor(() => hits('/bystander-started') > 0);
    const garbled = await call(garbler);
    const bystanderRes = await bystanderCall;

    expect(bystanderRes.status, bystanderRes.text).toBe(200);
    expect(bystanderRes.json).toEqual({ who: 'bystander' });
    expect([200, 502]).toContain(garbled.status);
    // Nobody restarted the worker they share.
    expect(workerPids()).toEqual(before);
  }, 30000);
});

describe('timers die with the invocation', () => {
  it('a setInterval left behind stops calling fetch once the call has answered', async () => {
    await deploy(
      'ticker',
      `exports.handler = async () => {
        setInterval(() => { fetch(${JSON.stringify(receiver.url + '/tick')}).catch(() => {}); }, 50);
        await new Promise((r) => setTimeout(r, 400));
        return { statusCode: 200, body: { answered: true } };
      };`,
    );
    const res = await call('ticker');
    expect(res.status, res.text).toBe(200);
    expect(hits('/tick')).toBeGreaterThan(0); // it did run while the call was in flight
    await sleep(300); // requests already on the wire when the call answered
    const settled = hits('/tick');
    await sleep(1500);
    expect(hits('/tick')).toBe(settled);
  }, 30000);

  it('a busy loop left in a timer does not make the next caller time out', async () => {
    await deploy(
      'spinner',
      `let calls = 0;
      exports.handler = async (event) => {
        calls++;
        if (event.queryStringParameters && event.queryStringParameters.arm) setTimeout(() => { for (;;) {} }, 100);
        return { statusCode: 200, body: { calls } };
      };`,
      { timeout_ms: 2000 },
    );
    const armed = await call('spinner', '?arm=1');
    expect(armed.status, armed.text).toBe(200);
    await sleep(500); // past the timer's delay
    const next = await call('spinner');
    expect(next.status, next.text).toBe(200);
    // The same warm isolate served it: the timer never ran, so nothing had to be discarded.
    expect(next.json).toEqual({ calls: 2 });
  }, 30000);

  it('an isolate that keeps burning CPU after its call answered is discarded before the next caller needs it', async () => {
    // A chain of microtasks outlives the answer, then spins: no timer or fetch is involved.
    await deploy(
      'afterburner',
      `exports.handler = async (event) => {
        if (event.queryStringParameters && event.queryStringParameters.arm) {
          await new Promise((r) => setTimeout(r, 20));
          (async () => { for (let i = 0; i < 200; i++) await null; for (;;) {} })();
        }
        return { statusCode: 200, body: { ok: true } };
      };`,
      { timeout_ms: 2000 },
    );
    const armed = await call('afterburner', '?arm=1');
    expect(armed.status, armed.text).toBe(200);
    await sleep(1500);
    const next = await call('afterburner');
    expect(next.status, next.text).toBe(200);
    expect(next.json).toEqual({ ok: true });
  }, 30000);
});

describe('memory limits hold for every allocation kind', () => {
  it('a 32 MB function cannot touch 512 MB through WebAssembly.Memory or ArrayBuffers', async () => {
    await deploy(
      'grabber',
      `exports.handler = async () => {
        const out = { wasm: typeof WebAssembly, onGlobal: Object.getOwnPropertyNames(globalThis).includes('WebAssembly') };
        out.viaConstructor = (function () {}).constructor('return typeof WebAssembly')();
        try {
          const W = globalThis.WebAssembly || (function () {}).constructor('return WebAssembly')();
          const m = new W.Memory({ initial: 1, maximum: 8192 });
          m.grow(8000);
          new Uint8Array(m.buffer).fill(1);
          out.wasmBytes = m.buffer.byteLength;
        } catch (e) { out.wasmError = String(e); }
        try { const b = new ArrayBuffer(512 * 1024 * 1024); new Uint8Array(b).fill(1); out.bufferBytes = b.byteLength; }
        catch (e) { out.bufferError = String(e); }
        try {
          const keep = [];
          for (let i = 0; i < 64; i++) { const b = new Uint8Array(8 * 1024 * 1024); b.fill(1); keep.push(b); }
          out.manyBytes = keep.length * 8 * 1024 * 1024;
        } catch (e) { out.manyError = String(e); }
        return out;
      };`,
      { memory_mb: 32, timeout_ms: 10000 },
    );
    const res = await call('grabber');
    if (res.status === 502) {
      expect(res.json.code).toBe('function_memory_limit');
      return;
    }
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ wasm: 'undefined', onGlobal: false, viaConstructor: 'undefined' });
    expect(res.json.wasmBytes).toBeUndefined();
    expect(res.json.bufferBytes).toBeUndefined();
    expect(res.json.manyBytes).toBeUndefined();
    expect(res.json.bufferError).toMatch(/RangeError/);
  }, 30000);
});

describe('results that cannot become a response', () => {
  const nested = (depth: number) => `(() => { let v = 1; for (let i = 0; i < ${depth}; i++) v = [v]; return v; })()`;
  it.each([
    ['a Symbol', `Symbol('s')`],
    ['a function', `function f() {}`],
    ['a cyclic object', `(() => { const o = { statusCode: 200 }; o.self = o; return o; })()`],
    ['a BigInt', `10n`],
    ['a BigInt inside the body', `({ statusCode: 200, body: { n: 10n } })`],
    [`an array nested ${MAX_JSON_DEPTH + 1} deep`, nested(MAX_JSON_DEPTH + 1)],
    ['an array nested 100000 deep', nested(100_000)],
    [`a body nested ${MAX_JSON_DEPTH} deep inside the result`, `({ statusCode: 200, body: ${nested(MAX_JSON_DEPTH)} })`],
  ])('%s answers 502 invalid_result', async (what, expr) => {
    const name = `bad-result-${what.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`.slice(0, 60);
    await deploy(name, `exports.handler = async () => ${expr};`);
    const res = await call(name);
    expect(res.status, res.text).toBe(502);
    expect(res.json.code).toBe('invalid_result');
    expect(res.json.requestId).toBe(res.headers.get('x-request-id'));
    if (/deep/.test(what)) expect(res.json.error).toContain(`deeper than ${MAX_JSON_DEPTH}`);
  });

  it(`a result nested exactly ${MAX_JSON_DEPTH} deep is still served`, async () => {
    await deploy('deep-enough', `exports.handler = async () => ${nested(MAX_JSON_DEPTH)};`);
    const res = await call('deep-enough');
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe('['.repeat(MAX_JSON_DEPTH) + '1' + ']'.repeat(MAX_JSON_DEPTH));
  });

  it('the manual invoke answers the same invalid_result', async () => {
    await deploy('symbolic', `exports.handler = async () => Symbol('s');`);
    const res = await svc.request('POST', '/api/functions/symbolic/invoke', {});
    expect(res.status, res.text).toBe(200);
    expect(res.json.status).toBe(502);
    expect(res.json.error).toMatchObject({ code: 'invalid_result' });
  });

  it(`emit refuses data nested deeper than ${MAX_JSON_DEPTH} with an error the function can catch`, async () => {
    await deploy(
      'deep-emitter',
      `exports.handler = async () => {
        let v = 1; for (let i = 0; i < ${MAX_JSON_DEPTH + 1}; i++) v = { v };
        try { emit('deep.data', v); return { sent: true }; } catch (e) { return { error: e.name + ': ' + e.message }; }
      };`,
    );
    const res = await call('deep-emitter');
    expect(res.status, res.text).toBe(200);
    expect(res.json.error).toMatch(/^TypeError: emit: .*deeper than 100/);
  });
});
