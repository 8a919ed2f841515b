/**
 * The answers every part of the API shares: errors, deletions, dry runs and
 * the health probes.
 */
import { ERROR_CODES } from '../errors.js';
import type { DryRunResult } from '../dry-run.js';
import { dryRunSchema } from './dry-run.js';
import { Type, named, nullableString, stringEnum, type Static } from './kit.js';

const string = () => Type.String();

/** A project's name as `switchyard apply` records it on what it makes (the project file's `project`). */
export const PROJECT_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$';

/**
 * The `project` field of functions, APIs and webhooks: which project's
 * apply made it; null: none (made by hand). apply refuses to change what
 * another project owns unless told to take it over.
 */
export const projectField = () =>
  nullableString({
    pattern: PROJECT_NAME_PATTERN,
    description: "The project whose `switchyard apply` made it (or took it over); null: none. apply changes another project's objects only with --take-over",
  });

export const ErrorSchema = named(
  'Error',
  Type.Object(
    {
      error: Type.String({ description: 'What went wrong, for people' }),
      code: stringEnum(ERROR_CODES, { description: 'Stable snake_case code (docs/errors.md says what each means)' }),
      details: Type.Optional(Type.Unknown({ description: 'More about the error, e.g. `{ "field": "timeout_ms" }`' })),
      requestId: Type.Optional(Type.String({ description: 'Only on 500s: the request id to look up in the server log' })),
    },
    { description: 'Every error answer. `code` is stable (docs/errors.md lists each); `details` names the field when one is wrong.' },
  ),
);

export const DeletedSchema = named(
  'Deleted',
  Type.Object({
    deleted: Type.Literal(true),
    id: Type.Optional(Type.String({ description: 'The id of what was deleted (APIs, routes, webhooks)' })),
    name: Type.Optional(Type.String({ description: 'The name of what was deleted (functions)' })),
  }),
);

export const DryRunSchema = named(
  'DryRun',
  Type.Unsafe<DryRunResult>({ description: 'The answer of a write sent with `?dry_run=true`: what it would do. Nothing is written.', ...dryRunSchema }),
);

export const HealthSchema = named(
  'Health',
  Type.Object({
    status: Type.Literal('ok'),
    pid: Type.Integer({ description: 'Id of the server process that answered (one of several with --processes above 1).' }),
  }),
);

export const ReadinessSchema = named(
  'Readiness',
  Type.Object({ status: stringEnum(['ready', 'unavailable', 'draining']), error: Type.Optional(string()), code: Type.Optional(string()) }),
);

export type DeletedView = Static<typeof DeletedSchema>;
