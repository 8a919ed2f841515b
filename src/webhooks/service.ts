/**
 * Webhook management: the checks a JSON schema cannot express (URL target,
 * header names, cron, time zone, mock endpoint, secret), schedule bookkeeping
 * (`nextFireAt` recomputed on every change), test-fire and manual retry.
 */
import type { Clock } from '../clock.js';
import { dryRunResult, sameJson, type DryRunResult } from '../dry-run.js';
import { ConflictError, InvalidRequestError, deliveryNotFound, webhookNotFound } from '../errors.js';
import { checkUrlTarget } from '../net/ssrf.js';
import { nextFires, parseCron, validTimezone } from '../scheduler/cron.js';
import { firstFire } from '../scheduler/scheduler.js';
import { WEBHOOK_INPUT_DEFAULTS, type WebhookInput, type WebhookUpdate } from '../schema/webhooks.js';
import type { Store } from '../store/store.js';
import type { Page } from '../types.js';
import type { DeliveryEngine } from '../deliveries/engine.js';
import { unmaskHeaders, unmaskUrl } from './masking.js';
import { generateSecret, isValidSecret } from './signing.js';
import { HEALTH_WINDOW, type NewWebhook, type Webhook, type WebhookHealth, type WebhookPatch } from './types.js';
import type { Delivery } from '../deliveries/types.js';

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

  /** `"generate"` makes a key (returned once); anything else must be a Standard Webhooks key. */
  private resolveSecret(secret: string | null | undefined): { stored: string | null; reveal?: string } {
    if (secret === undefined || secret === null) return { stored: null };
    if (secret === 'generate') {
      const made = generateSecret();
      return { stored: made, reveal: made };
    }
    if (!isValidSecret(secret)) {
      throw new InvalidRequestError('secret must be "generate" or whsec_ followed by base64 of 24 to 64 bytes', {
        field: 'secret',
      });
    }
    return { stored: secret };
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
      if (key === 'nextFireAt' || key === 'secret') continue;
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
    const events = input.events ?? [];
    this.checkEvents(events);
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
      events,
      enabled,
      secret: secret.stored,
      retry: {
        maxAttempts: input.retry?.max_attempts ?? WEBHOOK_DEFAULTS.maxAttempts,
        scheduleS: input.retry?.schedule_s ?? null,
      },
      timeoutMs: input.timeout_ms ?? WEBHOOK_DEFAULTS.timeoutMs,
      nextFireAt: firstFire(cron, timezone, enabled, this.deps.clock.now()),
    };
    return { fields, reveal: secret.reveal };
  }

  async get(id: string): Promise<Webhook> {
    const webhook = await this.deps.store.getWebhook(id);
    if (!webhook) throw webhookNotFound(id);
    return webhook;
  }

  /** The next five fire times, for `GET /api/webhooks/:id`. */
  upcoming(webhook: Webhook): string[] {
    if (!webhook.cron || !webhook.enabled) return [];
    return nextFires(parseCron(webhook.cron), webhook.timezone, this.deps.clock.now(), 5).map((ms) => this.iso(ms));
  }

  list(page: Page): Promise<Webhook[]> {
    return this.deps.store.listWebhooks(page);
  }

  /** Each webhook's health over its HEALTH_WINDOW newest deliveries, for the list (one query for the page). */
  async health(webhooks: Webhook[]): Promise<Map<string, WebhookHealth>> {
    return this.deps.store.webhookHealth(
      webhooks.map((w) => w.id),
      HEALTH_WINDOW,
    );
  }

  async update(id: string, input: WebhookUpdate): Promise<{ webhook: Webhook; secret?: string }> {
    const { patch, secret } = await this.prepareUpdate(id, input);
    const webhook = await this.deps.store.updateWebhook(id, patch);
    if (!webhook) throw webhookNotFound(id);
    this.deps.wakeScheduler();
    return { webhook, secret: secret?.reveal };
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
    if (input.retry !== undefined) {
      patch.retry = {
        maxAttempts: input.retry?.max_attempts ?? WEBHOOK_DEFAULTS.maxAttempts,
        scheduleS: input.retry?.schedule_s ?? null,
      };
    }
    if (input.timeout_ms !== undefined) patch.timeoutMs = input.timeout_ms ?? WEBHOOK_DEFAULTS.timeoutMs;
    let secret: { stored: string | null; reveal?: string } | undefined;
    if (input.secret !== undefined) {
      secret = this.resolveSecret(input.secret);
      patch.secret = secret.stored;
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
  }

  /** Sends once now, also when disabled; no retries. Answers the finished delivery. */
  async test(id: string): Promise<Delivery> {
    await this.get(id);
    // Due a minute from now, so the engine's own loop never races this attempt for it.
    const delivery = await this.deps.store.createDelivery({
      webhookId: id,
      trigger: 'test',
      scheduledFor: null,
      event: null,
      eventData: null,
      nextAttemptAt: this.iso(this.deps.clock.now() + 60_000),
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

  async listDeliveries(webhookId: string, page: Page): Promise<Delivery[]> {
    await this.get(webhookId);
    return this.deps.store.listDeliveries(webhookId, page);
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

