/**
 * Slows down guessing of the admin key (and the metrics token): each client
 * address has a budget of wrong keys (10 at once, then one more every 6 s);
 * once it is spent, requests from that address that carry a key get a 429
 * with `Retry-After` and their key is not checked at all, the right one
 * included (otherwise the answer would still tell a right guess from a wrong
 * one). A right key refills nothing: neither its own address's budget nor
 * anyone else's. A request without a key guesses nothing and is not counted.
 *
 * Addresses: IPv4 (and IPv4-mapped IPv6) one by one; IPv6 by /64, the block
 * a single host is usually handed. The address is Fastify's `request.ip`:
 * behind proxies named in SWITCHYARD_TRUSTED_PROXIES the client's, from
 * X-Forwarded-For; otherwise every client of a proxy shares its address, and
 * the proxy should limit by client too.
 *
 * Bounded memory: at most `maxAddresses` entries; an address whose budget is
 * whole again is forgotten. When the table is full of addresses still
 * paying, any further address shares one common budget, so a guesser with
 * many addresses gets no more than that budget between them.
 *
 * Per process: with `--processes N` each server process keeps its own table
 * and connections are spread round-robin, so one address gets at most N
 * times the budget on a node (80 at once and 80 a minute at the largest
 * automatic N of 8), and that times the number of nodes. Sharing the table
 * through the cluster's primary would put a round trip on the way of every
 * refusal for a factor that a 16-character key (required off loopback)
 * makes irrelevant: at 80 guesses a minute, going through half of the 62^16
 * keys of 16 letters and digits takes about 10^20 years.
 */
import { isIPv4 } from 'node:net';

export interface FailedAttemptsOptions {
  /** Wrong keys an address may send at once. */
  burst: number;
  /** Wrong keys an address may send per minute once its burst is spent. */
  perMinute: number;
  /** Addresses remembered at most. */
  maxAddresses: number;
  /** Milliseconds; tests pass a hand-moved one. */
  now?: () => number;
}

export const FAILED_ATTEMPTS_DEFAULTS: FailedAttemptsOptions = { burst: 10, perMinute: 10, maxAddresses: 10_000 };

interface Budget {
  /** Wrong keys left, fractional while refilling. */
  left: number;
  /** When `left` was last brought up to date. */
  at: number;
}

/** The key an address is counted under: IPv4 as is, IPv6 by its /64. */
export function addressKey(address: string): string {
  const plain = address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;
  if (!plain.includes(':')) return plain;
  const bare = plain.split('%', 1)[0].toLowerCase();
  const [head, tail] = bare.split('::', 2);
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const first = groups(head);
  const last = groups(tail);
  const hextets = tail === undefined ? first : [...first, ...Array(Math.max(0, 8 - first.length - last.length)).fill('0'), ...last];
  return `${hextets
    .slice(0, 4)
    .map((h) => (parseInt(h, 16) || 0).toString(16))
    .join(':')}::/64`;
}

export class FailedAttempts {
  private readonly table = new Map<string, Budget>();
  private readonly shared: Budget;
  private readonly perMs: number;
  private readonly now: () => number;
  private lastSweep = -Infinity;

  constructor(private readonly opts: FailedAttemptsOptions = FAILED_ATTEMPTS_DEFAULTS) {
    this.now = opts.now ?? Date.now;
    this.perMs = opts.perMinute / 60_000;
    this.shared = { left: opts.burst, at: this.now() };
  }

  /** Seconds until a key from `address` is checked again; 0 when it may be now. */
  waitSeconds(address: string): number {
    const budget = this.table.get(addressKey(address)) ?? (this.table.size >= this.opts.maxAddresses ? this.shared : null);
    if (!budget) return 0;
    this.refill(budget);
    // Whole milliseconds first: 0.1666... of a key at 1/6000 per ms is 1000 ms, not 1000.0000001.
    return budget.left >= 1 ? 0 : Math.ceil(Math.round((1 - budget.left) / this.perMs) / 1000);
  }

  /** Counts one wrong key from `address`. */
  failed(address: string): void {
    const key = addressKey(address);
    let budget = this.table.get(key);
    if (!budget) {
      // At most once a second: a table full of addresses still paying stays full for a while.
      if (this.table.size >= this.opts.maxAddresses && this.now() - this.lastSweep >= 1000) this.forgetWhole();
      if (this.table.size >= this.opts.maxAddresses) budget = this.shared;
      else this.table.set(key, (budget = { left: this.opts.burst, at: this.now() }));
    }
    this.refill(budget);
    budget.left = Math.max(0, budget.left - 1);
  }

  /** How many addresses are remembered (for tests of the bound). */
  get size(): number {
    return this.table.size;
  }

  private refill(budget: Budget): void {
    const now = this.now();
    budget.left = Math.min(this.opts.burst, budget.left + (now - budget.at) * this.perMs);
    budget.at = now;
  }

  /** Drops the addresses whose budget is whole again: they are as if never seen. */
  private forgetWhole(): void {
    this.lastSweep = this.now();
    for (const [key, budget] of this.table) {
      this.refill(budget);
      if (budget.left >= this.opts.burst) this.table.delete(key);
    }
  }
}
