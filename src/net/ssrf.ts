/**
 * Server-side request forgery guard, shared by webhook delivery and the
 * functions' `fetch`. Two layers:
 *  - `checkUrlTarget` refuses obviously bad URLs when they are stored (scheme,
 *    literal private IPs in any spelling), so users learn early;
 *  - `createGuardedAgent` checks the address actually being connected to, after
 *    DNS resolution and inside the connect step, so a name that resolves (or
 *    later re-resolves) to a private address is refused with no rebinding window.
 */
import dns from 'node:dns';
import net from 'node:net';
import { Agent, buildConnector } from 'undici';
import { coded } from '../errors.js';

/** `code` of the error raised by the guarded agent when it refuses a connection. */
export const PRIVATE_TARGET_CONNECT_CODE = 'ERR_PRIVATE_TARGET';

const ALLOW_HINT = 'set SWITCHYARD_ALLOW_PRIVATE_TARGETS=1 to allow';

/** A stored URL that can never be delivered to: wrong scheme or a literal private address. */
export class PrivateTargetError extends coded('private_target') {}

/** Raised from the connect step; undici's fetch wraps it as the `cause` of a TypeError. */
export class PrivateTargetConnectError extends Error {
  readonly code = PRIVATE_TARGET_CONNECT_CODE;
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    const who = host === address ? address : `${host} (${address})`;
    super(`connect refused: ${who} is a private address (${ALLOW_HINT})`);
    this.name = 'PrivateTargetConnectError';
  }
}

/** Finds a connect-time refusal anywhere in an error's `cause` chain (fetch wraps it). */
export function findPrivateTargetRefusal(err: unknown): PrivateTargetConnectError | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 8; depth++) {
    if (e instanceof PrivateTargetConnectError) return e;
    if (typeof e === 'object' && (e as { code?: unknown }).code === PRIVATE_TARGET_CONNECT_CODE) {
      return e as PrivateTargetConnectError;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Address classification

type Cidr4 = [number, number]; // [network as uint32, prefix length]

const PRIVATE_V4: Cidr4[] = [
  [0x00000000, 8], // 0.0.0.0/8 "this network"
  [0x0a000000, 8], // 10/8
  [0x64400000, 10], // 100.64/10 carrier-grade NAT
  [0x7f000000, 8], // 127/8 loopback
  [0xa9fe0000, 16], // 169.254/16 link-local, cloud metadata
  [0xac100000, 12], // 172.16/12
  [0xc0000000, 24], // 192.0.0/24 IETF protocol assignments
  [0xc0a80000, 16], // 192.168/16
  [0xc6120000, 15], // 198.18/15 benchmarking, often used inside networks
  [0xe0000000, 4], // 224/4 multicast
  [0xf0000000, 4], // 240/4 reserved + 255.255.255.255 broadcast
];

function v4ToInt(ip: string): number | null {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const v = Number(p);
    if (v > 255) return null;
    n = n * 256 + v;
  }
  return n;
}

function intToV4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

function isPrivateV4Int(n: number): boolean {
  for (const [base, bits] of PRIVATE_V4) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if (((n & mask) >>> 0) === base) return true;
  }
  return false;
}

/** Expands an IPv6 literal (no brackets, no zone) into eight 16-bit groups. */
function v6ToGroups(ip: string): number[] | null {
  if (!net.isIPv6(ip)) return null;
  let text = ip.toLowerCase();
  // A dotted IPv4 tail becomes two hex groups.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4ToInt(dotted[2]);
    if (n === null) return null;
    text = `${dotted[1]}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  if (fill < 0) return null;
  const groups = [...head, ...Array<string>(fill).fill('0'), ...tail].map((g) => parseInt(g, 16));
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  return groups;
}

function isPrivateV6Groups(g: number[]): boolean {
  const embedded = () => ((g[6] << 16) | g[7]) >>> 0;
  const zeroUpTo = (k: number) => g.slice(0, k).every((x) => x === 0);
  // ::/128 unspecified, ::1 loopback, ::a.b.c.d IPv4-compatible (deprecated, still routable by some stacks).
  if (zeroUpTo(6)) return g[6] === 0 ? true : isPrivateV4Int(embedded());
  // ::ffff:a.b.c.d IPv4-mapped, ::ffff:0:a.b.c.d IPv4-translated.
  if (zeroUpTo(5) && g[5] === 0xffff) return isPrivateV4Int(embedded());
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return isPrivateV4Int(embedded());
  // 64:ff9b::/96 well-known NAT64 prefix: the gateway connects to the embedded IPv4.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return isPrivateV4Int(embedded());
  // 64:ff9b:1::/48 local-use NAT64: only meaningful inside a private network.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return true;
  // 2002::/16 6to4 carries an IPv4 address in bits 16..47.
  if (g[0] === 0x2002) return isPrivateV4Int(((g[1] << 16) | g[2]) >>> 0);
  if ((g[0] & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((g[0] & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((g[0] & 0xffc0) === 0xfec0) return true; // fec0::/10 old site-local
  if ((g[0] & 0xff00) === 0xff00) return true; // ff00::/8 multicast
  if (g[0] === 0x100 && zeroUpTo(4) && g[1] === 0) return true; // 100::/64 discard
  return false;
}

/**
 * True for addresses a server-side request must not reach unless the operator
 * allows it. Accepts any spelling `parseHostLiteral` understands; a string that
 * is not an IP address at all returns false (it is a host name).
 */
export function isPrivateAddress(ip: string): boolean {
  // A zone id only ever scopes a link-local (or multicast) address.
  if (ip.includes('%') && net.isIPv6(ip.replace(/^\[|\]$/g, ''))) return true;
  const canonical = parseHostLiteral(ip);
  if (canonical === null) return false;
  if (net.isIPv4(canonical)) return isPrivateV4Int(v4ToInt(canonical)!);
  const groups = v6ToGroups(canonical);
  return groups === null ? true : isPrivateV6Groups(groups);
}

// ---------------------------------------------------------------------------
// Literal parsing

/** One WHATWG IPv4 number part: 0x hex, leading-zero octal, or decimal. */
function parseV4Part(part: string): number | null {
  if (part === '') return null;
  let radix = 10;
  let digits = part;
  if (/^0x/i.test(part)) {
    radix = 16;
    digits = part.slice(2);
    if (digits === '') return 0; // "0x" alone is zero in WHATWG
  } else if (part.length > 1 && part[0] === '0') {
    radix = 8;
    digits = part.slice(1);
  }
  const re = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!re.test(digits)) return null;
  const n = parseInt(digits, radix);
  return Number.isSafeInteger(n) ? n : null;
}

/** WHATWG "IPv4 parser" (the same one `new URL()` and inet_aton agree on). */
function parseLooseV4(host: string): string | null {
  let parts = host.split('.');
  if (parts[parts.length - 1] === '' && parts.length > 1) parts = parts.slice(0, -1);
  if (parts.length > 4) return null;
  const nums: number[] = [];
  for (const p of parts) {
    const n = parseV4Part(p);
    if (n === null) return null;
    nums.push(n);
  }
  const last = nums.pop()!;
  if (nums.some((n) => n > 255)) return null;
  if (last >= 256 ** (4 - nums.length)) return null;
  let value = last;
  nums.forEach((n, i) => (value += n * 256 ** (3 - i)));
  return intToV4(value);
}

/**
 * Canonical form of an IP literal in any spelling (`2130706433`, `0177.0.0.1`,
 * `0x7f.1`, `127.1`, `[::1]`, `::FFFF:127.0.0.1`), or null when `host` is a host
 * name. IPv6 zone ids (`fe80::1%eth0`) are refused (null): they only address
 * link-local hosts, and WHATWG URLs cannot carry them either.
 */
export function parseHostLiteral(host: string): string | null {
  let h = host.trim();
  if (h.startsWith('[')) {
    if (!h.endsWith(']')) return null;
    h = h.slice(1, -1);
    if (!h.includes(':')) return null;
  }
  if (h.includes('%')) return null;
  if (h.includes(':')) {
    const groups = v6ToGroups(h);
    if (!groups) return null;
    // Canonical text from Node's own serializer (RFC 5952 compression).
    return new URL(`http://[${groups.map((g) => g.toString(16)).join(':')}]/`).hostname.slice(1, -1);
  }
  return parseLooseV4(h);
}

// ---------------------------------------------------------------------------
// Create-time check

/** Throws PrivateTargetError for a non-http(s) URL or a literal private address (unless allowed). */
export function checkUrlTarget(url: string, allowPrivate: boolean): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PrivateTargetError(`target_url: '${url}' is not an absolute URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new PrivateTargetError(`target_url: scheme '${parsed.protocol.slice(0, -1)}' is not allowed; use http or https`);
  }
  if (allowPrivate) return;
  const literal = parseHostLiteral(parsed.hostname);
  if (literal !== null && isPrivateAddress(literal)) {
    throw new PrivateTargetError(`target_url: ${literal} is a private address (${ALLOW_HINT})`, {
      address: literal,
    });
  }
}

// ---------------------------------------------------------------------------
// Connect-time guard

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `net.connect` lookup that resolves like dns.lookup but refuses private results. */
function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as dns.LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(new PrivateTargetConnectError(hostname, bad.address), []);
    if (list.length === 0) {
      const e: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      e.code = 'ENOTFOUND';
      return callback(e, []);
    }
    if (options.all) return callback(null, list);
    return callback(null, list[0].address, list[0].family);
  });
}

/**
 * An undici Agent whose every connection is checked at connect time: literal
 * private IPs are refused before dialling, and host names are resolved through
 * `guardedLookup`, so the address checked is the address connected to.
 */
export function createGuardedAgent(opts: { allowPrivate: boolean; connections?: number }): Agent {
  const agentOpts: Agent.Options = {};
  if (opts.connections !== undefined) agentOpts.connections = opts.connections;
  if (opts.allowPrivate) return new Agent(agentOpts);
  const base = buildConnector({ lookup: guardedLookup } as buildConnector.BuildOptions);
  const guardedConnect: buildConnector.connector = function guardedConnect(connOpts, callback) {
    const literal = parseHostLiteral(connOpts.hostname);
    // net.connect skips the lookup for IP literals (including zone-id forms), so check them here.
    const refused = literal !== null ? isPrivateAddress(literal) : net.isIP(connOpts.hostname) !== 0;
    if (refused) {
      callback(new PrivateTargetConnectError(connOpts.hostname, literal ?? connOpts.hostname), null);
      return;
    }
    base(connOpts, callback);
  };
  return new Agent({ ...agentOpts, connect: guardedConnect });
}
