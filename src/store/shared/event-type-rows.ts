/** Event types, their versions and violations as both dialects store them (sqlite/event-types.ts, postgres/event-types.ts). */
import type { EventType, EventTypeVersion, EventViolation, ValidationMode, ViolationSource } from '../../events/types.js';

export interface EventTypeRow {
  name: string;
  description: string;
  mode: string;
  deprecated: number | boolean;
  project: string | null;
  created_at: string | Date;
  updated_at: string | Date;
}

export interface EventTypeVersionRow {
  name: string;
  version: number;
  schema_json: string;
  examples_json: string;
  created_at: string | Date;
}

export interface EventViolationRow {
  id: number | string;
  version: number;
  path: string;
  message: string;
  source: string;
  at: string | Date;
}

const iso = (t: string | Date) => new Date(t).toISOString();

export function toEventTypeVersion(r: EventTypeVersionRow): EventTypeVersion {
  return {
    version: Number(r.version),
    schema: JSON.parse(r.schema_json) as Record<string, unknown>,
    examples: JSON.parse(r.examples_json) as unknown[],
    createdAt: iso(r.created_at),
  };
}

/** `versions`: the type's version rows, any order. */
export function toEventType(r: EventTypeRow, versions: readonly EventTypeVersionRow[]): EventType {
  return {
    name: r.name,
    description: r.description,
    mode: r.mode as ValidationMode,
    deprecated: r.deprecated === true || r.deprecated === 1,
    project: r.project,
    versions: versions.map(toEventTypeVersion).sort((a, b) => a.version - b.version),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

/** Groups version rows by type name. */
export function versionsByName(rows: readonly EventTypeVersionRow[]): Map<string, EventTypeVersionRow[]> {
  const by = new Map<string, EventTypeVersionRow[]>();
  for (const r of rows) {
    let list = by.get(r.name);
    if (!list) by.set(r.name, (list = []));
    list.push(r);
  }
  return by;
}

export function toEventViolation(r: EventViolationRow): EventViolation {
  return { id: String(r.id), version: Number(r.version), path: r.path, message: r.message, source: r.source as ViolationSource, at: iso(r.at) };
}
