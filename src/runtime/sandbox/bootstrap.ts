/**
 * Assembles the isolate-side bootstrap: one function expression that receives
 * the host bridges as arguments, keeps them in its closure (never on the
 * global), installs the contract's globals, and returns the dispatcher the
 * host calls for timer and fetch completions.
 */
import { CLONE_SOURCE } from './js/clone.js';
import { CORE_SOURCE } from './js/core.js';
import { CRYPTO_SOURCE } from './js/crypto.js';
import { EMIT_SOURCE } from './js/emit.js';
import { FETCH_SOURCE } from './js/fetch.js';
import { TIMERS_SOURCE } from './js/timers.js';
import { URL_SOURCE } from './js/url.js';

/** Argument order of the bootstrap function; index.ts passes the bridges in this order. */
export const BRIDGE_NAMES = ['hostRandom', 'hostCrypto', 'hostUrl', 'hostTimerSet', 'hostTimerClear', 'hostFetch', 'hostEmit', 'envJson'] as const;

export const BOOTSTRAP_SOURCE = `(function switchyardBootstrap(${BRIDGE_NAMES.join(', ')}) {
'use strict';
const g = globalThis;
const handlers = Object.create(null);
function def(name, value) {
  Object.defineProperty(g, name, { value, writable: true, configurable: true, enumerable: false });
}
${CORE_SOURCE}
${CLONE_SOURCE}
${URL_SOURCE}
${CRYPTO_SOURCE}
${TIMERS_SOURCE}
${FETCH_SOURCE}
${EMIT_SOURCE}
def('process', Object.freeze({ env: Object.freeze(JSON.parse(envJson)) }));
for (const name of ['require', 'module', 'exports', 'global']) delete g[name];
return function dispatch(kind, id, payload) {
  const h = handlers[kind];
  if (h) h(id, payload);
};
})`;
