/** Event types and their violations as the API shows them. */
import type { EventType, EventViolation } from '../../events/types.js';
import type { EventTypeView, EventViolationView } from '../../schema/event-types.js';

export function eventTypeView(t: EventType): EventTypeView {
  return {
    name: t.name,
    description: t.description,
    mode: t.mode,
    deprecated: t.deprecated,
    project: t.project,
    latestVersion: t.versions.at(-1)?.version ?? null,
    versions: t.versions.map((v) => ({ version: v.version, schema: v.schema, examples: v.examples, createdAt: v.createdAt })),
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

export function eventViolationView(v: EventViolation): EventViolationView {
  return { id: v.id, version: v.version, path: v.path, message: v.message, source: v.source, at: v.at };
}
