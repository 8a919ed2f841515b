/**
 * The event-type catalogue's domain types (src/events/catalogue.ts serves
 * them, the store keeps them, src/schema/event-types.ts answers them).
 */

/** What a publish of a catalogued type does when its data fails the schema. */
export const VALIDATION_MODES = ['off', 'warn', 'reject'] as const;
export type ValidationMode = (typeof VALIDATION_MODES)[number];

/** One schema of a type: numbered from 1, never changed once written (only its examples are). */
export interface EventTypeVersion {
  version: number;
  /** A JSON Schema (2020-12 unless its `$schema` names draft-07 or draft-04) of the event's `data`. */
  schema: Record<string, unknown>;
  /** Example `data` values, in order; test-fires use the first of the latest version. */
  examples: unknown[];
  createdAt: string;
}

export interface EventType {
  name: string;
  description: string;
  mode: ValidationMode;
  deprecated: boolean;
  /** The project (switchyard.yaml) that made it; null: made by hand. */
  project: string | null;
  /** Oldest first; the last one is the latest, which validation uses unless a publish names another. */
  versions: EventTypeVersion[];
  createdAt: string;
  updatedAt: string;
}

/** Where a failing event came from. */
export type ViolationSource = 'publish' | 'emit' | 'test';

/** A warn-mode publish whose data failed its schema (the latest are kept per type). */
export interface EventViolation {
  id: string;
  version: number;
  /** The failing instance path in `data` (JSON Pointer; empty: `data` itself). */
  path: string;
  message: string;
  source: ViolationSource;
  at: string;
}
