/**
 * Compression of invoke answers for APIs with a `minimumCompressionSize`
 * (REST API semantics: an answer whose body has at least that many bytes is
 * compressed when the caller accepts it; null: never).
 *
 * Why by hand and not @fastify/compress: invocations are served on the raw
 * node:http request ahead of Fastify (src/http/invoke.ts), so a Fastify
 * plugin never sees them. The rules are few: negotiate `Accept-Encoding`
 * (q-values, `identity`, `*`; brotli when br and gzip are equally welcome),
 * leave alone an answer the function already encoded (its own
 * Content-Encoding), bodies that never reach the wire (HEAD, 204, 304), and
 * say `Vary: Accept-Encoding` on every answer whose form depended on it.
 * node:zlib's asynchronous calls run on libuv's pool, off the event loop;
 * brotli quality 4 and gzip level 6 are the speed-for-size points CDNs use
 * for dynamic answers (brotli's default 11 is for static files and costs
 * tens of milliseconds per 50 KB).
 */
import { brotliCompress, constants, gzip } from 'node:zlib';

export type Coding = 'br' | 'gzip';

const BROTLI_QUALITY = 4;
const GZIP_LEVEL = 6;

/** The q-value of one `coding;q=0.5` entry (1 without one; 0 for a malformed one, as RFC 9110 asks). */
function qOf(params: string): number {
  const m = /;\s*q\s*=\s*([^;\s]*)/i.exec(params);
  if (m === null) return 1;
  const q = /^[0-9.]+$/.test(m[1]) ? Number(m[1]) : NaN;
  return Number.isFinite(q) && q >= 0 && q <= 1 ? q : 0;
}

/**
 * The coding to answer with for an `Accept-Encoding` value (several headers
 * joined with ', '), or null for none: the highest q above 0 among br and
 * gzip (`*` standing for either when not named), br on a tie; none when
 * the caller gives `identity` (by name or `*`) a higher q than both.
 */
export function negotiateEncoding(acceptEncoding: string | undefined): Coding | null {
  if (acceptEncoding === undefined || acceptEncoding === '') return null;
  let br: number | undefined;
  let gz: number | undefined;
  let identity: number | undefined;
  let star: number | undefined;
  for (const entry of acceptEncoding.split(',')) {
    const semi = entry.indexOf(';');
    const name = (semi === -1 ? entry : entry.slice(0, semi)).trim().toLowerCase();
    const q = semi === -1 ? 1 : qOf(entry.slice(semi));
    if (name === 'br') br = q;
    else if (name === 'gzip' || name === 'x-gzip') gz = gz === undefined ? q : Math.max(gz, q);
    else if (name === 'identity') identity = q;
    else if (name === '*') star = q;
  }
  const qBr = br ?? star ?? 0;
  const qGz = gz ?? star ?? 0;
  const best = Math.max(qBr, qGz);
  if (best <= 0) return null;
  // Identity is acceptable unless excluded, but only a q the caller gave it can outrank a coding.
  const qIdentity = identity ?? star;
  if (qIdentity !== undefined && qIdentity > best) return null;
  return qBr >= qGz ? 'br' : 'gzip';
}

/** Every Accept-Encoding header of the request, joined as node joins them; undefined when none. */
export function acceptEncodingOf(rawHeaders: string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === 15 && name.toLowerCase() === 'accept-encoding') {
      value = value === undefined ? rawHeaders[i + 1] : `${value}, ${rawHeaders[i + 1]}`;
    }
  }
  return value;
}

export function compress(body: Buffer, coding: Coding): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, out: Buffer) => (err ? reject(err) : resolve(out));
    if (coding === 'br') {
      brotliCompress(
        body,
        {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
            [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
          },
        },
        done,
      );
    } else gzip(body, { level: GZIP_LEVEL }, done);
  });
}

/** Adds `Accept-Encoding` to a Vary the function may have set (unless it says so already, or `*`). */
export function varyOnAcceptEncoding(headers: Record<string, string | string[]>): void {
  const given = headers.vary;
  if (given === undefined) {
    headers.vary = 'Accept-Encoding';
    return;
  }
  const text = Array.isArray(given) ? given.join(', ') : given;
  if (/(^|,)\s*(\*|accept-encoding)\s*(,|$)/i.test(text)) return;
  headers.vary = `${text}, Accept-Encoding`;
}

export interface CompressibleAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: string | Buffer | null;
}

/**
 * The answer's body as it goes on the wire, compressed where the API's
 * threshold, the caller and the answer allow; sets Content-Encoding and Vary.
 * The caller sets Content-Length from what this returns.
 */
export async function compressAnswer(
  answer: CompressibleAnswer,
  threshold: number,
  method: string,
  rawHeaders: string[],
): Promise<string | Buffer | null> {
  const body = answer.body;
  if (body === null || answer.status === 204 || answer.status === 304) return body;
  if (answer.headers['content-encoding'] !== undefined) return body;
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (bytes.length === 0 || bytes.length < threshold) return body;
  varyOnAcceptEncoding(answer.headers);
  // HEAD: the headers a GET would carry but its encoding (the length stays the body's own), nothing compressed for no body.
  if (method === 'HEAD') return body;
  const coding = negotiateEncoding(acceptEncodingOf(rawHeaders));
  if (coding === null) return bytes;
  answer.headers['content-encoding'] = coding;
  return compress(bytes, coding);
}
