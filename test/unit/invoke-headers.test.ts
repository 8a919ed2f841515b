import { describe, expect, it } from 'vitest';
import { invokeHeaders, requestIdOf } from '../../src/http/invoke.js';

describe('invokeHeaders (one pass over rawHeaders instead of req.headers)', () => {
  it('reads the request id, content length and chunked framing whatever the case of the names', () => {
    expect(
      invokeHeaders(['Host', 'x', 'X-Request-Id', 'abc-1', 'Content-Length', '12', 'Transfer-Encoding', 'chunked']),
    ).toEqual({ requestId: 'abc-1', contentLength: '12', chunked: true, serviceWorker: false });
    expect(invokeHeaders(['host', 'x', 'accept', '*/*'])).toEqual({
      requestId: undefined,
      contentLength: undefined,
      chunked: false,
      serviceWorker: false,
    });
  });

  it('reads an X-Request-Id sent twice as no id, as node joins the two with a comma', () => {
    const h = invokeHeaders(['x-request-id', 'a', 'X-REQUEST-ID', 'b']);
    expect(h.requestId).toBeUndefined();
    expect(requestIdOf(h.requestId)).toMatch(/^[0-9a-f]{24}$/);
  });

  it('keeps the first Content-Length, as node does', () => {
    expect(invokeHeaders(['content-length', '3', 'Content-Length', '9999']).contentLength).toBe('3');
  });

  it('ignores headers of the same length with other names', () => {
    expect(invokeHeaders(['x-request-ix', 'a', 'content-lengtx', '5', 'transfer-encodinx', 'y', 'service-workex', 'script'])).toEqual({
      requestId: undefined,
      contentLength: undefined,
      chunked: false,
      serviceWorker: false,
    });
  });

  it('notices a Service-Worker header (a service worker script fetch) whatever its case, beside Content-Length', () => {
    expect(invokeHeaders(['Service-Worker', 'script', 'Content-Length', '0'])).toMatchObject({ serviceWorker: true, contentLength: '0' });
    expect(invokeHeaders(['service-worker', 'script']).serviceWorker).toBe(true);
  });

  it('uses a given id only when it is safe to echo', () => {
    expect(requestIdOf('abc.DEF:1-2_3')).toBe('abc.DEF:1-2_3');
    expect(requestIdOf('bad id')).not.toBe('bad id');
    expect(requestIdOf(undefined)).toMatch(/^[0-9a-f]{24}$/);
  });
});
