/**
 * The typed client's stream reader (src/client/events.ts) against a real
 * node:http server that writes the event stream byte for byte: CRLF and CR
 * line endings (a CRLF cut between two writes too), a leading BOM, comments,
 * `retry:` (which sets the wait before reconnecting), and the refusals it
 * throws as StreamRefusedError (exported, with the typed code) or
 * UnexpectedAnswerError.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  StreamRefusedError,
  SwitchyardApiError,
  UnexpectedAnswerError,
  followDeliveries,
  followLogs,
  type ErrorCode,
  type StreamEvent,
} from '../../src/client/index.js';

let server: Server | null = null;
const requests: string[] = [];

/** A server whose n-th connection is answered by `handlers[n]` (the last one again after that). */
async function serve(...handlers: Array<(req: IncomingMessage, res: ServerResponse) => void>): Promise<string> {
  requests.length = 0;
  server = createServer((req, res) => {
    requests.push(req.url!);
    handlers[Math.min(requests.length - 1, handlers.length - 1)](req, res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = null;
});

const log = (id: number, message: string) =>
  JSON.stringify({ id, function: 'f', version: 1, request_id: null, level: 'info', message, ts: '2026-01-01T00:00:00.000Z' });

/** Writes each piece as its own chunk, one after the other. */
function writeSlowly(res: ServerResponse, pieces: Array<string | Buffer>, end = true): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let i = 0;
  const next = () => {
    if (i === pieces.length) {
      if (end) res.end();
      return;
    }
    res.write(pieces[i++], () => setImmediate(next));
  };
  next();
}

describe('followLogs reads the wire format as the SSE standard has it', () => {
  it('takes CRLF and CR line endings, a CRLF split across chunks, a leading BOM, comments and multi-line data', async () => {
    const url = await serve((_req, res) =>
      writeSlowly(res, [
        Buffer.from([0xef, 0xbb, 0xbf]),
        // A CRLF cut in two inside an event: one line end, not the blank line that ends the event.
        `: ping\r\n\r\nevent: log\r\nid: 1\r`,
        `\ndata: ${log(1, 'one')}\r`,
        `\n\r\n`,
        `event: log\rid: 2\rdata: ${log(2, 'two')}\r\r`,
        `event: invocation\r\ndata: {"function":"f","api_id":null,\r\ndata: "method":"GET","path":"/","status":200,"duration_ms":1,"request_id":"r","ts":"t","outcome":"ok"}\r\n\r\n`,
      ]),
    );
    const seen: StreamEvent[] = [];
    for await (const event of followLogs({ baseUrl: url, function: 'f', reconnect: false })) seen.push(event);
    expect(seen.map((e) => (e.event === 'log' ? [e.id, e.data.message] : [e.event, e.data.path]))).toEqual([
      [1, 'one'],
      [2, 'two'],
      ['invocation', '/'],
    ]);
  });

  it("reconnects after the server's retry: wait, resuming after the last line seen", async () => {
    const url = await serve(
      (_req, res) => writeSlowly(res, [`retry: 20\n\nevent: log\nid: 5\ndata: ${log(5, 'five')}\n\n`]),
      (_req, res) => writeSlowly(res, [`event: log\nid: 6\ndata: ${log(6, 'six')}\n\n`], false),
    );
    const stop = new AbortController();
    const seen: number[] = [];
    // Ten minutes unless the server's retry: replaces it: the test would time out.
    for await (const event of followLogs({ baseUrl: url, function: 'f', reconnectDelayMs: 600_000, signal: stop.signal })) {
      if (event.event === 'log') seen.push(event.id);
      if (seen.length === 2) stop.abort();
    }
    expect(seen).toEqual([5, 6]);
    expect(requests).toEqual(['/api/functions/f/logs/stream', '/api/functions/f/logs/stream?since=5']);
  });
});

describe('refused streams', () => {
  it('throw StreamRefusedError, a SwitchyardApiError with the typed code', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'Missing or wrong admin key', code: 'unauthorized' }));
    });
    const refused = await followDeliveries({ baseUrl: url }).next().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(StreamRefusedError);
    expect(refused).toBeInstanceOf(SwitchyardApiError);
    expect(refused).toMatchObject({ status: 401, code: 'unauthorized', message: 'Missing or wrong admin key' });
    expectTypeOf<StreamRefusedError['code']>().toEqualTypeOf<ErrorCode>();
  });

  it('throw UnexpectedAnswerError for an answer that is not the API’s', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>Not here</h1>');
    });
    const refused = await followLogs({ baseUrl: url }).next().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(UnexpectedAnswerError);
    expect(refused).toMatchObject({ status: 404 });
  });
});
