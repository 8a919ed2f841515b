/**
 * The host's side of the Node modules a function cannot run inside its
 * isolate (src/runtime/sandbox/host-node.ts): what crosses is data, answers
 * are bounded, and a key too large to sign with in bounded time is refused.
 */
import { generateKeyPairSync, verify } from 'node:crypto';
import { brotliCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bounded, hostNode } from '../../src/runtime/sandbox/host-node.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const bytes = (text: string) => new TextEncoder().encode(text);

describe('hostNode', () => {
  it('signs with a PEM key as data: the signature verifies with the host crypto', () => {
    const out = hostNode('sign', JSON.stringify({ algorithm: 'sha256', pem }), bytes('payload'));
    expect(out).toBeInstanceOf(ArrayBuffer);
    expect(verify('sha256', bytes('payload'), publicKey, Buffer.from(out as ArrayBuffer))).toBe(true);
  });

  it('answers errors as JSON with a code, never throws: bad bytes, an unknown operation, a bad key', () => {
    expect(JSON.parse(hostNode('sign', '{}', 'not bytes') as string)).toMatchObject({ code: 'ERR_HOST_OPERATION' });
    expect(JSON.parse(hostNode('exec', '{}', bytes('x')) as string).error).toMatch(/unknown operation exec/);
    expect(JSON.parse(hostNode('sign', JSON.stringify({ algorithm: 'sha256', pem: 'nope' }), bytes('x')) as string).code).toBeTruthy();
  });

  it('decompresses brotli within the output bound', () => {
    const out = hostNode('brotliDecompress', '{}', brotliCompressSync(Buffer.from('hello '.repeat(100))));
    expect(Buffer.from(out as ArrayBuffer).toString()).toBe('hello '.repeat(100));
  });

  it('refuses a key above the modulus bound', () => {
    expect(bounded(privateKey)).toBe(privateKey);
    expect(() => bounded(privateKey, 1024)).toThrow(/keys above 1024 bits/);
  });
});
