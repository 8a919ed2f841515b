// crypto.subtle's host side (src/runtime/sandbox/host-subtle.ts) on its own, and through a real
// isolate: each field checked before WebCrypto sees it, the bound on keys, and an answer that
// was dropped while no invocation was in flight asked for again when the next one starts.
import ivm from 'isolated-vm';
import { afterEach, describe, expect, it } from 'vitest';
import { createSubtleBridge, type SubtleEnvelope } from '../../src/runtime/sandbox/host-subtle.js';
import { installSandbox, type SandboxHandle } from '../../src/runtime/sandbox/index.js';

/** A bridge whose answers are awaited by id. */
function bridge(maxKeys?: number) {
  const waiting = new Map<number, (env: SubtleEnvelope) => void>();
  const b = createSubtleBridge((id, env) => waiting.get(id)?.(env), { maxKeys });
  let seq = 0;
  const call = (op: string, meta: Record<string, unknown>, data: unknown = null) =>
    new Promise<SubtleEnvelope>((resolve) => {
      const id = ++seq;
      waiting.set(id, resolve);
      b.call(id, op, meta, data);
    });
  return { b, call };
}
const bytes = (n: number, fill = 1) => new Uint8Array(n).fill(fill).buffer;
const hmac = { format: 'raw', algorithm: { name: 'HMAC', hash: 'SHA-256' }, extractable: false, usages: ['sign'] };
const errorName = (env: SubtleEnvelope) => ('error' in env ? env.error.name : 'ok');

describe('host-subtle', () => {
  it('keeps keys behind handles and describes them without their material', async () => {
    const { b, call } = bridge();
    const made = await call('importKey', hmac, bytes(32));
    expect(made).toEqual({ ok: { h: 1, type: 'secret', extractable: false, algorithm: { name: 'HMAC', hash: { name: 'SHA-256' }, length: 256 }, usages: ['sign'] } });
    const sig = await call('sign', { algorithm: 'HMAC', key: 1 }, bytes(3));
    expect('ok' in sig && sig.ok instanceof ArrayBuffer && sig.ok.byteLength).toBe(32);
    expect(b.size).toBe(1);
    // A handle it never gave out, and one released, name no key.
    expect(errorName(await call('sign', { algorithm: 'HMAC', key: 99 }, bytes(3)))).toBe('TypeError');
    b.call(0, 'release', { key: 1 }, null);
    expect(b.size).toBe(0);
    expect(errorName(await call('sign', { algorithm: 'HMAC', key: 1 }, bytes(3)))).toBe('TypeError');
  });

  it('refuses more keys than its bound until one is released', async () => {
    const { b, call } = bridge(2);
    expect(errorName(await call('importKey', hmac, bytes(16)))).toBe('ok');
    expect(errorName(await call('importKey', hmac, bytes(16)))).toBe('ok');
    const third = await call('importKey', hmac, bytes(16));
    expect(third).toEqual({ error: { name: 'QuotaExceededError', message: "more than 2 CryptoKeys in this function's isolate" } });
    b.call(0, 'release', { key: 2 }, null);
    expect(errorName(await call('importKey', hmac, bytes(16)))).toBe('ok');
  });

  it('checks every field before WebCrypto sees it', async () => {
    const { call } = bridge();
    const gcm = { format: 'raw', algorithm: 'AES-GCM', extractable: false, usages: ['encrypt'] };
    expect(errorName(await call('importKey', gcm, bytes(16)))).toBe('ok');
    const cases: [string, Record<string, unknown>, unknown, string][] = [
      ['importKey', { ...gcm, algorithm: 'ROT13' }, bytes(16), 'NotSupportedError'],
      ['importKey', { ...gcm, algorithm: { name: 'HMAC', hash: 'MD5' } }, bytes(16), 'NotSupportedError'],
      ['importKey', { ...gcm, format: 'pem' }, bytes(16), 'TypeError'],
      ['importKey', { ...gcm, usages: ['encrypt', 'teleport'] }, bytes(16), 'TypeError'],
      ['importKey', { ...gcm, usages: 'encrypt' }, bytes(16), 'TypeError'],
      ['importKey', gcm, 'not bytes', 'TypeError'],
      ['importKey', { ...gcm, format: 'jwk', jwk: { kty: 'oct', k: { nested: true } } }, null, 'DataError'],
      ['importKey', { ...gcm, format: 'jwk', jwk: { kty: 'oct', k: 'x'.repeat(70000) } }, null, 'DataError'],
      ['generateKey', { algorithm: { name: 'ECDSA', namedCurve: 'P-192' }, usages: ['sign'] }, null, 'NotSupportedError'],
      ['generateKey', { algorithm: { name: 'RSA-PSS', modulusLength: 65536, hash: 'SHA-256', publicExponent: bytes(3) }, usages: ['sign'] }, null, 'OperationError'],
      ['encrypt', { algorithm: { name: 'AES-GCM', iv: bytes(2048) }, key: 1 }, bytes(1), 'QuotaExceededError'],
      ['encrypt', { algorithm: { name: 'AES-GCM', iv: bytes(12), tagLength: 7 }, key: 1 }, bytes(1), 'OperationError'],
      ['deriveBits', { algorithm: { name: 'PBKDF2', hash: 'SHA-256', salt: bytes(8), iterations: 2_000_001 }, key: 1, length: 256 }, null, 'OperationError'],
      ['deriveBits', { algorithm: { name: 'ECDH', public: 99 }, key: 1, length: null }, null, 'TypeError'],
      ['encrypt', { algorithm: { name: 'AES-GCM', iv: bytes(12), public: 1 }, key: 1 }, bytes(1), 'TypeError'],
      ['exportSecrets', { key: 1 }, null, 'NotSupportedError'],
    ];
    for (const [op, meta, data, name] of cases) {
      expect(errorName(await call(op, meta, data)), `${op} ${JSON.stringify(meta).slice(0, 80)}`).toBe(name);
    }
  });
});

describe('crypto.subtle in an isolate', () => {
  let isolate: ivm.Isolate | undefined;
  let handle: SandboxHandle | undefined;
  afterEach(() => {
    handle?.dispose();
    if (isolate && !isolate.isDisposed) isolate.dispose();
  });

  it('asks again, when the next invocation starts, for an answer dropped while none was in flight', async () => {
    isolate = new ivm.Isolate({ memoryLimit: 64 });
    const context = await isolate.createContext();
    handle = await installSandbox(isolate, context, { env: {}, allowPrivateTargets: false });
    // The host stops delivering; the call below reaches it, runs, and its answer is dropped.
    handle.setActive(false);
    await context.eval(`globalThis.done = null;
      crypto.subtle.importKey('raw', new Uint8Array(16), 'AES-GCM', false, ['encrypt'])
        .then((k) => { globalThis.done = k.algorithm.name + ':' + k.type; }, (e) => { globalThis.done = 'failed: ' + e.name; });`);
    await new Promise((r) => setTimeout(r, 100));
    expect(await context.eval('globalThis.done')).toBe(null);
    handle.setActive(true);
    await handle.hook.apply(undefined, ['activity', 1]);
    const until = Date.now() + 5000;
    while ((await context.eval('globalThis.done')) === null && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(await context.eval('globalThis.done')).toBe('AES-GCM:secret');
  });
});
