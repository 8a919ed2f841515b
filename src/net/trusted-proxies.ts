/**
 * Which peers may tell Switchyard who the client is (`SWITCHYARD_TRUSTED_PROXIES`,
 * parsed in config.ts). X-Forwarded-For is walked from the right, as
 * Express's and Fastify's `trust proxy` do (through @fastify/proxy-addr, the
 * library Fastify uses): the socket's address first, then each address the
 * proxies appended; the first one not trusted is the client. A hop count
 * trusts that many hops whatever their address (only safe when nothing but
 * the proxies reaches the port); a list trusts a hop when its address is in
 * it. With no setting nothing is trusted and none of this runs.
 */
import proxyAddr from '@fastify/proxy-addr';

/** `{ hops: 1 }`: trust the nearest hop; `{ addresses: [...] }`: trust hops whose address is listed (IPs and CIDRs). */
export type TrustedProxies = { readonly hops: number } | { readonly addresses: readonly string[] };

/** Decides whether hop `i` (0: the socket's peer) at `address` is a trusted proxy. */
export type TrustFn = (address: string, i: number) => boolean;

/** The trust function of a setting (also handed to Fastify's `trustProxy`, so `request.ip` agrees). */
export function trustFunction(trusted: TrustedProxies): TrustFn {
  if ('hops' in trusted) {
    const hops = trusted.hops;
    return function trustHops(_address, i) {
      return i < hops;
    };
  }
  // compile() throws on an entry that is no address or CIDR: config.ts relies on it to refuse one.
  return proxyAddr.compile([...trusted.addresses]);
}

/**
 * The client's address: `socketAddress` when that peer is not trusted,
 * otherwise the first untrusted address of X-Forwarded-For read from the
 * right (the leftmost when all are trusted). `rawHeaders` is node's
 * `[name, value, ...]`; several X-Forwarded-For headers count as one list.
 */
export function clientAddress(rawHeaders: readonly string[], socketAddress: string, trust: TrustFn): string {
  if (!trust(socketAddress, 0)) return socketAddress;
  let forwarded: string | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === 15 && name.toLowerCase() === 'x-forwarded-for') {
      forwarded = forwarded === undefined ? rawHeaders[i + 1] : `${forwarded}, ${rawHeaders[i + 1]}`;
    }
  }
  if (forwarded === undefined) return socketAddress;
  const all = proxyAddr.all(
    { headers: { 'x-forwarded-for': forwarded }, socket: { remoteAddress: socketAddress } } as unknown as Parameters<typeof proxyAddr.all>[0],
    trust,
  );
  return all[all.length - 1];
}
