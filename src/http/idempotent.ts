/**
 * Answers a management operation at most once per idempotency key
 * (src/events/idempotency.ts): the scopes that apply are claimed outermost
 * first, and the answer, first or replayed, is sent with its stored status.
 */
import type { FastifyReply } from 'fastify';
import { REPLAYED_HEADER, type Idempotency, type IdempotencyScope, type StoredAnswer } from '../events/idempotency.js';

export async function sendOnce(
  reply: FastifyReply,
  idempotency: Idempotency,
  scopes: IdempotencyScope[],
  hash: string,
  op: () => Promise<StoredAnswer>,
): Promise<FastifyReply> {
  // Each scope wraps the next: a publish with a key and an event id claims the key, then the id.
  const run = scopes.reduceRight<() => Promise<StoredAnswer & { replayed?: boolean }>>(
    (inner, where) => () => idempotency.run(where, hash, inner),
    op,
  );
  const answer = await run();
  if (answer.replayed) reply.header(REPLAYED_HEADER, 'true');
  return reply.code(answer.status).type('application/json; charset=utf-8').send(answer.body);
}
