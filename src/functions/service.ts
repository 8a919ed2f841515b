/**
 * Function management: deploy (transpile, validate in a throwaway isolate,
 * store), update (new version), delete, manual invoke and logs. Every write
 * publishes a change so cached records and warm isolates of old versions go.
 */
import { createHash } from 'node:crypto';
import type { ChangeBus } from '../changes.js';
import { dryRunResult, sameJson, type DryRunResult } from '../dry-run.js';
import {
  INVOCATION_ERROR_STATUS,
  InvalidCodeError,
  functionExists,
  functionInUse,
  functionNotFound,
  functionVersionNotFound,
  type InvocationErrorCode,
} from '../errors.js';
import { defaultEventFor, mapResultFor } from '../gateway/formats.js';
import { nextRequestId } from '../ids.js';
import type { RunDepths } from '../hops.js';
import { compileSource, userFileName } from '../runtime/compile.js';
import type { FunctionRuntime } from '../runtime/types.js';
import type { FunctionPatch, Store } from '../store/store.js';
import type { StatsCollector } from '../stats/collector.js';
import { roundMs, type InvocationHub } from '../streams/invocations.js';
import type {
  EventFormat,
  FunctionLogLine,
  FunctionRecord,
  FunctionRuntimeName,
  FunctionVersion,
  FunctionVersionSummary,
  Page,
  StoredLogLine,
} from '../types.js';
import type { FunctionLogSink } from './log-sink.js';
import {
  readAsync,
  readEvents,
  readSchedules,
  scheduleFires,
} from './triggers.js';
import { FUNCTION_INPUT_DEFAULTS, type FunctionInput, type FunctionUpdate } from '../schema/functions.js';

/** The API schema's defaults (what a field left out means), as the service reads them. */
export const FUNCTION_DEFAULTS = {
  runtime: FUNCTION_INPUT_DEFAULTS.runtime as FunctionRuntimeName,
  timeoutMs: FUNCTION_INPUT_DEFAULTS.timeout_ms,
  memoryMb: FUNCTION_INPUT_DEFAULTS.memory_mb,
  eventFormat: FUNCTION_INPUT_DEFAULTS.event_format as EventFormat,
};

/** A manual invoke's outcome: what the gateway would answer, with the run's console lines. */
export interface ManualInvocation {
  status: number;
  result: unknown;
  error: { code: InvocationErrorCode; message: string } | null;
  logs: FunctionLogLine[];
  durationMs: number;
}

export interface FunctionServiceDeps {
  store: Store;
  runtime: FunctionRuntime;
  changes: ChangeBus;
  logSink: FunctionLogSink;
  emitOperational?: (event: `switchyard.${string}`, data: unknown) => void;
  invocations?: InvocationHub | null;
  /** The clock schedules are computed on, and a hook to tell the scheduler that they changed. */
  schedules?: { clock: { now(): number }; changed(): void } | null;
  /** The overview's statistics: a manual invoke counts among invocations by outcome, as the gateway's do. */
  stats?: StatsCollector | null;
  /** The runs of this process that are part of a chain; an invoke with a depth joins them while it runs. */
  hops?: RunDepths | null;
}

export class FunctionService {
  private readonly store: Store;
  private readonly runtime: FunctionRuntime;
  private readonly changes: ChangeBus;
  private readonly logSink: FunctionLogSink;
  private readonly emitOperational: (event: `switchyard.${string}`, data: unknown) => void;
  private readonly invocations: InvocationHub | null;
  private readonly schedules: { clock: { now(): number }; changed(): void } | null;
  private readonly stats: StatsCollector | null;
  private readonly hops: RunDepths | null;

  constructor(deps: FunctionServiceDeps) {
    this.store = deps.store;
    this.runtime = deps.runtime;
    this.changes = deps.changes;
    this.logSink = deps.logSink;
    this.emitOperational = deps.emitOperational ?? (() => undefined);
    this.invocations = deps.invocations ?? null;
    this.schedules = deps.schedules ?? null;
    this.stats = deps.stats ?? null;
    this.hops = deps.hops ?? null;
  }

  private now(): number {
    return this.schedules?.clock.now() ?? Date.now();
  }

  /** Resolves once every process of this node serves the change (the write's answer waits for it). */
  private async changed(fn: { name: string; version?: number }, what: 'created' | 'updated' | 'deleted'): Promise<void> {
    const propagated = this.changes.publish({ kind: 'function', name: fn.name });
    this.emitOperational(`switchyard.function.${what}`, { name: fn.name, version: fn.version ?? null });
    await propagated;
  }

  /** Transpiles and runs the top level once, so a broken deploy is a 400, not a failing route. */
  private async build(
    name: string,
    code: string,
    runtime: FunctionRuntimeName,
    limits: { timeoutMs: number; memoryMb: number; env: Record<string, string>; handler: string | null },
  ) {
    const { compiled } = await compileSource(code, runtime, name);
    const check = await this.runtime.validate(compiled, limits);
    if (!check.ok) throw new InvalidCodeError(check.message, check.line, check.column, userFileName(name, runtime));
    return { compiled, codeSha256: createHash('sha256').update(code).digest('hex') };
  }

  async create(input: FunctionInput): Promise<FunctionRecord> {
    if (await this.store.getFunction(input.name)) {
      throw functionExists(input.name);
    }
    const runtime = input.runtime ?? FUNCTION_DEFAULTS.runtime;
    const timeoutMs = input.timeout_ms ?? FUNCTION_DEFAULTS.timeoutMs;
    const memoryMb = input.memory_mb ?? FUNCTION_DEFAULTS.memoryMb;
    const handler = input.handler ?? null;
    const triggers = await this.readTriggers(input);
    const built = await this.build(input.name, input.code, runtime, { timeoutMs, memoryMb, env: input.env ?? {}, handler });
    const fn = await this.store.createFunction({
      ...triggers,
      name: input.name,
      runtime,
      code: input.code,
      compiled: built.compiled,
      codeSha256: built.codeSha256,
      env: input.env ?? {},
      timeoutMs,
      memoryMb,
      handler,
      eventFormat: input.event_format ?? FUNCTION_DEFAULTS.eventFormat,
      project: input.project ?? null,
    });
    await this.changed(fn, 'created');
    if (fn.schedules.length > 0) this.schedules?.changed();
    return fn;
  }

  /** Checks and defaults the trigger fields present in a create or update body (null: back to the default). */
  private async readTriggers(input: FunctionInput | FunctionUpdate, all = true): Promise<Pick<FunctionPatch, 'schedules' | 'scheduleFires' | 'events' | 'async'>> {
    const out: Pick<FunctionPatch, 'schedules' | 'scheduleFires' | 'events' | 'async'> = {};
    if (all || input.schedules !== undefined) {
      out.schedules = readSchedules(input.schedules ?? []);
      out.scheduleFires = scheduleFires(out.schedules, this.now());
    }
    if (all || input.events !== undefined) out.events = readEvents(input.events ?? []);
    if (all || input.async !== undefined) out.async = await readAsync(input.async, this.store);
    return out;
  }

  /** `POST ?dry_run=true`: every check of create, the code compiled in a worker; nothing stored. */
  async checkCreate(input: FunctionInput): Promise<DryRunResult> {
    if (await this.store.getFunction(input.name)) {
      throw functionExists(input.name);
    }
    const runtime = input.runtime ?? FUNCTION_DEFAULTS.runtime;
    await this.readTriggers(input);
    await this.build(input.name, input.code, runtime, {
      timeoutMs: input.timeout_ms ?? FUNCTION_DEFAULTS.timeoutMs,
      memoryMb: input.memory_mb ?? FUNCTION_DEFAULTS.memoryMb,
      env: input.env ?? {},
      handler: input.handler ?? null,
    });
    return dryRunResult('create', Object.keys(input).filter((k) => k !== 'name').sort());
  }

  /** `PUT ?dry_run=true`: the fields whose values would change (env compared here, as it is never shown); compiled when one would. */
  async checkUpdate(name: string, input: FunctionUpdate): Promise<DryRunResult> {
    const current = await this.get(name);
    const patch = this.patchOf(input);
    const changes: string[] = [];
    if (patch.code !== undefined && createHash('sha256').update(patch.code).digest('hex') !== current.codeSha256) changes.push('code');
    if (patch.runtime !== undefined && patch.runtime !== current.runtime) changes.push('runtime');
    if (patch.env !== undefined && !sameJson(patch.env, current.env)) changes.push('env');
    if (patch.timeoutMs !== undefined && patch.timeoutMs !== current.timeoutMs) changes.push('timeout_ms');
    if (patch.memoryMb !== undefined && patch.memoryMb !== current.memoryMb) changes.push('memory_mb');
    if (patch.handler !== undefined && patch.handler !== current.handler) changes.push('handler');
    if (patch.eventFormat !== undefined && patch.eventFormat !== current.eventFormat) changes.push('event_format');
    const triggers = await this.readTriggers(input, false);
    if (triggers.schedules !== undefined && !sameJson(triggers.schedules, current.schedules)) changes.push('schedules');
    if (triggers.events !== undefined && !sameJson(triggers.events, current.events)) changes.push('events');
    if (triggers.async !== undefined && !sameJson(triggers.async, current.async)) changes.push('async');
    if (patch.project !== undefined && patch.project !== current.project) changes.push('project');
    if (changes.some((c) => !['event_format', 'schedules', 'events', 'async', 'project'].includes(c))) {
      await this.build(name, patch.code ?? current.code, patch.runtime ?? current.runtime, {
        timeoutMs: patch.timeoutMs ?? current.timeoutMs,
        memoryMb: patch.memoryMb ?? current.memoryMb,
        env: patch.env ?? current.env,
        handler: patch.handler === undefined ? current.handler : patch.handler,
      });
    }
    return dryRunResult('update', changes);
  }

  private patchOf(input: FunctionUpdate): FunctionPatch {
    const patch: FunctionPatch = {};
    if (input.runtime !== undefined) patch.runtime = input.runtime ?? FUNCTION_DEFAULTS.runtime;
    if (input.env !== undefined) patch.env = input.env ?? {};
    if (input.timeout_ms !== undefined) patch.timeoutMs = input.timeout_ms ?? FUNCTION_DEFAULTS.timeoutMs;
    if (input.memory_mb !== undefined) patch.memoryMb = input.memory_mb ?? FUNCTION_DEFAULTS.memoryMb;
    if (input.code !== undefined) patch.code = input.code;
    if (input.handler !== undefined) patch.handler = input.handler;
    if (input.event_format !== undefined) patch.eventFormat = input.event_format ?? FUNCTION_DEFAULTS.eventFormat;
    if (input.project !== undefined) patch.project = input.project;
    return patch;
  }

  async update(name: string, input: FunctionUpdate): Promise<FunctionRecord> {
    const current = await this.get(name);
    const patch: FunctionPatch = { ...this.patchOf(input), ...(await this.readTriggers(input, false)) };
    const code = patch.code ?? current.code;
    const runtime = patch.runtime ?? current.runtime;
    // Limits and env take part in validation (a top level may need 2 s, or read process.env).
    const changesTopLevel = [patch.code, patch.runtime, patch.timeoutMs, patch.memoryMb, patch.env, patch.handler].some(
      (v) => v !== undefined,
    );
    if (changesTopLevel) {
      const built = await this.build(name, code, runtime, {
        timeoutMs: patch.timeoutMs ?? current.timeoutMs,
        memoryMb: patch.memoryMb ?? current.memoryMb,
        env: patch.env ?? current.env,
        handler: patch.handler === undefined ? current.handler : patch.handler,
      });
      patch.compiled = built.compiled;
      patch.codeSha256 = built.codeSha256;
    }
    const fn = await this.store.updateFunction(name, patch);
    if (!fn) throw functionNotFound(name);
    this.runtime.retire(name, fn.version);
    await this.changed(fn, 'updated');
    if (patch.schedules !== undefined) this.schedules?.changed();
    return fn;
  }

  /** `DELETE ?dry_run=true`: the same 404 and 409 (a route still binds it) as the delete. */
  async checkDelete(name: string): Promise<DryRunResult> {
    await this.get(name);
    const routes = await this.store.routesUsingFunction(name);
    if (routes.length > 0) {
      throw functionInUse(name, routes);
    }
    return dryRunResult('delete', []);
  }

  async delete(name: string): Promise<void> {
    const deleted = await this.store.deleteFunction(name);
    if (!deleted) throw functionNotFound(name);
    this.runtime.retire(name);
    await this.changed({ name }, 'deleted');
  }

  async get(name: string): Promise<FunctionRecord> {
    const fn = await this.store.getFunction(name);
    if (!fn) throw functionNotFound(name);
    return fn;
  }

  /** The kept versions, newest first (404 for an unknown function). */
  async versions(name: string): Promise<FunctionVersionSummary[]> {
    const list = await this.store.listFunctionVersions(name);
    if (!list) throw functionNotFound(name);
    return list;
  }

  /** One kept version with its code: 404 `function_not_found`, or `function_version_not_found` for a version not kept. */
  async version(name: string, version: number): Promise<FunctionVersion> {
    const found = await this.store.getFunctionVersion(name, version);
    if (found) return found;
    await this.get(name);
    throw functionVersionNotFound(name, version);
  }

  list(page: Page): Promise<FunctionRecord[]> {
    return this.store.listFunctions(page);
  }

  async logs(name: string, limit: number): Promise<StoredLogLine[]> {
    await this.get(name);
    await this.logSink.flush();
    return this.store.listFunctionLogs(name, limit);
  }

  /**
   * `POST /api/functions/:name/invoke`: what the gateway would answer, plus the
   * logs. The given event is completed in the function's own event format.
   */
  /**
   * `depth`: the request's hop count in a chain of runs (`Switchyard-Depth`, src/hops.ts);
   * `requestId`: the HTTP request's own (its `X-Request-Id`), so the answer, the run and its log lines share one id.
   * `trace`: the request's trace context (tracing on): the function's fetches and emits join it.
   */
  async invoke(name: string, partialEvent: unknown, depth = 0, requestId = nextRequestId(), trace?: string): Promise<ManualInvocation> {
    const fn = await this.get(name);
    const event = defaultEventFor(fn.eventFormat, partialEvent, { requestId, functionName: name });
    const tracked = this.hops?.enter(name, requestId, depth);
    let outcome: Awaited<ReturnType<FunctionRuntime['invoke']>>;
    try {
      outcome = await this.runtime.invoke(fn, JSON.stringify(event), requestId, trace ?? null);
    } finally {
      if (tracked) this.hops!.leave(name, requestId);
    }
    this.logSink.push(
      name,
      outcome.logs,
      fn.version,
      this.logSink.runLines === true ? { requestId, durationMs: outcome.durationMs, memoryMb: fn.memoryMb, stats: outcome.stats } : undefined,
    );
    const logs = outcome.logs;
    const durationMs = roundMs(outcome.durationMs);
    let answer: ManualInvocation;
    if (!outcome.ok) {
      answer = { status: INVOCATION_ERROR_STATUS[outcome.error.code], result: null, error: outcome.error, logs, durationMs };
    } else {
      const mapped = mapResultFor(fn.eventFormat, outcome.result, requestId);
      const error = mapped.invalid === undefined ? null : { code: 'invalid_result' as const, message: mapped.invalid };
      answer = { status: mapped.status, result: outcome.result ?? null, error, logs, durationMs };
    }
    // Counted here, not in the gateway: the invoke endpoint is not on the hot path, and
    // the gateway's own counting stays as it was.
    if (answer.error === null) this.stats?.okCell(name).add();
    else this.stats?.invocationFailed(name, answer.error.code, answer.error.message, requestId);
    if (this.invocations?.active) {
      this.invocations.publish({
        function: name,
        api_id: null,
        method: 'POST',
        path: `/api/functions/${name}/invoke`,
        status: answer.status,
        duration_ms: durationMs,
        request_id: requestId,
        ts: new Date().toISOString(),
        outcome: answer.error?.code ?? 'ok',
        log_lines: outcome.logs.length,
      });
    }
    return answer;
  }
}
