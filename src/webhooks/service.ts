/**
 * Webhook management: the checks a JSON schema cannot express (URL target,
 * header names, cron, time zone, mock endpoint, secret), schedule bookkeeping
 * (`nextFireAt` recomputed on every change), test-fire and manual retry.
 */
import { compileFilter } from '../events/filters.js';
import type { ApplicationScope } from '../applications/types.js';
import type { Clock } from '../clock.js';
import { dryRunResult, sameJson, type DryRunResult } from '../dry-run.js';
import { ConflictError, InvalidRequestError, deliveryNotFound, recoveryNotFound, webhookNotFound } from '../errors.js';
import { checkUrlTarget } from '../net/ssrf.js';
import { nextFires, parseCron, validTimezone } from '../scheduler/cron.js';
import { firstFire } from '../scheduler/scheduler.js';
import {
  WEBHOOK_INPUT_DEFAULTS,
  type BulkRetryInput,
  type DiscardHeldInput,
  type RecoverInput,
  type RotateSecretInput,
  type TransformationTestInput,
  type WebhookInput,
  type WebhookUpdate,
} from '../schema/webhooks.js';
import { failureRatio, webhookKey, windowCounts } from '../store/shared/target-health.js';
import type { Store } from '../store/store.js';
import type { Page } from '../types.js';
import type { DeliveryEngine } from '../deliveries/engine.js';
import { unmaskHeaders, unmaskUrl } from './masking.js';
import { generateSecret, isValidSecret, kindOf } from './signing.js';
import {
  HEALTH_WINDOW,
  NO_DELIVERIES,
  SECRET_OVERLAP_DEFAULT_S,
  rotatedSecrets,
  type HealthReport,
  type NewWebhook,
  type Recovery,
  type RecoveryFilter,
  type TargetHealth,
  type Webhook,
  type WebhookHealth,
  type WebhookPatch,
} from './types.js';
import type { Delivery, DeliveryStatus } from '../deliveries/types.js';
import { autoDisableOf, breakerOf, rateLimitOf } from './health/settings.js';
import type { HealthMonitor } from './health/monitor.js';
import type { RecoveryRunner } from './recovery.js';
import type { TransformResult, Transformer } from './transformation.js';

/** The API schema's defaults (what a field left out means), as the service reads them. */
export const WEBHOOK_DEFAULTS = {
  timezone: WEBHOOK_INPUT_DEFAULTS.timezone,
  maxAttempts: WEBHOOK_INPUT_DEFAULTS.retry.max_attempts,
  timeoutMs: WEBHOOK_INPUT_DEFAULTS.timeout_ms,
};
const RESERVED_HEADERS = new Set(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;


export interface WebhookServiceDeps {
  store: Store;
  clock: Clock;
  engine: DeliveryEngine;
  allowPrivateTargets: boolean;
  /** Tells the scheduler that schedules changed. */
  wakeScheduler(): void;
  /** Holds and releases deliveries, tells the other processes and the operational events (health/monitor.ts). */
  health: HealthMonitor;
  /** Runs recovery jobs; woken when one is created. */
  recoveries: RecoveryRunner;
  /** Checks a transformation at write time (a worker's throwaway isolate) and runs the try-it endpoint's. */
  transformer?: Transformer;
  /** Webhooks' `application_id`: the application named must exist (the store checks its room); absent: refused. */
  applications?: ApplicationScope;
}

/** What a delivery answer's `message` says when a person discarded it. */
const DISCARDED_BY_HAND = 'discarded by an operator while held';
/**
 * Fields whose change the delivery side must learn of at once (the gate and the target cache
 * them): a fixed transformation must not run its old code for the cache's second.
 */
const SENDING_FIELDS = ['enabled', 'pausedAt', 'targetUrl', 'breaker', 'rateLimit', 'autoDisable', 'secret', 'previousSecrets', 'transformation'] as const;
/** The values of `secret` that ask for a generated key (shown once in the answer). */
const GENERATE = 'generate';
const GENERATE_ED25519 = 'generate_ed25519';

/** A filter as written, once compileFilter accepted it (it throws invalid_filter naming the bad part); null: none. */
function checkedFilter(filter: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (filter === undefined || filter === null) return null;
  compileFilter(filter);
  return filter;
}

export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  private iso(ms = this.deps.clock.now()): string {
    return new Date(ms).toISOString();
  }

  private checkHeaders(headers: Record<string, string>): void {
    for (const [name, value] of Object.entries(headers)) {
      if (!HEADER_NAME.test(name)) {
        throw new InvalidRequestError(`headers: '${name}' is not a valid header name`, { field: 'headers' });
      }
      if (RESERVED_HEADERS.has(name.toLowerCase())) {
        throw new InvalidRequestError(`headers: '${name}' is set by Switchyard (Standard Webhooks) and cannot be overridden`, {
          field: 'headers',
        });
      }
      if (!HEADER_VALUE.test(value)) {
        throw new InvalidRequestError(`headers: the value of '${name}' has a control character`, { field: 'headers' });
      }
    }
  }

  private checkTarget(url: string): void {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new InvalidRequestError('target_url must be an absolute http(s) URL', { field: 'target_url' });
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new InvalidRequestError('target_url must be an absolute http(s) URL', { field: 'target_url' });
    }
    checkUrlTarget(url, this.deps.allowPrivateTargets);
  }

  private checkSchedule(cron: string | null, timezone: string): void {
    if (!validTimezone(timezone)) {
      throw new InvalidRequestError(`timezone: '${timezone}' is not an IANA time zone (e.g. UTC, Europe/Berlin)`, {
        field: 'timezone',
      });
    }
    if (cron !== null) parseCron(cron);
  }

  private async checkMock(mock: { api_id: string; path: string }): Promise<void> {
    if (!mock.path.startsWith('/')) {
      throw new InvalidRequestError('mock_endpoint.path must start with / (the path after the API id)', {
        field: 'mock_endpoint.path',
      });
    }
    if (!(await this.deps.store.getApi(mock.api_id))) {
      throw new InvalidRequestError(`mock_endpoint.api_id: API '${mock.api_id}' does not exist`, {
        field: 'mock_endpoint.api_id',
      });
    }
  }

  private checkEvents(events: string[]): void {
    for (const event of events) {
      if (event !== '*' && !/^[A-Za-z0-9_.:-]{1,200}$/.test(event)) {
        throw new InvalidRequestError(`events: '${event}' is not a valid event name`, { field: 'events' });
      }
    }
  }

  /** `"generate"` (HMAC) or `"generate_ed25519"` makes a key (returned once); anything else must be a Standard Webhooks key. */
  private resolveSecret(secret: string | null | undefined, field = 'secret'): { stored: string | null; reveal?: string } {
    if (secret === undefined || secret === null) return { stored: null };
    if (secret === GENERATE || secret === GENERATE_ED25519) {
      const made = generateSecret(secret === GENERATE ? 'hmac' : 'ed25519');
      return { stored: made, reveal: made };
    }
    if (!isValidSecret(secret)) {
      throw new InvalidRequestError(
        `${field} must be "${GENERATE}", "${GENERATE_ED25519}", whsec_ followed by base64 of 24 to 64 bytes, or whsk_ followed by base64 of an ed25519 private key (32 or 64 bytes)`,
        { field },
      );
    }
    return { stored: secret };
  }

  /** A webhook as answers show it: secrets whose overlap has ended by the service's clock are left out (they no longer sign). */
  private live(w: Webhook): Webhook {
    if (w.previousSecrets.length === 0) return w;
    const now = this.deps.clock.now();
    return { ...w, previousSecrets: w.previousSecrets.filter((p) => Date.parse(p.expiresAt) > now) };
  }

  /**
   * `POST /api/webhooks/{id}/rotate-secret`: a new current secret (given, or
   * generated of the kind asked, else of the current one's kind); the replaced
   * one keeps signing for `overlap_s` (default 24 h). The write is announced
   * (a `webhook` change) before this answers, so every process signs with the
   * new set from its next attempt.
   */
  async rotateSecret(id: string, input: RotateSecretInput): Promise<{ webhook: Webhook; secret?: string }> {
    const current = await this.get(id);
    let secret: { stored: string | null; reveal?: string };
    if (input.secret !== undefined) {
      secret = this.resolveSecret(input.secret);
      const kind = kindOf(secret.stored!);
      if (input.kind !== undefined && input.kind !== kind) {
        throw new InvalidRequestError(`kind: '${input.kind}' does not match the secret given (a ${kind} key)`, { field: 'kind' });
      }
    } else {
      const kind = input.kind ?? (current.secret ? kindOf(current.secret) : 'hmac');
      const made = generateSecret(kind);
      secret = { stored: made, reveal: made };
    }
    if (secret.stored === current.secret) {
      throw new InvalidRequestError('secret: is the current secret already; give a new one, or leave it out to have one generated', { field: 'secret' });
    }
    const now = this.deps.clock.now();
    const overlapS = input.overlap_s ?? SECRET_OVERLAP_DEFAULT_S;
    const webhook = await this.deps.store.rotateWebhookSecret(id, {
      secret: secret.stored!,
      at: this.iso(now),
      overlapUntil: this.iso(now + overlapS * 1000),
    });
    if (!webhook) throw webhookNotFound(id);
    await this.deps.health.announce(id);
    return { webhook: this.live(webhook), secret: secret.reveal };
  }

  async create(input: WebhookInput): Promise<{ webhook: Webhook; secret?: string }> {
    const { fields, reveal } = await this.prepareCreate(input);
    const webhook = await this.deps.store.createWebhook(fields);
    if (webhook.nextFireAt) this.deps.wakeScheduler();
    return { webhook, secret: reveal };
  }

  /** `POST /api/webhooks?dry_run=true`: every check of create, nothing stored. */
  async checkCreate(input: WebhookInput): Promise<DryRunResult> {
    await this.prepareCreate(input);
    return dryRunResult('create', Object.keys(input).filter((k) => input[k as keyof WebhookInput] !== undefined).sort());
  }

  /** `PUT /api/webhooks/:id?dry_run=true`: the fields whose values would change (headers and secret compared here, as they are never shown). */
  async checkUpdate(id: string, input: WebhookUpdate): Promise<DryRunResult> {
    const { current, patch, secret } = await this.prepareUpdate(id, input);
    const names: Record<string, string> = {
      targetUrl: 'target_url',
      payloadTemplate: 'payload_template',
      mockEndpoint: 'mock_endpoint',
      timeoutMs: 'timeout_ms',
    };
    const changes: string[] = [];
    for (const [key, value] of Object.entries(patch)) {
      if (key === 'nextFireAt' || key === 'secret' || key === 'secretCreatedAt' || key === 'previousSecrets') continue;
      if (!sameJson(value, current[key as keyof Webhook])) changes.push(names[key] ?? key);
    }
    if (secret && (secret.reveal !== undefined || secret.stored !== current.secret)) changes.push('secret');
    return dryRunResult('update', changes.sort());
  }

  private async prepareCreate(input: WebhookInput): Promise<{ fields: NewWebhook; reveal?: string }> {
    const headers = unmaskHeaders(input.headers ?? {});
    const targetUrl = unmaskUrl(input.target_url);
    const cron = input.cron ?? null;
    const timezone = input.timezone ?? WEBHOOK_DEFAULTS.timezone;
    const enabled = input.enabled ?? true;
    this.checkTarget(targetUrl);
    this.checkHeaders(headers);
    this.checkSchedule(cron, timezone);
    if (input.mock_endpoint) await this.checkMock(input.mock_endpoint);
    if (input.transformation) await this.checkTransformation(input.transformation);
    const events = input.events ?? [];
    this.checkEvents(events);
    const applicationId = input.application_id ? (await this.applicationOf(input.application_id)).id : null;
    const secret = this.resolveSecret(input.secret);
    const fields: NewWebhook = {
      name: input.name,
      targetUrl,
      method: input.method,
      headers,
      payloadTemplate: input.payload_template,
      cron,
      timezone,
      mockEndpoint: input.mock_endpoint ? { apiId: input.mock_endpoint.api_id, path: input.mock_endpoint.path } : null,
      transformation: input.transformation ?? null,
      events,
      enabled,
      secret: secret.stored,
      secretCreatedAt: secret.stored === null ? null : this.iso(),
      previousSecrets: [],
      retry: {
        maxAttempts: input.retry?.max_attempts ?? WEBHOOK_DEFAULTS.maxAttempts,
        scheduleS: input.retry?.schedule_s ?? null,
      },
      timeoutMs: input.timeout_ms ?? WEBHOOK_DEFAULTS.timeoutMs,
      nextFireAt: firstFire(cron, timezone, enabled, this.deps.clock.now()),
      pausedAt: null,
      disabledReason: null,
      breaker: breakerOf(input.breaker),
      rateLimit: rateLimitOf(input.rate_limit),
      autoDisable: autoDisableOf(input.auto_disable),
      filter: checkedFilter(input.filter),
      project: input.project ?? null,
      applicationId,
    };
    return { fields, reveal: secret.reveal };
  }

  private async checkTransformation(source: string): Promise<void> {
    if (!this.deps.transformer) throw new InvalidRequestError('transformation: transformations are not available on this server', { field: 'transformation' });
    await this.deps.transformer.check(source);
  }

  /**
   * `POST /api/transformation-test`: the code checked as a write
   * would check it (a 400 when it would be refused), then run once on the
   * sample request, as an attempt would run it.
   */
  async testTransformation(input: TransformationTestInput): Promise<{ result: TransformResult; durationMs: number }> {
    await this.checkTransformation(input.transformation);
    const { request } = input;
    const method = request.method ?? 'POST';
    const headers = unmaskHeaders(request.headers ?? {});
    const body = request.payload === undefined || request.payload === null || method === 'GET' ? null : JSON.stringify(request.payload);
    if (body !== null && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    const started = performance.now();
    const result = await this.deps.transformer!.apply(input.transformation, { method, url: request.url, headers, body }, input.event_type ?? null);
    return { result, durationMs: Math.round((performance.now() - started) * 100) / 100 };
  }

  async get(id: string): Promise<Webhook> {
    const webhook = await this.deps.store.getWebhook(id);
    if (!webhook) throw webhookNotFound(id);
    return this.live(webhook);
  }

  /** The next five fire times, for `GET /api/webhooks/:id`. */
  upcoming(webhook: Webhook): string[] {
    if (!webhook.cron || !webhook.enabled) return [];
    return nextFires(parseCron(webhook.cron), webhook.timezone, this.deps.clock.now(), 5).map((ms) => this.iso(ms));
  }

  /** Of one application when `applicationId` (an id, resolved by the caller) is given. */
  async list(page: Page, applicationId?: string): Promise<Webhook[]> {
    return (await this.deps.store.listWebhooks(page, applicationId)).map((w) => this.live(w));
  }

  private async applicationOf(idOrUid: string) {
    if (!this.deps.applications) throw new InvalidRequestError('application_id: applications are not available on this server', { field: 'application_id' });
    return this.deps.applications.resolve(idOrUid, 'application_id');
  }

  /**
   * Each webhook's health: the outcomes of its HEALTH_WINDOW newest deliveries
   * and its endpoint health (breaker, held, Retry-After), three queries for a
   * whole page.
   */
  async health(webhooks: Webhook[]): Promise<Map<string, HealthReport>> {
    const ids = webhooks.map((w) => w.id);
    const [outcomes, rows, held] = await Promise.all([
      this.deps.store.webhookHealth(ids, HEALTH_WINDOW),
      this.deps.store.targetHealth(ids.map(webhookKey)),
      this.deps.store.countHeld(ids),
    ]);
    const now = this.deps.clock.now();
    return new Map(webhooks.map((w) => [w.id, healthReport(w, outcomes.get(w.id), rows.get(webhookKey(w.id)) ?? null, held.get(w.id) ?? 0, now)]));
  }

  async update(id: string, input: WebhookUpdate): Promise<{ webhook: Webhook; secret?: string }> {
    const { current, patch, secret } = await this.prepareUpdate(id, input);
    const enabling = patch.enabled === true && !current.enabled;
    const disabling = patch.enabled === false && current.enabled;
    // Enabled again by a person: why Switchyard disabled it no longer holds.
    if (enabling) patch.disabledReason = null;
    const webhook = await this.deps.store.updateWebhook(id, patch);
    if (!webhook) throw webhookNotFound(id);
    this.deps.wakeScheduler();
    const { health } = this.deps;
    if (disabling) await health.hold(id);
    if (enabling) await this.deps.store.resetTargetHealth(id, this.deps.clock.now());
    if (SENDING_FIELDS.some((f) => f in patch && !sameJson(patch[f], current[f]))) await health.announce(id);
    if (disabling) await health.tell('disabled', id, { reason: 'operator' });
    if (enabling) {
      await health.tell('resumed', id, { reason: 'enabled' });
      this.releaseLater(id);
    }
    return { webhook: this.live(webhook), secret: secret?.reveal };
  }

  /**
   * `POST /api/webhooks/{id}/pause`: its deliveries are held (those in flight
   * finish) until it is resumed. Pausing a paused webhook changes nothing.
   */
  async pause(id: string): Promise<Webhook> {
    const current = await this.get(id);
    if (current.pausedAt !== null) return current;
    const webhook = await this.deps.store.updateWebhook(id, { pausedAt: this.iso() });
    if (!webhook) throw webhookNotFound(id);
    await this.deps.health.hold(id);
    await this.deps.health.announce(id);
    await this.deps.health.tell('paused', id, { reason: 'operator' });
    return this.live(webhook);
  }

  /**
   * `POST /api/webhooks/{id}/resume`: sending again, its breaker closed by hand,
   * its held deliveries released in publish order (at its rate limit, when it has one).
   */
  async resume(id: string): Promise<Webhook> {
    const current = await this.get(id);
    const webhook = current.pausedAt === null ? current : await this.deps.store.updateWebhook(id, { pausedAt: null });
    if (!webhook) throw webhookNotFound(id);
    const reopened = await this.deps.store.resetTargetHealth(id, this.deps.clock.now());
    if (current.pausedAt === null && !reopened) return this.live(webhook);
    await this.deps.health.announce(id);
    await this.deps.health.tell('resumed', id, { reason: 'operator' });
    this.releaseLater(id);
    return this.live(webhook);
  }

  /** Held deliveries go in the background: a large backlog takes several statements, and the sweep would finish it anyway. */
  private releaseLater(id: string): void {
    this.deps.health.resend(id).catch(() => undefined);
  }

  /** `POST /api/webhooks/{id}/held/discard`: drops held deliveries by filter (`dryRun`: counts them). */
  async discardHeld(id: string, input: DiscardHeldInput, dryRun: boolean): Promise<number> {
    await this.get(id);
    this.checkEvents(input.events ?? []);
    const filter = { events: input.events ?? null, before: input.before ?? null };
    if (dryRun) return this.deps.store.countHeldMatching(id, filter);
    return this.deps.store.discardHeld(id, filter, this.iso(), DISCARDED_BY_HAND);
  }

  /** `POST /api/webhooks/{id}/recover`: a job that resends the webhook's finished deliveries the filter selects (`dryRun`: their count). */
  async recover(id: string, input: RecoverInput, dryRun: boolean): Promise<Recovery | number> {
    await this.get(id);
    return this.startRecovery(id, this.recoveryFilter(input, [id]), dryRun);
  }

  /**
   * `POST /api/recoveries`: the same across webhooks (every one, those named,
   * or one application's: the ones it owns now, so a webhook moved in later is
   * not resent to, and one moved out is).
   */
  async bulkRetry(input: BulkRetryInput, dryRun: boolean): Promise<Recovery | number> {
    const owner = input.application === undefined ? undefined : await this.ownedBy(input.application);
    for (const [i, webhookId] of (input.webhook_ids ?? []).entries()) {
      const webhook = await this.deps.store.getWebhook(webhookId);
      if (!webhook) throw new InvalidRequestError(`webhook_ids[${i}]: webhook '${webhookId}' does not exist`, { field: `webhook_ids[${i}]` });
      if (owner && webhook.applicationId !== owner.id) {
        throw new InvalidRequestError(`webhook_ids[${i}]: webhook '${webhookId}' is not application '${input.application}''s`, { field: `webhook_ids[${i}]` });
      }
    }
    return this.startRecovery(null, this.recoveryFilter(input, input.webhook_ids ?? owner?.webhookIds ?? null), dryRun);
  }

  /** An application's id and the ids of every webhook it owns (an application with none: an empty list, so nothing is resent). */
  private async ownedBy(idOrUid: string): Promise<{ id: string; webhookIds: string[] }> {
    if (!this.deps.applications) throw new InvalidRequestError('application: applications are not available on this server', { field: 'application' });
    const app = await this.deps.applications.resolve(idOrUid, 'application');
    const webhookIds: string[] = [];
    for (let after: string | undefined; ; ) {
      const page = await this.deps.store.listWebhooks({ limit: 1000, after }, app.id);
      webhookIds.push(...page.map((w) => w.id));
      if (page.length < 1000) return { id: app.id, webhookIds };
      after = page[page.length - 1].id;
    }
  }

  private recoveryFilter(input: RecoverInput, webhookIds: string[] | null): RecoveryFilter {
    // The bounds are compared with the deliveries' ids, which carry this machine's time of creation
    // (src/ids.ts), so "now" is that clock's too, not the service's (a test clock stands still).
    const until = input.until ?? new Date().toISOString();
    if (Date.parse(input.since) > Date.parse(until)) {
      throw new InvalidRequestError(`since (${input.since}) is after until (${until})`, { field: 'since' });
    }
    if (input.events) this.checkEvents(input.events);
    return {
      webhookIds,
      since: new Date(input.since).toISOString(),
      until: new Date(until).toISOString(),
      statuses: input.statuses ?? ['failed'],
      events: input.events ?? null,
    };
  }

  private async startRecovery(webhookId: string | null, filter: RecoveryFilter, dryRun: boolean): Promise<Recovery | number> {
    if (dryRun) return this.deps.store.countRecoverable(filter);
    const recovery = await this.deps.store.createRecovery({ webhookId, filter });
    this.deps.recoveries.wake();
    return recovery;
  }

  async getRecovery(id: string): Promise<Recovery> {
    const recovery = await this.deps.store.getRecovery(id);
    if (!recovery) throw recoveryNotFound(id);
    return recovery;
  }

  /** A webhook's recovery jobs (null: every job, bulk retries included), newest first. */
  /** Of one application's webhooks when `applicationId` (resolved by the caller) is given. */
  async listRecoveries(webhookId: string | null, page: Page, applicationId?: string): Promise<Recovery[]> {
    if (webhookId !== null) {
      const webhook = await this.get(webhookId);
      // Both given: that webhook's jobs, when it is the application's.
      if (applicationId !== undefined && webhook.applicationId !== applicationId) return [];
      return this.deps.store.listRecoveries(webhookId, page);
    }
    return this.deps.store.listRecoveries(null, page, applicationId);
  }

  /** Stops a running job; what it resent stays resent. */
  async cancelRecovery(id: string): Promise<Recovery> {
    const cancelled = await this.deps.store.cancelRecovery(id, this.iso());
    if (cancelled) return cancelled;
    const existing = await this.getRecovery(id);
    throw new ConflictError('recovery_finished', `Recovery '${id}' is ${existing.status}; only a running one can be cancelled`);
  }

  private async prepareUpdate(
    id: string,
    input: WebhookUpdate,
  ): Promise<{ current: Webhook; patch: WebhookPatch; secret?: { stored: string | null; reveal?: string } }> {
    const current = await this.get(id);
    const patch: WebhookPatch = {};
    for (const field of ['name', 'target_url', 'method', 'payload_template'] as const) {
      if (input[field] === null) throw new InvalidRequestError(`${field} cannot be null`, { field });
    }
    // `!= null` below: null was refused above; the schema admits it so that the message names the field.
    if (input.name != null) patch.name = input.name;
    if (input.target_url != null) {
      // The URL sent back as the API showed it (credentials masked) keeps the stored one.
      patch.targetUrl = unmaskUrl(input.target_url, current.targetUrl);
      this.checkTarget(patch.targetUrl);
    }
    if (input.method != null) patch.method = input.method;
    if (input.payload_template != null) patch.payloadTemplate = input.payload_template;
    if (input.headers !== undefined) {
      // A masked value sent back as the API showed it keeps the stored one (write-only, like `secret`).
      patch.headers = unmaskHeaders(input.headers ?? {}, current.headers);
      this.checkHeaders(patch.headers);
    }
    if (input.events !== undefined) {
      patch.events = input.events ?? [];
      this.checkEvents(patch.events);
    }
    if (input.mock_endpoint !== undefined) {
      if (input.mock_endpoint) await this.checkMock(input.mock_endpoint);
      patch.mockEndpoint = input.mock_endpoint
        ? { apiId: input.mock_endpoint.api_id, path: input.mock_endpoint.path }
        : null;
    }
    if (input.transformation !== undefined) {
      if (input.transformation) await this.checkTransformation(input.transformation);
      patch.transformation = input.transformation ?? null;
    }
    if (input.retry !== undefined) {
      patch.retry = {
        maxAttempts: input.retry?.max_attempts ?? WEBHOOK_DEFAULTS.maxAttempts,
        scheduleS: input.retry?.schedule_s ?? null,
      };
    }
    if (input.timeout_ms !== undefined) patch.timeoutMs = input.timeout_ms ?? WEBHOOK_DEFAULTS.timeoutMs;
    if (input.breaker !== undefined) patch.breaker = breakerOf(input.breaker, current.breaker);
    if (input.rate_limit !== undefined) patch.rateLimit = rateLimitOf(input.rate_limit, current.rateLimit);
    if (input.auto_disable !== undefined) patch.autoDisable = autoDisableOf(input.auto_disable, current.autoDisable);
    if (input.filter !== undefined) patch.filter = checkedFilter(input.filter);
    if (input.project !== undefined) patch.project = input.project;
    if (input.application_id !== undefined) {
      // Moved into another application, it takes one of that one's endpoints: the store's write counts them.
      patch.applicationId = input.application_id === null ? null : (await this.applicationOf(input.application_id)).id;
    }
    let secret: { stored: string | null; reveal?: string } | undefined;
    if (input.secret_overlap_s != null && (input.secret === undefined || input.secret === null)) {
      throw new InvalidRequestError('secret_overlap_s: only with a new secret (it says how long the replaced one keeps signing)', { field: 'secret_overlap_s' });
    }
    if (input.secret !== undefined) {
      secret = this.resolveSecret(input.secret);
      if (secret.stored !== current.secret || secret.reveal !== undefined) {
        const overlapS = input.secret_overlap_s ?? 0;
        if (secret.stored !== null && overlapS > 0) {
          // A rotation through PUT (what `switchyard apply` of a changed secret does): the old one keeps signing a while.
          const now = this.deps.clock.now();
          Object.assign(patch, rotatedSecrets(current, { secret: secret.stored, at: this.iso(now), overlapUntil: this.iso(now + overlapS * 1000) }));
        } else {
          // Replaced: only the new one signs from now on (null: nothing signs).
          patch.secret = secret.stored;
          patch.secretCreatedAt = secret.stored === null ? null : this.iso();
          patch.previousSecrets = [];
        }
      }
    }
    const cron = input.cron !== undefined ? input.cron : current.cron;
    const timezone = input.timezone !== undefined ? (input.timezone ?? WEBHOOK_DEFAULTS.timezone) : current.timezone;
    const enabled = input.enabled !== undefined ? (input.enabled ?? true) : current.enabled;
    if (input.cron !== undefined || input.timezone !== undefined || input.enabled !== undefined) {
      this.checkSchedule(cron, timezone);
      patch.cron = cron;
      patch.timezone = timezone;
      patch.enabled = enabled;
      // Rescheduled at once, from now: the old next slot no longer applies.
      patch.nextFireAt = firstFire(cron, timezone, enabled, this.deps.clock.now());
    }
    return { current, patch, secret };
  }

  /** `DELETE ?dry_run=true`. */
  async checkDelete(id: string): Promise<DryRunResult> {
    await this.get(id);
    return dryRunResult('delete', []);
  }

  async delete(id: string): Promise<void> {
    if (!(await this.deps.store.deleteWebhook(id))) throw webhookNotFound(id);
    this.deps.wakeScheduler();
    // Every process drops what it cached and measured of it (its series among them) before this answers.
    await this.deps.health.announce(id);
  }

  /** Sends once now, also when disabled; no retries. Answers the finished delivery. */
  /**
   * `sample`: an event to send as if published (a catalogued type's example, src/events/catalogue.ts); none: the plain test payload.
   * `trace`: the test-fire request's trace context (tracing on), which its attempt joins.
   */
  async test(id: string, sample: { event: string; data: unknown } | null = null, trace?: string): Promise<Delivery> {
    await this.get(id);
    // Due a minute from now, so the engine's own loop never races this attempt for it.
    const delivery = await this.deps.store.createDelivery({
      webhookId: id,
      trigger: 'test',
      scheduledFor: null,
      event: sample?.event ?? null,
      eventData: sample ? sample.data : null,
      nextAttemptAt: this.iso(this.deps.clock.now() + 60_000),
      traceContext: trace,
    });
    return this.deps.engine.attemptNow(delivery.id);
  }

  /** Webhook deliveries only: a function target's is an invocation (`/api/functions/:name/invocations/:id`). */
  async getDelivery(id: string): Promise<Delivery> {
    const delivery = await this.deps.store.getDelivery(id);
    if (!delivery || delivery.webhookId === null) throw deliveryNotFound(id);
    return delivery;
  }

  /** getDelivery with each attempt's response: the one read of them (`GET /api/deliveries/{id}`). */
  async getDeliveryDetail(id: string): Promise<Delivery> {
    const delivery = await this.deps.store.getDeliveryDetail(id);
    if (!delivery || delivery.webhookId === null) throw deliveryNotFound(id);
    return delivery;
  }

  async listDeliveries(webhookId: string, page: Page, status: DeliveryStatus | null = null): Promise<Delivery[]> {
    await this.get(webhookId);
    return this.deps.store.listDeliveries(webhookId, page, status);
  }

  /** One more attempt of a finished delivery: same webhook-id, same bytes. */
  async retry(id: string): Promise<Delivery> {
    const existing = await this.getDelivery(id);
    if (existing.status === 'pending') {
      throw new ConflictError('delivery_pending', `Delivery '${id}' is still pending; it will be retried on its schedule`);
    }
    const reopened = await this.deps.store.reopenDelivery(id, this.iso(this.deps.clock.now() + 60_000));
    if (!reopened) throw new ConflictError('delivery_pending', `Delivery '${id}' is already being retried`);
    return this.deps.engine.attemptNow(id);
  }

  /** For `DELETE /api/apis/:id`: the webhooks that still use the API as mock endpoint. */
  async assertApiUnused(apiId: string): Promise<void> {
    const users = await this.deps.store.webhooksUsingApi(apiId);
    if (users.length > 0) {
      throw new ConflictError(
        'api_in_use',
        `API '${apiId}' is the mock_endpoint of ${users.length} webhook(s); change or delete them first`,
        { webhooks: users.map((w) => w.id) },
      );
    }
  }
}


/** A webhook's health as its answer shows it. */
function healthReport(w: Webhook, outcomes: WebhookHealth | undefined, row: TargetHealth | null, held: number, now: number): HealthReport {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const windowMs = w.breaker.windowS * 1000;
  return {
    ...NO_DELIVERIES,
    ...outcomes,
    state: row?.state ?? 'closed',
    since: iso(row?.since ?? null),
    failureRatio: row ? Math.round(failureRatio(row, windowMs, now) * 1000) / 1000 : 0,
    windowAttempts: row ? Math.round(windowCounts(row, windowMs, now).attempts * 10) / 10 : 0,
    held,
    heldDiscarded: row?.heldDiscarded ?? 0,
    nextProbeAt: row?.state === 'open' ? iso(row.probeAt) : null,
    probeDeliveryId: row?.state === 'half_open' ? row.probeDeliveryId : null,
    notBefore: row?.notBefore !== null && row?.notBefore !== undefined && row.notBefore > now ? iso(row.notBefore) : null,
    failingSince: iso(row?.failingSince ?? null),
    lastSuccessAt: iso(row?.lastSuccessAt ?? null),
    lastFailureAt: iso(row?.lastFailureAt ?? null),
  };
}
