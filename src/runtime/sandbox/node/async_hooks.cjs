/**
 * `async_hooks`: AsyncLocalStorage and AsyncResource over the sandbox's own
 * context tracking (context.cjs), and inert hooks (createHook gives a hook
 * whose enable/disable do nothing: the sandbox has no resource events).
 * Limits (docs/functions.md): a native `await` keeps the store only in code
 * compile.ts lowered (a function whose code loads async_hooks);
 * EventEmitter listeners run in the emitter's caller's context, as in Node.
 */
'use strict';
const context = require('./context.cjs');

let nextId = 1;

class AsyncLocalStorage {
  #enabled = true;
  constructor() {
    context.enable();
  }
  static bind(fn) {
    return context.bind(fn);
  }
  static snapshot() {
    const frame = context.get();
    return function runInSnapshot(fn, ...args) {
      return context.runIn(frame, fn, undefined, args);
    };
  }
  getStore() {
    if (!this.#enabled) return undefined;
    return context.get().get(this);
  }
  run(store, callback, ...args) {
    this.#enabled = true;
    const frame = new Map(context.get());
    frame.set(this, store);
    return context.runIn(frame, callback, undefined, args);
  }
  exit(callback, ...args) {
    const frame = new Map(context.get());
    frame.delete(this);
    return context.runIn(frame, callback, undefined, args);
  }
  /** Sets the store for the rest of the current callback (its end restores the context it started with). */
  enterWith(store) {
    this.#enabled = true;
    const frame = new Map(context.get());
    frame.set(this, store);
    context.enter(frame);
  }
  disable() {
    this.#enabled = false;
  }
}

class AsyncResource {
  #frame;
  #id = nextId++;
  constructor(type, options) {
    this.type = String(type);
    this.#frame = context.get();
    this.triggerId = options && typeof options.triggerAsyncId === 'number' ? options.triggerAsyncId : 0;
  }
  static bind(fn, type, thisArg) {
    const r = new AsyncResource(type || (fn && fn.name) || 'bound-anonymous-fn');
    return r.bind(fn, thisArg);
  }
  runInAsyncScope(fn, thisArg, ...args) {
    return context.runIn(this.#frame, fn, thisArg, args);
  }
  bind(fn, thisArg) {
    const self = this;
    const bound = function boundToResource(...args) {
      return self.runInAsyncScope(fn, thisArg === undefined ? this : thisArg, ...args);
    };
    Object.defineProperty(bound, 'length', { value: fn.length });
    bound.asyncResource = this;
    return bound;
  }
  emitDestroy() {
    return this;
  }
  asyncId() {
    return this.#id;
  }
  triggerAsyncId() {
    return this.triggerId;
  }
}

function createHook() {
  return {
    enable() {
      return this;
    },
    disable() {
      return this;
    },
  };
}

module.exports = {
  AsyncLocalStorage,
  AsyncResource,
  createHook,
  executionAsyncId: () => 1,
  triggerAsyncId: () => 0,
  executionAsyncResource: () => ({}),
  asyncWrapProviders: {},
};
