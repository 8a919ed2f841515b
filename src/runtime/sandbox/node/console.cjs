/**
 * `console`: the sandbox's console (its lines are the invocation's logs) with
 * Node's `Console` class. A Console writes each formatted line to the
 * `stdout`/`stderr` it is given (`.write(text + '\n')`), as Node's does; the
 * sandbox's `process.stdout` and `process.stderr` make those lines console
 * lines again, so a logger built as `new Console({ stdout: process.stdout })`
 * (Powertools) logs as on Lambda. Without streams it logs to the sandbox's console.
 */
'use strict';
const util = require('./util.cjs');

const OUT = ['log', 'info', 'debug', 'dirxml'];
const ERR = ['error', 'warn', 'trace'];

class Console {
  #stdout;
  #stderr;
  #counts = new Map();
  #timers = new Map();
  #indent = '';
  constructor(stdout, stderr) {
    const opts = stdout && typeof stdout.write !== 'function' && typeof stdout === 'object' ? stdout : { stdout, stderr };
    this.#stdout = opts.stdout && typeof opts.stdout.write === 'function' ? opts.stdout : null;
    this.#stderr = opts.stderr && typeof opts.stderr.write === 'function' ? opts.stderr : this.#stdout;
    // Node binds the methods, so `const { log } = new Console(...)` works.
    for (const name of [...OUT, ...ERR, 'dir', 'table', 'assert', 'count', 'countReset', 'time', 'timeEnd', 'timeLog', 'group', 'groupCollapsed', 'groupEnd']) {
      this[name] = this[name].bind(this);
    }
  }
  #write(toErr, level, args) {
    const text = this.#indent + util.format(...args);
    const stream = toErr ? this.#stderr : this.#stdout;
    if (stream) stream.write(text + '\n');
    else globalThis.console[level](text);
  }
  log(...a) { this.#write(false, 'log', a); }
  info(...a) { this.#write(false, 'info', a); }
  debug(...a) { this.#write(false, 'debug', a); }
  dirxml(...a) { this.#write(false, 'log', a); }
  error(...a) { this.#write(true, 'error', a); }
  warn(...a) { this.#write(true, 'warn', a); }
  trace(...a) {
    const e = new Error(util.format(...a));
    e.name = 'Trace';
    this.#write(true, 'error', [e.stack]);
  }
  dir(obj, options) { this.#write(false, 'log', [util.inspect(obj, Object.assign({ customInspect: false }, options))]); }
  table(data) { this.#write(false, 'log', [data]); }
  assert(ok, ...a) { if (!ok) this.#write(true, 'error', ['Assertion failed' + (a.length ? ': ' + util.format(...a) : '')]); }
  count(label = 'default') {
    const n = (this.#counts.get(label) || 0) + 1;
    this.#counts.set(label, n);
    this.#write(false, 'log', [label + ': ' + n]);
  }
  countReset(label = 'default') { this.#counts.delete(label); }
  time(label = 'default') { this.#timers.set(label, Date.now()); }
  timeLog(label = 'default', ...a) { this.#elapsed(label, a, false); }
  timeEnd(label = 'default') { this.#elapsed(label, [], true); }
  #elapsed(label, extra, end) {
    const at = this.#timers.get(label);
    if (at === undefined) return;
    if (end) this.#timers.delete(label);
    this.#write(false, 'log', [label + ': ' + (Date.now() - at) + 'ms', ...extra]);
  }
  group(...a) { if (a.length) this.log(...a); this.#indent += '  '; }
  groupCollapsed(...a) { this.group(...a); }
  groupEnd() { this.#indent = this.#indent.slice(2); }
}

// The module is the global console (read when called, as the sandbox installs it), with Console on it.
const mod = { Console };
for (const name of [...OUT, ...ERR, 'dir', 'table', 'assert', 'count', 'countReset', 'time', 'timeEnd', 'timeLog', 'group', 'groupCollapsed', 'groupEnd']) {
  mod[name] = (...a) => {
    const c = globalThis.console;
    return c[name](...a);
  };
}
module.exports = mod;
