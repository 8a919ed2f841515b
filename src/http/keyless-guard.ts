/**
 * What keeps a server without an admin key (`switchyard dev`, a local
 * `switchyard serve`) to its own machine's browser pages. Such a server binds a
 * loopback address (config.ts refuses anything else without a key), but a web
 * page the operator opens can still reach it two ways:
 *
 * - DNS rebinding: a name the attacker controls first resolves to the
 *   attacker, then to 127.0.0.1, and the page, now "same origin" with the
 *   server, reads and writes the management API. The request still carries
 *   the attacker's name in `Host`, so only loopback names are answered:
 *   `localhost` and `*.localhost` (browsers resolve them to loopback
 *   themselves, RFC 6761), 127.0.0.0/8 and ::1 in any spelling, IPv4-mapped
 *   ones included. An IP literal never rebinds, and browsers canonicalise it
 *   before sending (`http://2130706433/` arrives as `127.0.0.1`).
 *   `X-Forwarded-Host` is never read: a rebound page may set any header.
 * - Cross-site requests: a page elsewhere cannot read the answers, but a form
 *   or a no-cors fetch still makes the server act (a POST with no body to
 *   `/api/functions/<name>/invoke` runs the function). Browsers name the page
 *   that asks in `Origin` (every POST, PUT, DELETE) and say `Sec-Fetch-Site`:
 *   anything but this server's own origin is refused. Clients that are not
 *   browsers (curl, the CLI, scripts) send neither and are served as before.
 *
 * Exempt: the probes (`/healthz`, `/readyz`: a prober may use any name, and
 * they say nothing), and, from the cross-site rule only, the dashboard's page
 * and files (a link from elsewhere opens the page; it holds no data, and its
 * own calls to the API are same-origin). The public invocation routes are
 * served ahead of Fastify and untouched: functions answer whoever calls them.
 *
 * With an admin key none of this applies (server.ts registers this only
 * without one): a rebound or cross-site page cannot send the
 * `Authorization: Bearer` header the key check wants (no CORS answer allows
 * it), and the key the dashboard keeps in sessionStorage belongs to the real
 * origin, not to the rebound one. Checking Origin there would only break
 * deployments whose proxy rewrites `Host`.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CrossOriginRefusedError, HostNotAllowedError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answered under any `Host` by a server without an admin key (the probes). */
    anyHost?: boolean;
    /** Answered to requests from other sites by a server without an admin key (the dashboard's page and files). */
    crossSite?: boolean;
  }
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** What a Host header may hold: a name or address and a port (no userinfo, path or spaces to confuse a parser). */
const HOST_CHARS = /^[A-Za-z0-9.\-_[\]:]+$/;

/** The host of a `Host` value or origin (`[::1]:3000` -> `::1`, `LocalHost.:80` -> `localhost`); null when malformed. */
function hostnameOf(authority: string): string | null {
  if (!HOST_CHARS.test(authority)) return null;
  try {
    const name = new URL(`http://${authority}`).hostname.toLowerCase();
    // A fully qualified name may end in a dot; it is the same name.
    return name.endsWith('.') ? name.slice(0, -1) : name;
  } catch {
    return null;
  }
}

/** Whether a hostname only ever reaches this machine. */
export function isLoopbackName(hostname: string): boolean {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIPv4(bare)) return LOOPBACK.check(bare, 'ipv4');
  if (isIPv6(bare)) return LOOPBACK.check(bare, 'ipv6');
  return false;
}

/** Whether a `Host` header value names this machine by a loopback name, with any port. */
export function isLoopbackHostHeader(host: string | undefined): boolean {
  if (!host) return false;
  const name = hostnameOf(host);
  return name !== null && isLoopbackName(name);
}

/**
 * Whether `origin` (an `Origin` header) is the origin the request was sent
 * to: the same host and port as `Host`, the port defaulted by the origin's
 * scheme. `null` (sandboxed frames, `file:` pages) is never the same.
 */
export function isSameOrigin(origin: string, host: string | undefined): boolean {
  if (!host || !HOST_CHARS.test(host)) return false;
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return false;
  }
  if (from.protocol !== 'http:' && from.protocol !== 'https:') return false;
  if (from.origin === 'null' || origin !== from.origin) return false;
  try {
    return new URL(`${from.protocol}//${host}`).host === from.host;
  } catch {
    return false;
  }
}

/** `Sec-Fetch-Site` values that are this origin's own requests, or the user's (typed URL, bookmark). */
const OWN_FETCH_SITES = new Set(['same-origin', 'none']);

/** Throws the refusal a request to a server without an admin key gets, if any. */
export function checkKeylessRequest(request: FastifyRequest): void {
  const config = request.routeOptions.config;
  if (config.anyHost === true) return;
  const host = request.headers.host;
  if (!isLoopbackHostHeader(host)) throw new HostNotAllowedError(host ?? '(none)');
  if (config.crossSite === true) return;
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string' && !OWN_FETCH_SITES.has(site)) throw new CrossOriginRefusedError(`Sec-Fetch-Site: ${site}`);
  const origin = request.headers.origin;
  if (origin !== undefined && !isSameOrigin(origin, host)) throw new CrossOriginRefusedError(`Origin: ${origin}`);
}

/**
 * Registers the checks on every request Fastify serves for which `appliesTo`
 * holds (by default all; server.ts leaves out a public listener of its own that
 * other machines reach); call only when no admin key is set.
 */
export function registerKeylessGuard(app: FastifyInstance, appliesTo: (request: FastifyRequest) => boolean = () => true): void {
  app.addHook('onRequest', async function keepToThisMachine(request) {
    if (appliesTo(request)) checkKeylessRequest(request);
  });
}
