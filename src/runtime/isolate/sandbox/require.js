// @ts-check
/**
 * Isolate-side source: the `require` user code gets (from its module
 * wrapper, never a global), Node's global `Buffer`, and the parts of Node's
 * `process` that npm packages read when they load or run (nextTick,
 * version, platform, stdout.write...). The modules load the Node built-ins
 * bundle (`nodeBundle`, see ../../sandbox/bootstrap.ts and
 * ../../sandbox/node/) on first use. The sandbox globals the modules build
 * on are taken now, before user code can replace them.
 *
 * The added `process` members are not enumerable, so `Object.keys(process)`
 * stays `['env']` (env is a writable copy of the function's env, as on Lambda); nothing reaches the host's process: `exit`, `pid`,
 * `binding` and the like stay absent, and `on`/`emit` are a listener table of
 * this isolate that the sandbox itself never fires.
 */
// isolate source begins
const nodeGlobals = {
  URL: g.URL, URLSearchParams: g.URLSearchParams, TextEncoder: g.TextEncoder, TextDecoder: g.TextDecoder,
  crypto: g.crypto, getRandomValues: g.crypto.getRandomValues, randomUUID: g.crypto.randomUUID,
  queueMicrotask: g.queueMicrotask, setTimeout: g.setTimeout, clearTimeout: g.clearTimeout,
  setInterval: g.setInterval, clearInterval: g.clearInterval, setImmediate: g.setImmediate, clearImmediate: g.clearImmediate,
  fetch: g.fetch, Headers: g.Headers,
};
let nodeRequire = null;
/** @param {string} id */
function requireModule(id) {
  if (nodeRequire === null) {
    nodeRequire = nodeBundle().createNodeModules(nodeGlobals, {
      hostCrypto,
      hostNode,
      /** @param {(fn: Function) => Function} binder */
      setCallbackBinder(binder) { bindTimerCallback = binder; },
    });
  }
  return nodeRequire(id);
}
{
  // Node's global Buffer, loaded on first touch; assigning it replaces it, as in Node.
  const setBuffer = (value) => def('Buffer', value);
  Object.defineProperty(g, 'Buffer', {
    get() {
      const B = requireModule('buffer').Buffer;
      setBuffer(B);
      return B;
    },
    set: setBuffer,
    configurable: true,
    enumerable: false,
  });
}
{
  const start = Date.now();
  const queue = g.queueMicrotask;
  /** A write to stdout or stderr is a console line of the invocation (its trailing newline dropped), through the console the dispatcher installs for each invocation. */
  /** @param {'log' | 'error'} level @param {number} fd */
  const stream = (level, fd) => ({
    fd,
    isTTY: false,
    writable: true,
    /** @param {unknown} chunk @param {unknown} [encoding] @param {unknown} [cb] */
    write(chunk, encoding, cb) {
      const text = typeof chunk === 'string' ? chunk : chunk instanceof Uint8Array ? utf8DecodeAll(chunk) : String(chunk);
      g.console[level](text.endsWith('\n') ? text.slice(0, -1) : text);
      const done = typeof encoding === 'function' ? encoding : cb;
      if (typeof done === 'function') queue(() => done());
      return true;
    },
    on() { return this; },
    once() { return this; },
    off() { return this; },
    removeListener() { return this; },
    end() {},
  });
  /** @param {bigint | number} ns */
  const hr = (ns) => ns;
  const nowNs = () => BigInt(Math.round((typeof g.performance === 'object' && g.performance ? g.performance.now() : Date.now() - start) * 1e6));
  /** @param {[number, number]} [prev] */
  function hrtime(prev) {
    const ns = nowNs();
    let s = Number(ns / 1000000000n), n = Number(ns % 1000000000n);
    if (prev) { s -= prev[0]; n -= prev[1]; if (n < 0) { s--; n += 1e9; } }
    return [s, n];
  }
  hrtime.bigint = () => hr(nowNs());
  /** @type {Record<string | symbol, Function[]>} */
  const listeners = createObject(null);
  const proc = g.process;
  const members = {
    /** @param {Function} fn @param {unknown[]} args */
    nextTick(fn, ...args) {
      if (typeof fn !== 'function') throw new TypeError('The "callback" argument must be of type function');
      queue(() => callFunction(fn, undefined, args));
    },
    version: 'v' + __NODE_VERSION_JSON__,
    versions: Object.freeze({ node: __NODE_VERSION_JSON__ }),
    release: Object.freeze({ name: 'node' }),
    platform: 'linux',
    arch: 'x64',
    title: 'node',
    argv: Object.freeze(['/var/lang/bin/node', '/var/runtime/index.mjs']),
    execArgv: Object.freeze([]),
    exitCode: undefined,
    features: Object.freeze({}),
    cwd: () => '/',
    umask: () => 0o22,
    uptime: () => (Date.now() - start) / 1000,
    hrtime,
    memoryUsage: Object.assign(() => ({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }), { rss: () => 0 }),
    cpuUsage: () => ({ user: 0, system: 0 }),
    /** @param {any} warning */
    emitWarning(warning) {
      g.console.warn(typeof warning === 'string' ? 'Warning: ' + warning : String((warning && warning.stack) || warning));
    },
    stdout: stream('log', 1),
    stderr: stream('error', 2),
    /** @param {string | symbol} name @param {Function} fn */
    on(name, fn) { (listeners[name] = listeners[name] || []).push(fn); return target; },
    /** @param {string | symbol} name @param {Function} fn */
    off(name, fn) { const l = listeners[name]; if (l) { const i = l.indexOf(fn); if (i >= 0) l.splice(i, 1); } return target; },
    /** @param {string | symbol} name */
    listeners(name) { return (listeners[name] || []).slice(); },
    /** @param {string | symbol} name */
    listenerCount(name) { return (listeners[name] || []).length; },
    emit() { return false; },
  };
  const d = Object.getOwnPropertyDescriptors(members);
  for (const k of Object.keys(d)) d[k].enumerable = false;
  const more = { addListener: d.on, once: d.on, prependListener: d.on, removeListener: d.off, removeAllListeners: d.off };
  const target = createObject(Object.getPrototypeOf(proc));
  const own = Object.getOwnPropertyDescriptors(proc);
  delete own.env;
  Object.defineProperties(target, own);
  // Writable, as on Lambda (Powertools, the AWS SDK and dotenv set variables), values stored as strings as Node stores them.
  // A write stays in this isolate: the function's own, for the version it serves.
  /** @type {Record<string | symbol, string>} */
  const envValues = Object.assign({}, proc.env);
  const env = new Proxy(envValues, {
    set(t, key, value) { t[key] = String(value); return true; },
    defineProperty(t, key, desc) { t[key] = String(desc.value); return true; },
  });
  Object.defineProperty(target, 'env', { value: env, writable: true, enumerable: true, configurable: false });
  Object.defineProperties(target, d);
  Object.defineProperties(target, more);
  // Extensible, as Node's is (cls-hooked, under the X-Ray SDK, sets process.namespaces).
  def('process', target);
}
// isolate source ends
