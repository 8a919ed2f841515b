/**
 * An OTLP/HTTP endpoint for the traces and metrics tests: every post's
 * path, content type and size kept, JSON bodies decoded. It answers 200 in
 * the post's own encoding.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpPost {
  path: string;
  contentType: string;
  bytes: number;
  /** The decoded body of a JSON post; null for protobuf. */
  json: any;
}

export interface OtlpReceiver {
  url: string;
  posts: OtlpPost[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const posts: OtlpPost[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = String(req.headers['content-type'] ?? '');
      const isJson = contentType.startsWith('application/json');
      posts.push({ path: req.url ?? '', contentType, bytes: body.length, json: isJson ? JSON.parse(body.toString('utf8')) : null });
      res.writeHead(200, { 'content-type': isJson ? 'application/json' : 'application/x-protobuf' });
      res.end(isJson ? '{}' : '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
