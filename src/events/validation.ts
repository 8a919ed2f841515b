/**
 * Validation of published events against the catalogue (src/events/catalogue.ts
 * writes it): each type's entry is read once per process and its schema
 * versions compiled with ajv on first use, then kept until an `event_type`
 * change (any process's write) drops it. Names without an entry are cached
 * too, so an uncatalogued publish costs one map lookup once warm. Schemas are
 * compiled by the gateway's request-model compiler (2020-12 by default,
 * bounded size and depth, no remote `$ref`), so a schema the catalogue took
 * always compiles here.
 */
import type { ValidateFunction } from 'ajv';
import type { ChangeBus } from '../changes.js';
import { EventInvalidError, InvalidRequestError } from '../errors.js';
import { compileBodySchema, firstFailure } from '../json-schema.js';
import type { EventTypesPart } from '../store/store.js';
import type { Logger } from '../types.js';
import type { EventType, ValidationMode, ViolationSource } from './types.js';

/** Violations kept per type (the newest). */
export const VIOLATIONS_KEPT = 100;
/** Entries cached per process; past it the cache starts over (names are producers' input). */
const MAX_ENTRIES = 10_000;

/** What validation said of one publish of a catalogued type (mode warn or reject). */
export interface ValidationOutcome {
  type: string;
  version: number;
  mode: Exclude<ValidationMode, 'off'>;
  valid: boolean;
  /** When not valid: the failing instance path in `data` (JSON Pointer) and why. */
  path?: string;
  message?: string;
}

interface Entry {
  type: EventType | null;
  compiled: Map<number, ValidateFunction>;
}

export interface EventValidatorDeps {
  store: EventTypesPart;
  changes: ChangeBus;
  log: Logger;
}

export class EventValidator {
  private readonly entries = new Map<string, Entry | Promise<Entry>>();
  private generation = 0;

  constructor(private readonly deps: EventValidatorDeps) {
    deps.changes.subscribe((change) => {
      if (change.kind === 'event_type') {
        this.entries.delete(change.name);
        this.generation++;
      } else if (change.kind === 'reset') {
        this.entries.clear();
        this.generation++;
      }
    });
  }

  private entry(name: string): Entry | Promise<Entry> {
    const known = this.entries.get(name);
    if (known !== undefined) return known;
    const generation = this.generation;
    const read = this.deps.store.getEventType(name).then(
      (type): Entry => {
        const entry = { type, compiled: new Map() };
        // A change that arrived while reading may be newer than what was read: keep nothing.
        if (this.generation === generation && this.entries.get(name) === read) this.entries.set(name, entry);
        else if (this.entries.get(name) === read) this.entries.delete(name);
        return entry;
      },
      (err: unknown) => {
        if (this.entries.get(name) === read) this.entries.delete(name);
        throw err;
      },
    );
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(name, read);
    return read;
  }

  /**
   * Checks `data` of `event` against its type's schema: the latest version, or
   * `version` when given. Null when nothing was checked (no entry, no schema, mode
   * off). Mode reject: throws EventInvalidError; warn: records the violation
   * and answers it. Every failure is recorded (the newest VIOLATIONS_KEPT per type).
   */
  async check(event: string, data: unknown, source: ViolationSource, version?: number): Promise<ValidationOutcome | null> {
    const found = this.entry(event);
    const { type, compiled } = found instanceof Promise ? await found : found;
    if (type === null || type.mode === 'off') {
      if (version !== undefined && type === null) throw new InvalidRequestError(`version: event type '${event}' is not in the catalogue`, { field: 'version' });
      return null;
    }
    const latest = type.versions.at(-1);
    if (!latest) return null;
    const chosen = version === undefined ? latest : type.versions.find((v) => v.version === version);
    if (!chosen) throw new InvalidRequestError(`version: event type '${event}' has no version ${version} (latest: ${latest.version})`, { field: 'version' });
    let validate = compiled.get(chosen.version);
    if (!validate) {
      validate = compileBodySchema(chosen.schema);
      compiled.set(chosen.version, validate);
    }
    if (validate(data)) return { type: event, version: chosen.version, mode: type.mode, valid: true };
    const { path, message } = firstFailure(validate);
    await this.deps.store
      .recordEventViolation({ name: event, version: chosen.version, path, message, source }, VIOLATIONS_KEPT)
      .catch((err: unknown) => this.deps.log.warn({ err, event }, 'could not record an event violation'));
    if (type.mode === 'reject') throw new EventInvalidError(event, chosen.version, path, message);
    return { type: event, version: chosen.version, mode: type.mode, valid: false, path, message };
  }
}
