// SSRF guard: address spellings, create-time URL checks, and the connect-time agent against a real server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch as undiciFetch, request } from 'undici';
import {
  PRIVATE_TARGET_CONNECT_CODE,
  PrivateTargetError,
  checkUrlTarget,
  createGuardedAgent,
  findPrivateTargetRefusal,
  isPrivateAddress,
  parseHostLiteral,
} from '../../src/net/ssrf.js';

describe('parseHostLiteral', () => {
  const cases: [string, string | null][] = [
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.0.0.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0X7F.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['169.254.43518', '169.254.169.254'],
    ['[::1]', '::1'],
    ['::FFFF:127.0.0.1', '::ffff:7f00:1'],
    ['[0:0:0:0:0:0:0:1]', '::1'],
    ['64:ff9b::10.0.0.1', '64:ff9b::a00:1'],
    ['fe80::1%eth0', null],
    ['[fe80::1%25eth0]', null],
    ['example.com', null],
    ['1.2.3.4.5', null],
    ['256.1.1.1', null],
    ['0x1g.0.0.1', null],
    ['08.0.0.1', null],
  ];
  it.each(cases)('%s -> %s', (input, expected) => {
    expect(parseHostLiteral(input)).toBe(expected);
  });
});

describe('isPrivateAddress', () => {
  const privateOnes = [
    '127.0.0.1', '127.255.255.254', '2130706433', '0177.0.0.1', '0x7f.0.0.1', '127.1',
    '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '100.127.255.255', '0.0.0.0', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
    '::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'ff02::1', 'fe80::1%eth0',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '[::ffff:10.0.0.1]', '::ffff:169.254.169.254',
    '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe', '::127.0.0.1', '::a00:1', '2002:7f00:1::1',
  ];
  const publicOnes = [
    '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '169.255.0.1', '2606:4700::1',
    '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', 'example.com',
  ];
  it.each(privateOnes)('%s is private', (ip) => expect(isPrivateAddress(ip)).toBe(true));
  it.each(publicOnes)('%s is not private', (ip) => expect(isPrivateAddress(ip)).toBe(false));
});

describe('checkUrlTarget', () => {
  const refused = [
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f.1/',
    'http://[::1]:8080/x',
    'http://[::ffff:127.0.0.1]/',
    'http://169.254.169.254/latest/meta-data',
    'https://10.1.2.3/',
    'ftp://example.com/',
    'file:///etc/passwd',
    'not a url',
  ];
  it.each(refused)('refuses %s', (url) => {
    expect(() => checkUrlTarget(url, false)).toThrow(PrivateTargetError);
    try {
      checkUrlTarget(url, false);
    } catch (err) {
      expect((err as PrivateTargetError).code).toBe('private_target');
      expect((err as PrivateTargetError).status).toBe(400);
    }
  });
  it('accepts public and named targets', () => {
    expect(() => checkUrlTarget('https://example.com/hook', false)).not.toThrow();
    expect(() => checkUrlTarget('http://8.8.8.8/', false)).not.toThrow();
    // Names are only judged at connect time, after resolution.
    expect(() => checkUrlTarget('http://localhost:3000/', false)).not.toThrow();
  });
  it('accepts private literals when allowed, but never other schemes', () => {
    expect(() => checkUrlTarget('http://127.0.0.1:9/', true)).not.toThrow();
    expect(() => checkUrlTarget('ftp://127.0.0.1/', true)).toThrow(/scheme 'ftp'/);
  });
});

describe('createGuardedAgent', () => {
  let server: http.Server;
  let port = 0;
  let hits = 0;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      hits++;
      res.end('hello');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses a literal loopback target before connecting', async () => {
    const agent = createGuardedAgent({ allowPrivate: false });
    const before = hits;
    const err = await request(`http://127.0.0.1:${port}/`, { dispatcher: agent }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as { code?: string }).code).toBe(PRIVATE_TARGET_CONNECT_CODE);
    expect((err as Error).message).toBe(
      'connect refused: 127.0.0.1 is a private address (set SWITCHYARD_ALLOW_PRIVATE_TARGETS=1 to allow)',
    );
    expect(hits).toBe(before);
    await agent.close();
  });

  it('refuses a name that resolves to loopback (checked after DNS)', async () => {
    const agent = createGuardedAgent({ allowPrivate: false });
    const before = hits;
    const err = await undiciFetch(`http://localhost:${port}/`, { dispatcher: agent }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError); // fetch wraps connect errors
    const refusal = findPrivateTargetRefusal(err);
    expect(refusal?.code).toBe(PRIVATE_TARGET_CONNECT_CODE);
    expect(refusal?.message).toMatch(/^connect refused: localhost \((127\.0\.0\.1|::1)\) is a private address/);
    expect(hits).toBe(before);
    await agent.close();
  });

  it('connects to the same server when private targets are allowed', async () => {
    const agent = createGuardedAgent({ allowPrivate: true, connections: 2 });
    const before = hits;
    const res = await request(`http://127.0.0.1:${port}/`, { dispatcher: agent });
    expect(res.statusCode).toBe(200);
    expect(await res.body.text()).toBe('hello');
    const res2 = await undiciFetch(`http://localhost:${port}/`, { dispatcher: agent });
    expect(await res2.text()).toBe('hello');
    expect(hits).toBe(before + 2);
    await agent.close();
  });
});
