/**
 * The X-Forwarded-For walk of src/net/trusted-proxies.ts: from the right,
 * past trusted hops, by count or by address (IPv4, IPv6, IPv4-mapped).
 */
import { describe, expect, it } from 'vitest';
import { clientAddress, trustFunction } from '../../src/net/trusted-proxies.js';

const xff = (value: string) => ['Host', 'x', 'X-Forwarded-For', value];

describe('clientAddress', () => {
  it('with a hop count, trusts that many hops from the socket inwards', () => {
    const one = trustFunction({ hops: 1 });
    expect(clientAddress(xff('1.1.1.1, 2.2.2.2'), '10.0.0.1', one)).toBe('2.2.2.2');
    expect(clientAddress(xff('1.1.1.1, 2.2.2.2'), '10.0.0.1', trustFunction({ hops: 2 }))).toBe('1.1.1.1');
    // More hops trusted than listed: the leftmost.
    expect(clientAddress(xff('1.1.1.1'), '10.0.0.1', trustFunction({ hops: 5 }))).toBe('1.1.1.1');
    expect(clientAddress(['Host', 'x'], '10.0.0.1', one)).toBe('10.0.0.1');
  });

  it('with addresses, stops at the first untrusted one, IPv6 included', () => {
    const list = trustFunction({ addresses: ['10.0.0.0/8', '::1', 'fd00::/8'] });
    expect(clientAddress(xff('2001:db8::1, fd00::5'), '::1', list)).toBe('2001:db8::1');
    expect(clientAddress(xff('1.1.1.1, 3.3.3.3, 10.2.2.2'), '::ffff:10.0.0.1', list)).toBe('3.3.3.3');
    // An untrusted peer is the client whatever it writes.
    expect(clientAddress(xff('1.1.1.1'), '192.0.2.1', list)).toBe('192.0.2.1');
  });

  it('reads several X-Forwarded-For headers as one list, in order', () => {
    const one = trustFunction({ hops: 1 });
    expect(clientAddress(['x-forwarded-for', '1.1.1.1', 'X-FORWARDED-FOR', '2.2.2.2'], '10.0.0.1', one)).toBe('2.2.2.2');
  });
});
