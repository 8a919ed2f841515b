/**
 * HTTP as an attacker writes it, for the security suite: `exactRequest` sends
 * the request target byte for byte (fetch and `new URL` would resolve `..`,
 * `%2e%2e` and the like before sending), `sendBytes` writes arbitrary bytes
 * on a fresh connection (malformed requests the HTTP parser refuses).
 */
import http from 'node:http';
import net from 'node:net';

export interface WireAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** One request whose target (`/a/../b`, `http://host/x`, `*`) goes out exactly as given. */
export function exactRequest(
  baseUrl: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: Buffer | string,
): Promise<WireAnswer> {
  const { hostname, port } = new URL(baseUrl);
  // Node frames no body of a GET or DELETE by itself: without a length, its bytes would read as a next request.
  const framed = body === undefined ? headers : { 'content-length': String(Buffer.byteLength(body)), ...headers };
  return new Promise((resolve, reject) => {
    const req = http.request({ method, host: hostname, port, path: target, headers: framed, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text) });
      });
    });
    req.end(body);
  });
}

/**
 * Writes `bytes` on a new connection and reads until the server closes it (or
 * `ms` pass). Parses the first response's status line, headers and body.
 */
export function sendBytes(baseUrl: string, bytes: Buffer | string, ms = 5000): Promise<WireAnswer & { raw: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), ms);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {
      /* a reset after the answer is expected: the server closes refused connections */
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('latin1');
      const end = raw.indexOf('\r\n\r\n');
      if (end === -1) return reject(new Error(`no HTTP answer: ${JSON.stringify(raw.slice(0, 200))}`));
      const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
      const headers: http.IncomingHttpHeaders = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? NaN);
      const rest = Buffer.from(raw.slice(end + 4), 'latin1');
      const text = (Number.isNaN(length) ? rest : rest.subarray(0, length)).toString('utf8');
      resolve({ status: Number(statusLine.split(' ')[1]), headers, text, json: parseJson(text), raw });
    });
  });
}

/** `exactRequest` with a JSON body (`content-type` set) when `body` is given. */
export function exactJsonRequest(
  baseUrl: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<WireAnswer> {
  return body === undefined
    ? exactRequest(baseUrl, method, target, headers)
    : exactRequest(baseUrl, method, target, { 'content-type': 'application/json', ...headers }, JSON.stringify(body));
}
