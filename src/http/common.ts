/**
 * Pieces shared by the management routes: the error and pagination schemas and
 * the `Link: <...>; rel="next"` header for lists.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Page } from '../types.js';
import { Type, type Static } from '../schema/kit.js';

/** The `Link` response header of list operations. */
export const LINK_HEADER = {
  link: { type: 'string', description: 'Present when there is a next page: `</api/...?limit=N&after=ID>; rel="next"`' },
} as const;

/** `?limit=`: how many items a page holds. */
export const pageLimit = (description = 'Page size, 1 to 1000 (default 100)') => Type.Integer({ minimum: 1, maximum: 1000, description });

export const pageQuerySchema = Type.Object(
  {
    limit: Type.Optional(pageLimit()),
    after: Type.Optional(Type.String({ maxLength: 200, description: 'Return items after this id (or name for functions)' })),
  },
  { additionalProperties: false },
);

export type PageQuery = Static<typeof pageQuerySchema>;

/** Reads `?limit=&after=`; asks the store for one extra item to know whether a next page exists. */
export function readPage(query: PageQuery): Page & { requested: number } {
  const requested = query.limit ?? 100;
  return { limit: requested + 1, after: query.after, requested };
}

/** Trims the extra item and sets the Link header when there is a next page. */
export function pageOf<T>(
  items: T[],
  page: { requested: number },
  request: FastifyRequest,
  reply: FastifyReply,
  keyOf: (item: T) => string,
): T[] {
  if (items.length <= page.requested) return items;
  const shown = items.slice(0, page.requested);
  const url = new URL(request.url, 'http://placeholder');
  url.searchParams.set('limit', String(page.requested));
  url.searchParams.set('after', keyOf(shown[shown.length - 1]));
  reply.header('link', `<${url.pathname}${url.search}>; rel="next"`);
  return shown;
}

/** The scheme and host the caller used, for absolute URLs in answers. */
export function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/**
 * On every answer of the management API and the dashboard: their content is
 * for their own origin only. No other site may embed it (CORP), a page that
 * opens the dashboard or that it opens gets no handle on it (COOP), and no
 * answer is read as another type than it says (docs/security.md, "Origins").
 */
export const OWN_ORIGIN_HEADERS = Object.freeze({
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
});

/** The origin a caller of the management API reaches invocations at (listeners.ts builds it). */
export type InvokeOrigin = (request: FastifyRequest) => string;
