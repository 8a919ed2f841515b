/**
 * The event-type catalogue as the management API serves it: the checks a
 * schema cannot express (the name rule, a schema that compiles, examples that
 * match it, bounds on what one type holds), then the store, then an
 * `event_type` change on the ChangeBus, so every process of the node drops
 * its compiled validators for the type before the write answers
 * (read-your-writes; src/events/validation.ts keeps them).
 */
import { canonicalJson } from '../canonical-json.js';
import type { ChangeBus } from '../changes.js';
import { InvalidRequestError, eventTypeNotFound } from '../errors.js';
import { RequestModelError, compileBodySchema, firstFailure } from '../json-schema.js';
import type { EventTypePatch, EventTypesPart } from '../store/store.js';
import type { Page } from '../types.js';
import { checkUserEventName } from './names.js';
import type { EventType, EventViolation, ValidationMode } from './types.js';
import { typesFromDocument } from './openapi.js';

/** Bounds on one type (the schema's own are REQUEST_MODEL_LIMITS: 64 KiB of JSON, depth 32). */
export const EVENT_TYPE_LIMITS = { examples: 10, examplesBytes: 256 * 1024, versions: 100 } as const;

/** The mode of a type created without one: `off`, so cataloguing a type never changes what its publishes do until asked. */
export const DEFAULT_VALIDATION_MODE: ValidationMode = 'off';

export interface NewEventTypeInput {
  name: string;
  description?: string;
  mode?: ValidationMode;
  deprecated?: boolean;
  schema?: Record<string, unknown>;
  examples?: unknown[];
  project?: string | null;
}

export interface EventCatalogueDeps {
  store: EventTypesPart;
  changes: ChangeBus;
  /** Awaited after each write's change is published (the workers' emit rules: emit-rules-sync.ts). */
  afterChange?: () => Promise<void>;
}

/** Compiles `schema` and checks each example against it; throws InvalidRequestError naming the field at fault. */
export function checkSchemaAndExamples(schema: Record<string, unknown> | undefined, examples: unknown[] | undefined, prefix = ''): void {
  let validate: ReturnType<typeof compileBodySchema> | null = null;
  if (schema !== undefined) {
    try {
      validate = compileBodySchema(schema);
    } catch (err) {
      if (err instanceof RequestModelError) throw new InvalidRequestError(`${prefix}schema ${err.message}`, { field: `${prefix}schema` });
      throw err;
    }
  }
  if (examples === undefined) return;
  if (examples.length > EVENT_TYPE_LIMITS.examples) {
    throw new InvalidRequestError(`${prefix}examples: at most ${EVENT_TYPE_LIMITS.examples}`, { field: `${prefix}examples` });
  }
  const bytes = Buffer.byteLength(JSON.stringify(examples));
  if (bytes > EVENT_TYPE_LIMITS.examplesBytes) {
    throw new InvalidRequestError(`${prefix}examples: ${bytes} bytes of JSON; at most ${EVENT_TYPE_LIMITS.examplesBytes}`, { field: `${prefix}examples` });
  }
  if (!validate) return;
  for (const [i, example] of examples.entries()) {
    if (!validate(example)) {
      const { path, message } = firstFailure(validate);
      throw new InvalidRequestError(`${prefix}examples[${i}]${path}: ${message}`, { field: `${prefix}examples[${i}]`, path });
    }
  }
}

export class EventCatalogue {
  private readonly store: EventTypesPart;
  private readonly changes: ChangeBus;
  private readonly afterChange: () => Promise<void>;

  constructor(deps: EventCatalogueDeps) {
    this.store = deps.store;
    this.changes = deps.changes;
    this.afterChange = deps.afterChange ?? (() => Promise.resolve());
  }

  /** Resolves once every process of this node validates by the new state, and this process's workers refuse by it. */
  private async changed(name: string): Promise<void> {
    await this.changes.publish({ kind: 'event_type', name });
    await this.afterChange();
  }

  async create(input: NewEventTypeInput): Promise<EventType> {
    checkUserEventName(input.name, 'name');
    checkSchemaAndExamples(input.schema, input.examples);
    if (input.examples?.length && input.schema === undefined) {
      throw new InvalidRequestError('examples: belong to a schema version; give a schema with them', { field: 'examples' });
    }
    const type = await this.store.createEventType({
      name: input.name,
      description: input.description ?? '',
      mode: input.mode ?? DEFAULT_VALIDATION_MODE,
      deprecated: input.deprecated ?? false,
      project: input.project ?? null,
      schema: input.schema ?? null,
      examples: input.examples ?? [],
    });
    await this.changed(type.name);
    return type;
  }

  async get(name: string): Promise<EventType> {
    const type = await this.store.getEventType(name);
    if (!type) throw eventTypeNotFound(name);
    return type;
  }

  list(page: Page): Promise<EventType[]> {
    return this.store.listEventTypes(page);
  }

  /** A `schema` different from the latest version's adds a version; the same one only updates its examples. */
  async update(name: string, patch: EventTypePatch): Promise<EventType> {
    const cur = await this.get(name);
    const latest = cur.versions.at(-1);
    let { schema } = patch;
    if (schema !== undefined && latest && canonicalJson(schema) === canonicalJson(latest.schema)) schema = undefined;
    checkSchemaAndExamples(schema ?? (patch.examples ? latest?.schema : undefined), patch.examples);
    if (schema === undefined && patch.examples !== undefined && !latest) {
      throw new InvalidRequestError('examples: the type has no schema version yet; give a schema with them', { field: 'examples' });
    }
    if (schema !== undefined && cur.versions.length >= EVENT_TYPE_LIMITS.versions) {
      throw new InvalidRequestError(`schema: the type has ${EVENT_TYPE_LIMITS.versions} versions, the most one type keeps`, { field: 'schema' });
    }
    const type = await this.store.updateEventType(name, { ...patch, schema });
    if (!type) throw eventTypeNotFound(name);
    await this.changed(name);
    return type;
  }

  async delete(name: string): Promise<void> {
    if (!(await this.store.deleteEventType(name))) throw eventTypeNotFound(name);
    await this.changed(name);
  }

  /**
   * What a test-fire of a webhook subscribed to `events` sends: the first
   * example of the latest version of the first of those names (in the
   * webhook's order; `*` names none) catalogued with one. Null: none has one.
   */
  async exampleFor(events: readonly string[]): Promise<{ event: string; data: unknown } | null> {
    for (const name of events) {
      if (name === '*') continue;
      const example = (await this.store.getEventType(name))?.versions.at(-1)?.examples[0];
      if (example !== undefined) return { event: name, data: example };
    }
    return null;
  }

  /** Every type, by name (the OpenAPI document's webhooks section). */
  async all(): Promise<EventType[]> {
    const out: EventType[] = [];
    for (;;) {
      const page = await this.store.listEventTypes({ limit: 500, after: out.at(-1)?.name });
      out.push(...page);
      if (page.length < 500) return out;
    }
  }

  async violations(name: string, limit: number): Promise<EventViolation[]> {
    await this.get(name);
    return this.store.listEventViolations(name, limit);
  }

  /**
   * Creates or updates one type per entry of an OpenAPI document's `webhooks`
   * (src/events/openapi.ts reads them); a type that exists gets a new version
   * when its schema differs. Every entry is checked before anything is written.
   */
  async import(doc: unknown, mode?: ValidationMode): Promise<{ created: string[]; updated: string[] }> {
    const types = typesFromDocument(doc);
    for (const t of types) {
      checkUserEventName(t.name, `document.webhooks.${t.name}`);
      checkSchemaAndExamples(t.schema, t.examples, `document.webhooks.${t.name}.`);
    }
    const created: string[] = [];
    const updated: string[] = [];
    for (const t of types) {
      if (await this.store.getEventType(t.name)) {
        await this.update(t.name, { description: t.description, deprecated: t.deprecated, mode, schema: t.schema, examples: t.examples });
        updated.push(t.name);
      } else {
        await this.create({ ...t, mode });
        created.push(t.name);
      }
    }
    return { created, updated };
  }
}
