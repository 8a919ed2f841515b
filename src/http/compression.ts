/**
 * Compression of the management API's answers (lists, the OpenAPI document,
 * /metrics) with @fastify/compress: gzip or brotli as the caller's
 * Accept-Encoding asks, for bodies of 1 KB and more, `Vary: Accept-Encoding`
 * and the compressed Content-Length set by the plugin. Request bodies are not
 * decompressed (no client of this API sends them so). The dashboard's assets
 * are compressed once and kept (dashboard.ts) and carry their own
 * Content-Encoding, which the plugin leaves alone; invocations never pass
 * through Fastify (src/gateway/policy/compression.ts compresses them).
 */
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** Below this, compression saves less than it costs. */
export const COMPRESS_THRESHOLD = 1024;

export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    globalCompression: true,
    globalDecompression: false,
    threshold: COMPRESS_THRESHOLD,
    encodings: ['br', 'gzip'],
  });
}
