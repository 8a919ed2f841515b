/**
 * The Fastify instance the route modules register on: with the TypeBox type
 * provider, `request.body`, `.params` and `.query` are typed from the route's
 * own schemas (TypeBox's `Static` also reads plain `as const` JSON schemas),
 * so a route's input type cannot drift from what it validates.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';

export type TypedApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

export const typed = (app: FastifyInstance): TypedApp => app.withTypeProvider<TypeBoxTypeProvider>();
