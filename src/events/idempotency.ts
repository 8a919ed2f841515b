/**
 * Idempotent operations (`Idempotency-Key` on publish, test-fire and async
 * invoke; an event's own `id`): the first request with a key in its scope
 * claims a row in the store and runs the operation; its answer is stored, and
 * every repeat within the window gets that answer again instead of running it.
 * The database's primary key decides the winner, so this holds across
 * processes and nodes. A 5xx releases the claim (a retry may succeed); a 4xx
 * is stored and replayed, as Stripe does: the same request would fail again.
 * Hand-written: the idempotency packages for Node keep their state in memory
 * or Redis, and none claims with the store's own SQL.
 */
import { createHash, randomUUID } from 'node:crypto';
import { canonicalJson } from '../canonical-json.js';
import type { Clock } from '../clock.js';
import { IdempotencyKeyInProgressError, idempotencyKeyReused, InvalidRequestError, SwitchyardError } from '../errors.js';
import type { IdempotencyPart } from '../store/store.js';
import type { Logger } from '../types.js';

/** The request header, as Fastify sees it (lower case). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Set to `true` on an answer that is a stored one given again. */
export const REPLAYED_HEADER = 'idempotent-replayed';
/** 1 to 255 printable ASCII characters: what Stripe and the IETF draft allow, and what fits an index comfortably. */
const KEY = /^[\x20-\x7e]{1,255}$/;

export const IDEMPOTENCY_HEADER_SCHEMA = {
  type: 'string',
  description:
    'Up to 255 printable ASCII characters. A repeat within the idempotency window (SWITCHYARD_IDEMPOTENCY_WINDOW, 24 h by default) ' +
    'answers the first answer again with `Idempotent-Replayed: true` and does nothing; a repeat with another body is 409 ' +
    '`idempotency_key_reused`, one while the first still runs 409 `idempotency_key_in_progress`.',
} as const;

/** The answer header on the routes' successful answers (OpenAPI response `headers`). */
export const REPLAYED_RESPONSE_HEADERS = {
  'Idempotent-Replayed': {
    type: 'string',
    enum: ['true'],
    description: 'Present when the answer is the stored first answer of an earlier request with the same Idempotency-Key or event id',
  },
} as const;

/** What an operation answered: the status and the JSON body that a repeat gets again. */
export interface StoredAnswer {
  status: number;
  body: unknown;
}

export interface IdempotentAnswer extends StoredAnswer {
  /** The body is the stored answer of an earlier request. */
  replayed: boolean;
}

/** One key in its scope (`events`, `event-id`, `webhook-test:<id>`, `invoke:<name>`), and what carried it, for errors. */
export interface IdempotencyScope {
  scope: string;
  key: string;
  /** `Idempotency-Key`, or `id` for an event's own id. */
  field: string;
}

/** The key of a request, or null without the header. Throws 400 for one that is not a key. */
export function idempotencyKeyOf(headers: Record<string, string | string[] | undefined>): string | null {
  const value = headers[IDEMPOTENCY_HEADER];
  if (value === undefined) return null;
  if (typeof value !== 'string' || !KEY.test(value)) {
    throw new InvalidRequestError('Idempotency-Key must be one header of 1 to 255 printable ASCII characters', {
      field: 'Idempotency-Key',
    });
  }
  return value;
}

/** SHA-256 of the body's canonical JSON: key order and absent members do not make two bodies differ. */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body ?? null)).digest('hex');
}

/**
 * An unanswered claim this old was abandoned (its process died mid-operation)
 * and may be taken over. Well past the longest operation: a test-fire waits
 * at most its webhook's timeout, 60 s.
 */
export const ABANDONED_CLAIM_MS = 300_000;
const SWEEP_EVERY_MS = 600_000;
const SWEEP_BATCH = 1_000;
/** Batches per sweep at most, so one sweep never holds the database long; the next picks up the rest. */
const SWEEP_BATCHES = 50;

export interface IdempotencyDeps {
  store: IdempotencyPart;
  clock: Clock;
  windowMs: number;
  log: Logger;
}

export class Idempotency {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: IdempotencyDeps) {}

  /**
   * Runs `op` once per key: the first request runs it and its answer is stored;
   * a repeat with the same `hash` gets that answer with `replayed`. An operation
   * that is itself idempotent inside (a publish with both a key and an event id)
   * passes its own `replayed` on.
   */
  async run(
    where: IdempotencyScope,
    hash: string,
    op: () => Promise<StoredAnswer & { replayed?: boolean }>,
  ): Promise<IdempotentAnswer> {
    const { store, clock, windowMs } = this.deps;
    const now = clock.now();
    const token = randomUUID();
    const { scope, key } = where;
    const claim = await store.claimIdempotencyKey({
      scope,
      key,
      requestHash: hash,
      token,
      now,
      expiresAt: now + windowMs,
      staleBefore: now - ABANDONED_CLAIM_MS,
    });
    if (!claim.claimed) {
      const { record } = claim;
      if (record.requestHash !== hash) throw idempotencyKeyReused(where.field);
      if (record.status === null || record.response === null) throw new IdempotencyKeyInProgressError(where.field);
      return { status: record.status, body: JSON.parse(record.response), replayed: true };
    }
    let answer: StoredAnswer & { replayed?: boolean };
    try {
      answer = await op();
    } catch (err) {
      // An inner key still in progress is transient: storing it would answer 409 for the whole window.
      if (err instanceof SwitchyardError && err.status < 500 && !(err instanceof IdempotencyKeyInProgressError)) {
        const body: Record<string, unknown> = { error: err.message, code: err.code };
        if (err.details !== undefined) body.details = err.details;
        await store.completeIdempotencyKey(scope, key, token, err.status, JSON.stringify(body));
      } else {
        await this.release(where, token);
      }
      throw err;
    }
    if (answer.status >= 500) await this.release(where, token);
    else await store.completeIdempotencyKey(scope, key, token, answer.status, JSON.stringify(answer.body));
    return { status: answer.status, body: answer.body, replayed: answer.replayed ?? false };
  }

  /** Deletes expired rows, in batches; returns how many. */
  async sweep(): Promise<number> {
    let removed = 0;
    for (let i = 0; i < SWEEP_BATCHES; i++) {
      const n = await this.deps.store.sweepIdempotencyKeys(this.deps.clock.now(), SWEEP_BATCH);
      removed += n;
      if (n < SWEEP_BATCH) break;
    }
    return removed;
  }

  start(): void {
    if (this.timer) return;
    const sweep = () =>
      this.sweep()
        .then((removed) => removed > 0 && this.deps.log.info({ removed }, 'swept expired idempotency keys'))
        .catch((err) => this.deps.log.warn({ err }, 'idempotency key sweep failed'));
    this.timer = setInterval(sweep, SWEEP_EVERY_MS);
    this.timer.unref();
    void sweep();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async release(where: IdempotencyScope, token: string): Promise<void> {
    // A release (or a store of the answer) that fails leaves the claim until the window ends: repeats
    // get 409 in progress then, never a second run.
    await this.deps.store
      .releaseIdempotencyKey(where.scope, where.key, token)
      .catch((err) => this.deps.log.warn({ err, scope: where.scope }, 'could not release an idempotency key'));
  }
}
