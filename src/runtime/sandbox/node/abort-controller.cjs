/**
 * `abort-controller` for readable-stream, which asks for it only where the
 * global classes are missing: the sandbox's own when it has them, else a
 * minimal pair (abort, `aborted`, `reason`, abort listeners) enough for the
 * stream code's own use.
 */
'use strict';

class FallbackSignal {
  #listeners = [];
  aborted = false;
  reason = undefined;
  onabort = null;
  addEventListener(type, fn) {
    if (type === 'abort' && typeof fn === 'function') this.#listeners.push(fn);
  }
  removeEventListener(type, fn) {
    const i = this.#listeners.indexOf(fn);
    if (i >= 0) this.#listeners.splice(i, 1);
  }
  throwIfAborted() {
    if (this.aborted) throw this.reason;
  }
  _abort(reason) {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const event = { type: 'abort', target: this };
    if (typeof this.onabort === 'function') this.onabort(event);
    for (const fn of this.#listeners.splice(0)) fn.call(this, event);
  }
}
class FallbackController {
  signal = new FallbackSignal();
  abort(reason) {
    const e = reason !== undefined ? reason : Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });
    this.signal._abort(e);
  }
}

module.exports = {
  AbortController: globalThis.AbortController || FallbackController,
  AbortSignal: globalThis.AbortSignal || FallbackSignal,
};
