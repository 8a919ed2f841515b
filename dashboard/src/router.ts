/**
 * Hash routes (`#/functions/hello`): every view has a URL that can be shared,
 * and the server serves one page at `/` with no fallback for other paths.
 */
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { view: 'overview' }
  | { view: 'functions' }
  | { view: 'function'; name: string | null; run?: string; version?: string }
  | { view: 'apis' }
  | { view: 'api'; id: string }
  | { view: 'webhooks' }
  | { view: 'webhook'; id: string | null }
  | { view: 'delivery'; id: string }
  | { view: 'events' }
  | { view: 'event-types' }
  | { view: 'keys' }
  | { view: 'applications' }
  | { view: 'not-found'; path: string };

/** A segment as written, or null when its percent-escapes are malformed (`%E0%A4%A`). */
function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const decoded = raw.map(decodeSegment);
  // A link anyone can type must never throw out of the router (the page would stay blank): it finds nothing.
  if (decoded.includes(null)) return { view: 'not-found', path: raw.join('/') };
  const parts = decoded as string[];
  const [first, second] = parts;
  if (parts.length === 0 || (first === 'overview' && !second)) return { view: 'overview' };
  if (first === 'functions') {
    if (!second) return { view: 'functions' };
    // `#/functions/<name>/runs/<id>`: the page with that background run opened (the overview's failures link there).
    if (parts[2] === 'runs' && parts[3]) return { view: 'function', name: second, run: parts[3] };
    // `#/functions/<name>/versions/<n>`: the page with that version of its history opened.
    if (parts[2] === 'versions' && parts[3]) return { view: 'function', name: second, version: parts[3] };
    return { view: 'function', name: second === 'new' ? null : second };
  }
  if (first === 'apis') return second ? { view: 'api', id: second } : { view: 'apis' };
  if (first === 'webhooks') return second ? { view: 'webhook', id: second === 'new' ? null : second } : { view: 'webhooks' };
  if (first === 'deliveries' && second) return { view: 'delivery', id: second };
  if (first === 'events' && !second) return { view: 'events' };
  if (first === 'event-types' && !second) return { view: 'event-types' };
  if (first === 'keys' && !second) return { view: 'keys' };
  if (first === 'applications' && !second) return { view: 'applications' };
  return { view: 'not-found', path: parts.join('/') };
}

export const href = (...segments: string[]) => `#/${segments.map(encodeURIComponent).join('/')}`;

export function navigate(...segments: string[]): void {
  location.hash = href(...segments);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
