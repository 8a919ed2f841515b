/**
 * The per-address budget of wrong keys (src/http/failed-attempts.ts) on a
 * hand-moved clock: the burst, the refill, IPv6 counted by /64, and the
 * bound on remembered addresses (past it, new addresses share one budget).
 */
import { describe, expect, it } from 'vitest';
import { addressKey, FailedAttempts } from '../../src/http/failed-attempts.js';

function table(maxAddresses = 100) {
  const clock = { now: 0 };
  const attempts = new FailedAttempts({ burst: 10, perMinute: 10, maxAddresses, now: () => clock.now });
  return { clock, attempts };
}

describe('FailedAttempts', () => {
  it('lets 10 wrong keys through, then asks to wait until one more is allowed, one every 6 s', () => {
    const { clock, attempts } = table();
    for (let i = 0; i < 10; i++) {
      expect(attempts.waitSeconds('192.0.2.1')).toBe(0);
      attempts.failed('192.0.2.1');
    }
    expect(attempts.waitSeconds('192.0.2.1')).toBe(6);
    clock.now += 5000;
    expect(attempts.waitSeconds('192.0.2.1')).toBe(1);
    clock.now += 1000;
    expect(attempts.waitSeconds('192.0.2.1')).toBe(0);
    attempts.failed('192.0.2.1');
    expect(attempts.waitSeconds('192.0.2.1')).toBe(6);
    // Another address is untouched.
    expect(attempts.waitSeconds('192.0.2.2')).toBe(0);
  });

  it('counts IPv4-mapped addresses as IPv4 and IPv6 by /64', () => {
    expect(addressKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    const { attempts } = table();
    for (let i = 0; i < 10; i++) attempts.failed(`2001:db8:1:2::${i + 1}`);
    expect(attempts.waitSeconds('2001:db8:1:2:ffff::9')).toBe(6);
    expect(attempts.waitSeconds('2001:db8:1:3::1')).toBe(0);
  });

  it('remembers a bounded number of addresses: past it new ones share one budget, and whole budgets are forgotten', () => {
    const { clock, attempts } = table(3);
    for (const a of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) attempts.failed(a);
    expect(attempts.size).toBe(3);
    // A full table: the next addresses share one budget of 10 between them.
    for (let i = 0; i < 10; i++) attempts.failed(`10.1.0.${i}`);
    expect(attempts.size).toBe(3);
    expect(attempts.waitSeconds('10.1.0.200')).toBe(6);
    expect(attempts.waitSeconds('10.0.0.1')).toBe(0);
    // Once the remembered addresses' budgets are whole again (6 s for one wrong key), they make room.
    clock.now += 60_000;
    attempts.failed('10.2.0.1');
    expect(attempts.size).toBe(1);
  });
});
