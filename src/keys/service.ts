/**
 * API keys and usage plans on top of the store: the checks a schema cannot
 * express (the APIs a plan names and the plan a key names exist), secrets
 * made and shown once, and a `keys` change published after every write, so
 * that every process refuses a disabled or deleted key as soon as the write
 * answers (the gateway's key cache, src/gateway/policy/api-keys.ts).
 */
import type { ChangeBus } from '../changes.js';
import { InvalidRequestError, apiKeyNotFound, usagePlanNotFound } from '../errors.js';
import type { ApiKeyPatch, NewUsagePlan, Store, UsagePlanPatch } from '../store/store.js';
import type { ApiKey, Page, UsagePlan } from '../types.js';
import { newSecret } from './secrets.js';

export interface NewApiKeyInput {
  name: string;
  enabled?: boolean;
  usagePlanId?: string | null;
}

/** The most days one usage read covers. */
export const MAX_USAGE_DAYS = 366;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export interface ApiKeyServiceDeps {
  store: Store;
  changes: ChangeBus;
  /** Today, for usage reads without dates. */
  now?: () => number;
}

export class ApiKeyService {
  private readonly store: Store;
  private readonly changes: ChangeBus;
  private readonly now: () => number;

  constructor(deps: ApiKeyServiceDeps) {
    this.store = deps.store;
    this.changes = deps.changes;
    this.now = deps.now ?? Date.now;
  }

  /** Resolves once every process of this node serves the change. */
  private async changed(): Promise<void> {
    await this.changes.publish({ kind: 'keys' });
  }

  private async checkApis(apiIds: readonly string[] | undefined): Promise<void> {
    if (apiIds === undefined) return;
    for (const [i, id] of apiIds.entries()) {
      if (!(await this.store.getApi(id))) throw new InvalidRequestError(`apiIds[${i}]: API '${id}' does not exist`, { field: `apiIds[${i}]` });
    }
  }

  private async checkPlan(id: string | null | undefined): Promise<void> {
    if (id === undefined || id === null) return;
    if (!(await this.store.getUsagePlan(id))) throw new InvalidRequestError(`usagePlanId: usage plan '${id}' does not exist`, { field: 'usagePlanId' });
  }

  async createPlan(input: NewUsagePlan): Promise<UsagePlan> {
    await this.checkApis(input.apiIds);
    const plan = await this.store.createUsagePlan(input);
    await this.changed();
    return plan;
  }

  async getPlan(id: string): Promise<UsagePlan> {
    const plan = await this.store.getUsagePlan(id);
    if (!plan) throw usagePlanNotFound(id);
    return plan;
  }

  listPlans(page: Page): Promise<UsagePlan[]> {
    return this.store.listUsagePlans(page);
  }

  async updatePlan(id: string, patch: UsagePlanPatch): Promise<UsagePlan> {
    await this.checkApis(patch.apiIds);
    const plan = await this.store.updateUsagePlan(id, patch);
    if (!plan) throw usagePlanNotFound(id);
    await this.changed();
    return plan;
  }

  async deletePlan(id: string): Promise<void> {
    if (!(await this.store.deleteUsagePlan(id))) throw usagePlanNotFound(id);
    await this.changed();
  }

  /** The key, and its secret: the only time the secret is ever answered. */
  async createKey(input: NewApiKeyInput): Promise<{ key: ApiKey; secret: string }> {
    await this.checkPlan(input.usagePlanId);
    const { secret, prefix, hash } = newSecret();
    const key = await this.store.createApiKey({ name: input.name, enabled: input.enabled ?? true, usagePlanId: input.usagePlanId ?? null, prefix, hash });
    await this.changed();
    return { key, secret };
  }

  async getKey(id: string): Promise<ApiKey> {
    const key = await this.store.getApiKey(id);
    if (!key) throw apiKeyNotFound(id);
    return key;
  }

  listKeys(page: Page): Promise<ApiKey[]> {
    return this.store.listApiKeys(page);
  }

  async updateKey(id: string, patch: ApiKeyPatch): Promise<ApiKey> {
    await this.checkPlan(patch.usagePlanId);
    const key = await this.store.updateApiKey(id, patch);
    if (!key) throw apiKeyNotFound(id);
    await this.changed();
    return key;
  }

  async deleteKey(id: string): Promise<void> {
    if (!(await this.store.deleteApiKey(id))) throw apiKeyNotFound(id);
    await this.changed();
  }

  /** Requests per UTC day from `from` to `to` (inclusive; default: the last 30 days to today), every day listed. */
  async usage(id: string, from?: string, to?: string): Promise<{ from: string; to: string; days: Array<{ day: string; used: number }> }> {
    await this.getKey(id);
    const last = to ?? new Date(this.now()).toISOString().slice(0, 10);
    const first = from ?? new Date(Date.parse(`${last}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10);
    for (const [field, day] of [['from', first], ['to', last]] as const) {
      if (!DAY.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`)) || new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day) {
        throw new InvalidRequestError(`${field}: '${day}' is not a day (YYYY-MM-DD)`, { field });
      }
    }
    const span = (Date.parse(`${last}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)) / 86_400_000;
    if (span < 0) throw new InvalidRequestError('from: after to', { field: 'from' });
    if (span >= MAX_USAGE_DAYS) throw new InvalidRequestError(`to: at most ${MAX_USAGE_DAYS} days from from`, { field: 'to' });
    const counted = new Map((await this.store.keyUsage(id, first, last)).map((d) => [d.day, d.used]));
    const days: Array<{ day: string; used: number }> = [];
    for (let i = 0; i <= span; i++) {
      const day = new Date(Date.parse(`${first}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10);
      days.push({ day, used: counted.get(day) ?? 0 });
    }
    return { from: first, to: last, days };
  }
}
