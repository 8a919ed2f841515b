// @ts-check
/**
 * Isolate-side source: structuredClone (HTML structured clone semantics for
 * the types functions actually pass around; functions, symbols, promises and
 * weak collections throw DataCloneError like in browsers and Node).
 */
// isolate source begins
{
  const TYPED = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array',
    'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'];
  const TYPED_CTORS = {};
  for (const n of TYPED) if (typeof g[n] === 'function') TYPED_CTORS[n] = g[n];
  const ERROR_CTORS = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
  /** @type {(this: ArrayBufferView) => string} */
  // @ts-expect-error %TypedArray%.prototype always has its toStringTag getter
  const typedArrayTag = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;

  function structuredClone(value, options) {
    if (arguments.length === 0) throw new TypeError('structuredClone requires 1 argument');
    const seen = new Map();
    const fail = (what) => { throw new DOMException(what + ' could not be cloned.', 'DataCloneError'); };
    const clone = (v) => {
      const t = typeof v;
      if (t === 'symbol') fail(String(v));
      if (t === 'function') fail(String(v).slice(0, 60));
      if (v === null || t !== 'object') return v;
      if (seen.has(v)) return seen.get(v);
      let out;
      if (Array.isArray(v)) {
        out = new Array(v.length);
        seen.set(v, out);
        for (const k of Object.keys(v)) out[k] = clone(v[k]);
        return out;
      }
      if (v instanceof Date) { out = new Date(v.getTime()); seen.set(v, out); return out; }
      if (v instanceof RegExp) { out = new RegExp(v.source, v.flags); seen.set(v, out); return out; }
      if (v instanceof Boolean) { out = new Boolean(v.valueOf()); seen.set(v, out); return out; }
      if (v instanceof Number) { out = new Number(v.valueOf()); seen.set(v, out); return out; }
      if (v instanceof String) { out = new String(v.valueOf()); seen.set(v, out); return out; }
      if (typeof BigInt === 'function' && v instanceof BigInt) { out = Object(v.valueOf()); seen.set(v, out); return out; }
      if (v instanceof ArrayBuffer) { out = v.slice(0); seen.set(v, out); return out; }
      if (ArrayBuffer.isView(v)) {
        const buf = clone(v.buffer);
        if (v instanceof DataView) out = new DataView(buf, v.byteOffset, v.byteLength);
        // @ts-expect-error not a DataView, so a typed array: it has a length
        else out = new TYPED_CTORS[typedArrayTag.call(v)](buf, v.byteOffset, v.length);
        seen.set(v, out);
        return out;
      }
      if (v instanceof Map) {
        out = new Map();
        seen.set(v, out);
        for (const [k, val] of Map.prototype.entries.call(v)) out.set(clone(k), clone(val));
        return out;
      }
      if (v instanceof Set) {
        out = new Set();
        seen.set(v, out);
        for (const val of Set.prototype.values.call(v)) out.add(clone(val));
        return out;
      }
      if (v instanceof Error) {
        const Ctor = Object.prototype.hasOwnProperty.call(ERROR_CTORS, v.name) ? ERROR_CTORS[v.name] : Error;
        out = new Ctor(v.message);
        seen.set(v, out);
        if (typeof v.stack === 'string') out.stack = v.stack;
        if ('cause' in v) out.cause = clone(v.cause);
        return out;
      }
      if (v instanceof Promise || v instanceof WeakMap || v instanceof WeakSet ||
          (typeof WeakRef === 'function' && v instanceof WeakRef) || v instanceof Symbol) {
        fail(Object.prototype.toString.call(v));
      }
      // Plain objects and class instances: own enumerable string keys, prototype dropped.
      out = {};
      seen.set(v, out);
      for (const k of Object.keys(v)) out[k] = clone(v[k]);
      return out;
    };
    return clone(value);
  }
  def('structuredClone', structuredClone);
}
// isolate source ends
