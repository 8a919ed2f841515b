/**
 * The Node built-ins a function loads but cannot use (node-builtins.ts,
 * INERT_MODULES): the host's module shape, recorded at build
 * (SWITCHYARD_INERT_SHAPES: function, class and constant names), whose
 * functions and constructors throw ERR_FEATURE_UNAVAILABLE_ON_PLATFORM with
 * the reason. Loading never throws, so a package that only touches `fs` or
 * `readline` when it starts (or behind a guard) works. A few answers that
 * need no host are real: `net.isIP`, `fs.existsSync` (nothing exists),
 * `worker_threads.isMainThread`, `cluster.isPrimary`.
 */
'use strict';
/* global SWITCHYARD_INERT_SHAPES */
let shapes = null;

const WHY = {
  fs: 'functions have no file system (keep data in the event, env or a fetch)',
  net: 'functions have no sockets (use fetch, or http/https, for HTTP)',
  tls: 'functions have no sockets (use fetch, or https, for HTTPS)',
  dgram: 'functions have no sockets',
  dns: 'functions resolve no names themselves (fetch does)',
  http2: 'functions have no sockets (use fetch, or http/https, for HTTP)',
  child_process: 'functions have no processes',
  cluster: 'functions have no processes',
  worker_threads: 'functions have no threads',
  readline: 'functions have no terminal',
  tty: 'functions have no terminal',
  repl: 'functions have no terminal',
};

function unavailable(what, root) {
  const e = new Error(what + ' is not available in the function sandbox: ' + (WHY[root] || 'it needs the host'));
  e.code = 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM';
  return e;
}

function build(shape, path, root) {
  const out = {};
  // The promise APIs (fs/promises, fs.promises, dns/promises) reject rather than throw, as Node's do when they fail.
  const promised = /promises$/.test(path);
  for (const name of shape.f || []) {
    const what = path + '.' + name;
    if (promised && !/^[A-Z]/.test(name)) {
      out[name] = { [name]: () => Promise.reject(unavailable(what + '()', root)) }[name];
      continue;
    }
    out[name] = /^[A-Z]/.test(name)
      ? {
          [name]: class {
            constructor() {
              throw unavailable('new ' + what, root);
            }
          },
        }[name]
      : {
          [name]() {
            throw unavailable(what + '()', root);
          },
        }[name];
  }
  Object.assign(out, shape.v || {});
  for (const key of Object.keys(shape.o || {})) out[key] = build(shape.o[key], path + '.' + key, root);
  return out;
}

function isIPv4(s) {
  return /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(String(s));
}
function isIPv6(s) {
  const t = String(s).replace(/%.*$/, '');
  if (!/^[0-9A-Fa-f:.]+$/.test(t) || t.split('::').length > 2) return false;
  const tail = t.includes('.') ? t.slice(t.lastIndexOf(':') + 1) : null;
  if (tail !== null && !isIPv4(tail)) return false;
  const groups = (tail === null ? t : t.slice(0, t.lastIndexOf(':') + 1) + '0:0').split(':');
  if (!t.includes('::') && groups.length !== 8) return false;
  return groups.length <= 8 && groups.every((g, i) => (g === '' ? t.includes('::') || i === 0 || i === groups.length - 1 : /^[0-9A-Fa-f]{1,4}$/.test(g)));
}

/** The inert module `name` (fs, fs/promises, net...): a new object per name, cached by the loader. */
module.exports = function inert(name) {
  if (shapes === null) shapes = JSON.parse(SWITCHYARD_INERT_SHAPES);
  const root = name.split('/')[0];
  const mod = build(shapes[name] || {}, name.replace('/', '.'), root);
  if (name === 'fs') {
    mod.existsSync = () => false;
    if (mod.promises === undefined) mod.promises = build(shapes['fs/promises'] || {}, 'fs.promises', 'fs');
  }
  if (name === 'net') {
    mod.isIPv4 = isIPv4;
    mod.isIPv6 = isIPv6;
    mod.isIP = (s) => (isIPv4(s) ? 4 : isIPv6(s) ? 6 : 0);
  }
  if (name === 'worker_threads') Object.assign(mod, { isMainThread: true, parentPort: null, threadId: 0, workerData: null, resourceLimits: {} });
  if (name === 'cluster') Object.assign(mod, { isPrimary: true, isMaster: true, isWorker: false, workers: {} });
  if (name === 'tty') mod.isatty = () => false;
  return mod;
};
