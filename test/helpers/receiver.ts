/**
 * Test helpers beside service.ts: a real local HTTP server that records what
 * it receives (a fetch target for sandboxed functions), a raw node:http client
 * for what fetch cannot express (repeated header lines), and the pids of a
 * process's children (the runtime's worker processes) read from /proc.
 */
import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** Answers every request with `answer` (default 200 `{"ok":true}`) and records it. */
export async function startReceiver(
  answer: (req: ReceivedRequest) => { status: number; body: string; headers?: Record<string, string> } = () => ({
    status: 200,
    body: '{"ok":true}',
    headers: { 'content-type': 'application/json' },
  }),
): Promise<Receiver> {
  return startScriptedReceiver((got, res) => {
    const a = answer(got);
    res.writeHead(a.status, a.headers ?? {});
    res.end(a.body);
  });
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * One request with an exact header list: `headers` is flat `[name, value, ...]`
 * and repeated names go out as separate header lines (fetch would join them).
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: string[] = [],
  body?: Buffer | string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, baseUrl);
    // With an array of headers node adds no Host of its own, and HTTP/1.1 requires one.
    const list = headers.some((h, i) => i % 2 === 0 && h.toLowerCase() === 'host') ? [...headers] : ['host', url.host, ...headers];
    if (body !== undefined) list.push('content-length', String(Buffer.byteLength(body)));
    const req = http.request({ method, host: url.hostname, port: url.port, path: url.pathname + url.search, headers: list });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.end(body);
  });
}

/** Direct children of `pid` (Linux /proc). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text) for (const s of text.split(/\s+/)) out.push(Number(s));
    } catch {
      /* thread ended meanwhile */
    }
  }
  return out;
}

/** The command line of a process, '' when it is gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

export async function waitFor<T>(probe: () => T | Promise<T>, timeoutMs = 10000, stepMs = 50): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

export interface HoldingReceiver extends Receiver {
  /** Answers every held request (and every later one) with 200. */
  release(): void;
  /** Holds requests again from now on (until the next `release()`). */
  hold(): void;
}

/** Records requests and holds them unanswered until `release()`: a target that hangs. */
export async function startHoldingReceiver(): Promise<HoldingReceiver> {
  const requests: ReceivedRequest[] = [];
  const held: http.ServerResponse[] = [];
  let released = false;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (released) res.end('{"ok":true}');
      else held.push(res);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    release() {
      released = true;
      for (const res of held.splice(0)) if (!res.destroyed) res.end('{"ok":true}');
    },
    hold() {
      released = false;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** A local port nothing listens on (bound, then closed again). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/**
 * Records each request, then hands it with its response to `handle`, which
 * answers when it likes (or never): a target whose behaviour a test scripts.
 */
export async function startScriptedReceiver(
  handle: (req: ReceivedRequest, res: http.ServerResponse, index: number) => void,
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      requests.push(got);
      handle(got, res, requests.length - 1);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
