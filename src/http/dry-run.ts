/**
 * How the answer of a `?dry_run=true` write goes out (its schemas are in
 * src/schema/dry-run.ts): 200 with a DryRunResult (src/dry-run.ts), never the
 * resource's own response schema (which would strip the fields). A serializer of its own
 * leaves Fastify no schema to take the type from, so the type is set here:
 * without it generated clients (@hey-api) hand back a stream, not JSON.
 */
import type { FastifyReply } from 'fastify';
import type { DryRunResult } from '../dry-run.js';

export function sendDryRun(reply: FastifyReply, result: DryRunResult): FastifyReply {
  return reply.code(200).type('application/json; charset=utf-8').serializer(JSON.stringify).send(result);
}
