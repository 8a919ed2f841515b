/**
 * The `?dry_run=true` query of management writes and the shape of its answer
 * (src/dry-run.ts builds it; http/dry-run.ts sends it).
 */
import { Type, stringEnum, type Static } from './kit.js';

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
