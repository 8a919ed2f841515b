/**
 * Keeps the isolate workers' emit rules (src/runtime/emit-rules.ts) equal to
 * the catalogue's reject-mode types, so a function's `emit()` of data its type
 * refuses throws in the function: the set is read at start and again after
 * every `event_type` change, whichever process made it. A write made in this
 * process answers only once its workers have the new set (`settled`, which
 * the catalogue awaits); a sibling process's workers follow within the store
 * read that the change starts there. The EventBus checks every emitted event
 * again at fan-out, so a worker a moment behind only means that refusal is
 * logged instead of thrown.
 */
import type { ChangeBus } from '../changes.js';
import type { EmitRule } from '../runtime/emit-rules.js';
import type { Logger } from '../types.js';
import type { EventType } from './types.js';

export interface EmitRulesSyncDeps {
  catalogue: { all(): Promise<EventType[]> };
  changes: ChangeBus;
  /** Hands the whole set to every worker (the runtime's `setEmitRules`). */
  apply: (rules: EmitRule[]) => void;
  log: Logger;
}

/** The latest version of each reject-mode type that has a schema. */
export function emitRulesOf(types: readonly EventType[]): EmitRule[] {
  const rules: EmitRule[] = [];
  for (const t of types) {
    const latest = t.versions.at(-1);
    if (t.mode === 'reject' && latest) rules.push({ name: t.name, version: latest.version, schema: latest.schema });
  }
  return rules;
}

export class EmitRulesSync {
  /** The latest refresh asked for; each starts after the one before, so the last read wins. */
  private latest: Promise<void> = Promise.resolve();

  constructor(private readonly deps: EmitRulesSyncDeps) {
    deps.changes.subscribe((change) => {
      if (change.kind === 'event_type' || change.kind === 'reset') this.refresh();
    });
  }

  /** Reads the catalogue and hands its rules to the workers; never rejects (a failed read is logged). */
  refresh(): Promise<void> {
    this.latest = this.latest.then(async () => {
      try {
        this.deps.apply(emitRulesOf(await this.deps.catalogue.all()));
      } catch (err) {
        this.deps.log.warn({ err }, 'could not read the event catalogue for the functions\' emit rules');
      }
    });
    return this.latest;
  }

  /** Resolves once the refresh of every change seen so far is done. */
  settled(): Promise<void> {
    return this.latest;
  }
}
