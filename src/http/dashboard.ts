/**
 * Serves the web dashboard (built by `vite build` into dist/dashboard/ at
 * `npm run build`, source in dashboard/): `GET /` answers its index.html,
 * `GET /assets/<file>` its hashed scripts and styles. Both are public: they
 * hold no data (the page asks for the admin key and sends it with each API
 * call). Only files the build wrote into dist/dashboard/assets/ are served,
 * looked up by exact name in a listing read once, so no request path ever
 * reaches the file system (no traversal to defend against).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { negotiateEncoding, type Coding } from '../gateway/policy/compression.js';
import { COMPRESS_THRESHOLD } from './compression.js';
import { NotFoundError } from '../errors.js';
import { OWN_ORIGIN_HEADERS, originOf, type InvokeOrigin } from './common.js';

/** dist/http/dashboard.js -> dist/dashboard/ (the build's output folder). */
const DEFAULT_DIR = fileURLToPath(new URL('../dashboard/', import.meta.url));

/**
 * No inline script or style anywhere: Vite emits external files only, and the
 * editor's styles go through a nonce-less constructed stylesheet (see
 * dashboard/src/views/code-editor.tsx), which `style-src 'self'` allows.
 */
export const DASHBOARD_CSP = dashboardCsp(null);

/**
 * `invokeOrigin`: where the try-it panel sends requests when that is not the
 * page's own origin (an admin listener apart from the public one).
 */
export function dashboardCsp(invokeOrigin: string | null): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    invokeOrigin === null ? "connect-src 'self'" : `connect-src 'self' ${invokeOrigin}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

interface Asset {
  body: Buffer;
  type: string;
  /** Each coding's bytes, made once on first request (the files never change while served). */
  encoded: Partial<Record<Coding, Promise<Buffer>>>;
}

/** Static files: brotli's best quality is worth its cost once. */
function encodeStatic(body: Buffer, coding: Coding): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, out: Buffer) => (err ? reject(err) : resolve(out));
    if (coding === 'br') {
      brotliCompress(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }, done);
    } else gzip(body, { level: 9 }, done);
  });
}

/** Whether an asset is worth compressing (images and fonts already are). */
const compressible = (asset: Asset) => asset.body.length >= COMPRESS_THRESHOLD && asset.type !== 'image/png' && asset.type !== 'font/woff2';

/**
 * Starts compressing every asset once the page is asked for, off the event
 * loop (libuv's pool), so the page's own script requests find the bytes
 * made or on their way rather than each starting brotli's slowest quality.
 */
export function warmAssets(build: Built): void {
  for (const asset of build.assets.values()) {
    if (!compressible(asset)) continue;
    for (const coding of ['br', 'gzip'] as const) (asset.encoded[coding] ??= encodeStatic(asset.body, coding)).catch(() => undefined);
  }
}

/** The asset's bytes for this caller, with Content-Encoding and Vary set when they depend on Accept-Encoding. */
export async function assetBody(asset: Asset, acceptEncoding: string | undefined, reply: FastifyReply): Promise<Buffer> {
  if (!compressible(asset)) return asset.body;
  reply.header('vary', 'Accept-Encoding');
  const coding = negotiateEncoding(acceptEncoding);
  if (coding === null) return asset.body;
  const encoded = await (asset.encoded[coding] ??= encodeStatic(asset.body, coding));
  reply.header('content-encoding', coding);
  return encoded;
}

/** A Vite build as served: dashboard's and the portal's (portal-page.ts). */
export interface Built {
  html: Buffer;
  assets: Map<string, Asset>;
}

/** Reads the build once; null while there is none (the server still runs, `/` says how to build). */
export function loadBuild(dir: string): Built | null {
  let html: Buffer;
  try {
    html = readFileSync(join(dir, 'index.html'));
  } catch {
    return null;
  }
  const assets = new Map<string, Asset>();
  let names: string[] = [];
  try {
    names = readdirSync(join(dir, 'assets'));
  } catch {
    /* a build with no assets folder serves the page alone */
  }
  for (const name of names) {
    const type = CONTENT_TYPES[extname(name)];
    if (type) assets.set(name, { body: readFileSync(join(dir, 'assets', name)), type, encoded: {} });
  }
  return { html, assets };
}

/** What every management answer carries (server.ts sets it too), no framing, no referrer. */
function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply.headers(OWN_ORIGIN_HEADERS).header('referrer-policy', 'no-referrer').header('x-frame-options', 'DENY');
}

/**
 * Public, and opened by links from anywhere (keyless-guard.ts: only the page's
 * own calls to the API must be same-origin); still only under a loopback
 * `Host` on a server without an admin key.
 */
const PAGE_ROUTE = { config: { public: true, crossSite: true } } as const;

export function registerDashboardRoutes(app: FastifyInstance, invokeOrigin: InvokeOrigin = originOf, dir: string = DEFAULT_DIR): void {
  let built: Built | null = null;
  // Read on first use, and again while there is none, so a build made after start is picked up.
  const current = () => {
    if (built === null && (built = loadBuild(dir)) !== null) warmAssets(built);
    return built;
  };

  app.get(
    '/',
    {
      ...PAGE_ROUTE,
      schema: {
        tags: ['operations'],
        operationId: 'dashboard',
        security: [],
        summary: 'The web dashboard (HTML page; it calls this API with the admin key it asks for)',
        response: {
          200: { description: 'The dashboard page', content: { 'text/html': { schema: { type: 'string' } } } },
          503: {
            description: 'The dashboard was not built (run npm run build)',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async function dashboardPage(request, reply) {
      securityHeaders(reply).header('cache-control', 'no-store');
      const build = current();
      if (!build) {
        return reply
          .code(503)
          .type('text/plain; charset=utf-8')
          .send('The dashboard was not built: run `npm run build` (it writes dist/dashboard/).\n');
      }
      const target = invokeOrigin(request);
      const csp = dashboardCsp(target === originOf(request) ? null : target);
      return reply.header('content-security-policy', csp).type('text/html; charset=utf-8').send(build.html);
    },
  );

  // Left out of the OpenAPI document: its file names change with every build, and
  // API clients have no use for them (the page at `/` names them).
  app.get<{ Params: { file: string } }>(
    '/assets/:file',
    { ...PAGE_ROUTE, schema: { hide: true } },
    async function dashboardAsset(request, reply) {
      const asset = current()?.assets.get(request.params.file);
      if (!asset) throw new NotFoundError('not_found', `No such dashboard file: ${request.params.file}`);
      const body = await assetBody(asset, request.headers['accept-encoding'], reply);
      return securityHeaders(reply).header('cache-control', 'public, max-age=31536000, immutable').type(asset.type).send(body);
    },
  );
}
