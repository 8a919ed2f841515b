/**
 * A worker's copy of the catalogue's reject-mode event types, so that a
 * function's `emit()` of data its type refuses throws inside the function,
 * as a publish of the same data answers 400 (docs/event-types.md). The main
 * process sends the whole set after every catalogue change (pool.ts
 * `setEmitRules`); the EventBus still checks every emitted event at fan-out
 * (src/events/validation.ts), so a worker a moment behind a change only
 * means that one refusal is logged there instead of thrown here.
 *
 * ajv costs a worker about 30 MB, so it is loaded on the first non-empty set:
 * until then (no type in reject mode, the usual case) an emit costs one
 * empty-map lookup.
 */
import type { ValidateFunction } from 'ajv';

/** One reject-mode type: its latest version's schema. */
export interface EmitRule {
  name: string;
  version: number;
  schema: unknown;
}

type Compiler = typeof import('../json-schema.js');

export class EmitRules {
  private rules = new Map<string, { version: number; validate: ValidateFunction }>();
  private compiler: Compiler | null;

  /** `compiler`: given where ajv is loaded anyway (a serving process, in-process.ts); a worker loads it on demand. */
  constructor(compiler: Compiler | null = null) {
    this.compiler = compiler;
  }

  /** True when `set(list)` can compile now; otherwise `load()` first. */
  ready(list: readonly EmitRule[]): boolean {
    return list.length === 0 || this.compiler !== null;
  }

  async load(): Promise<void> {
    this.compiler ??= await import('../json-schema.js');
  }

  /**
   * Replaces the set. A schema that does not compile here (the catalogue
   * compiled it at write with the same compiler, so only a corrupted frame)
   * leaves its type to the EventBus's check; `onSkip` says which.
   */
  set(list: readonly EmitRule[], onSkip: (name: string, why: string) => void): void {
    const next = new Map<string, { version: number; validate: ValidateFunction }>();
    for (const rule of list) {
      if (!this.compiler) break;
      try {
        next.set(rule.name, { version: rule.version, validate: this.compiler.compileBodySchema(rule.schema) });
      } catch (err) {
        onSkip(rule.name, err instanceof Error ? err.message : String(err));
      }
    }
    this.rules = next;
  }

  /**
   * Why `dataJson` may not be emitted as `event`, in the words a publish's 400
   * uses, or undefined. `dataJson` has passed the emit guard (bounded, JSON).
   */
  refusal(event: string, dataJson: string): string | undefined {
    if (this.rules.size === 0) return undefined;
    const rule = this.rules.get(event);
    if (rule === undefined || !this.compiler) return undefined;
    let data: unknown;
    try {
      data = JSON.parse(dataJson);
    } catch {
      return undefined;
    }
    if (rule.validate(data)) return undefined;
    const { path, message } = this.compiler.firstFailure(rule.validate);
    return `emit: data${path}: ${message} (event type '${event}' version ${rule.version})`;
  }
}
