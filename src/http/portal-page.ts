/**
 * Serves the consumer portal (built by Vite into dist/portal-ui/, source in
 * portal-ui/): `GET /portal/<application id>` answers its page, and
 * `/portal/assets/<file>` its scripts and styles, on the listener that serves
 * the management API (the admin listener when there is one, never the
 * functions' origin then). The page holds no data: the portal token arrives in
 * the URL's fragment, which browsers never send. The application id is in the
 * path so that the page's CSP can name who may frame it (`frame-ancestors`,
 * the application's `portal.allowed_parents`) before the token is known.
 * Files are served as the dashboard's are (dashboard.ts: a listing read once,
 * looked up by exact name).
 */
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ApplicationService } from '../applications/service.js';
import { APPLICATION_ID_PREFIX } from '../applications/types.js';
import { NotFoundError } from '../errors.js';
import { OWN_ORIGIN_HEADERS } from './common.js';
import { assetBody, loadBuild, warmAssets, type Built } from './dashboard.js';

/** dist/http/portal-page.js -> dist/portal-ui/ (dist/portal/ is src/portal/ compiled). */
const DEFAULT_DIR = fileURLToPath(new URL('../portal-ui/', import.meta.url));

/**
 * Like the dashboard's, but images may come from https (the application's
 * logo), and the page may be framed by the application's allowed parents.
 */
export function portalCsp(allowedParents: readonly string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' https: data:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    allowedParents.length === 0 ? "frame-ancestors 'none'" : `frame-ancestors 'self' ${allowedParents.join(' ')}`,
  ].join('; ');
}

/**
 * No Referer from the page (nothing of it leaks), and X-Frame-Options only
 * when it agrees with the CSP: it cannot name a list of origins, so with
 * allowed parents it is left out and frame-ancestors alone decides.
 */
function securityHeaders(reply: FastifyReply, allowedParents: readonly string[] | null): FastifyReply {
  reply.headers(OWN_ORIGIN_HEADERS).header('referrer-policy', 'no-referrer');
  if (allowedParents !== null && allowedParents.length === 0) reply.header('x-frame-options', 'DENY');
  return reply;
}

/** Public (the page holds no data); opened by links from anywhere. */
const PAGE_ROUTE = { config: { public: true, crossSite: true } } as const;

export interface PortalPageDeps {
  applications: ApplicationService;
  dir?: string;
}

export function registerPortalPage(app: FastifyInstance, { applications, dir = DEFAULT_DIR }: PortalPageDeps): void {
  let built: Built | null = null;
  const current = () => {
    if (built === null && (built = loadBuild(dir)) !== null) warmAssets(built);
    return built;
  };

  app.get<{ Params: { application: string } }>(
    '/portal/:application',
    {
      ...PAGE_ROUTE,
      schema: {
        tags: ['consumer'],
        operationId: 'portalPage',
        security: [],
        summary: "The consumer portal page of an application (open it with the link portal-access answers; the token is in the URL's fragment)",
        params: { type: 'object', properties: { application: { type: 'string', maxLength: 200 } }, required: ['application'] },
        response: {
          200: { description: 'The portal page', content: { 'text/html': { schema: { type: 'string' } } } },
          404: { description: 'No such application', content: { 'text/plain': { schema: { type: 'string' } } } },
          503: { description: 'The portal was not built (run npm run build)', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      },
    },
    async function portalPage(request, reply) {
      reply.header('cache-control', 'no-store');
      const id = request.params.application;
      // Ids only (a uid is the operator's name for a customer, not for its customer's browser).
      const application = id.startsWith(APPLICATION_ID_PREFIX) ? await applications.resolve(id).catch(() => null) : null;
      if (!application) {
        securityHeaders(reply, []).header('content-security-policy', portalCsp([]));
        return reply.code(404).type('text/plain; charset=utf-8').send('No such application.\n');
      }
      const parents = application.portal.allowedParents;
      securityHeaders(reply, parents).header('content-security-policy', portalCsp(parents));
      const build = current();
      if (!build) return reply.code(503).type('text/plain; charset=utf-8').send('The portal was not built: run `npm run build` (it writes dist/portal-ui/).\n');
      return reply.type('text/html; charset=utf-8').send(build.html);
    },
  );

  app.get<{ Params: { file: string } }>(
    '/portal/assets/:file',
    { ...PAGE_ROUTE, schema: { hide: true } },
    async function portalAsset(request, reply) {
      const asset = current()?.assets.get(request.params.file);
      if (!asset) throw new NotFoundError('not_found', `No such portal file: ${request.params.file}`);
      const body = await assetBody(asset, request.headers['accept-encoding'], reply);
      return securityHeaders(reply, null).header('cache-control', 'public, max-age=31536000, immutable').type(asset.type).send(body);
    },
  );
}
