/**
 * The `?dry_run=true` query of management writes, and how its answer goes
 * out: 200 with a DryRunResult (src/dry-run.ts), never the resource's own
 * response schema (which would strip the fields). A serializer of its own
 * leaves Fastify no schema to take the type from, so the type is set here:
 * without it generated clients (@hey-api) hand back a stream, not JSON.
 */
import type { FastifyReply } from 'fastify';
import type { DryRunResult } from '../dry-run.js';
import { Type, stringEnum, type Static } from './schema/kit.js';

export const dryRunQuerySchema = Type.Object(
  {
    dry_run: Type.Optional(
      stringEnum(['true', 'false'], {
        description: 'Validate fully (function code compiled in a worker) and answer what would change, writing nothing',
      }),
    ),
  },
  { additionalProperties: false },
);

export type DryRunQuery = Static<typeof dryRunQuerySchema>;

export const dryRunSchema = {
  type: 'object',
  properties: {
    dry_run: { type: 'boolean', const: true },
    action: { type: 'string', enum: ['create', 'update', 'delete', 'none'] },
    changes: { type: 'array', items: { type: 'string' } },
  },
  required: ['dry_run', 'action', 'changes'],
} as const;

export function sendDryRun(reply: FastifyReply, result: DryRunResult): FastifyReply {
  return reply.code(200).type('application/json; charset=utf-8').serializer(JSON.stringify).send(result);
}
