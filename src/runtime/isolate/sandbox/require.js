// @ts-check
/**
 * Isolate-side source: the `require` user code gets (from its module
 * wrapper, never a global) and Node's global `Buffer`. Both load the Node
 * built-ins bundle (`nodeBundle`, see ../../sandbox/bootstrap.ts and ../../sandbox/node/) on first
 * use. The sandbox globals the modules build on are taken now, before user
 * code can replace them.
 */
// isolate source begins
const nodeGlobals = {
  URL: g.URL, URLSearchParams: g.URLSearchParams, TextEncoder: g.TextEncoder, TextDecoder: g.TextDecoder,
  crypto: g.crypto, getRandomValues: g.crypto.getRandomValues, randomUUID: g.crypto.randomUUID,
};
let nodeRequire = null;
function requireModule(id) {
  if (nodeRequire === null) nodeRequire = nodeBundle().createNodeModules(nodeGlobals, { hostCrypto });
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
// isolate source ends
