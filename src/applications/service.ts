/**
 * Applications as the management API serves them (`/api/applications`), and
 * the scope checks the webhook service and the event bus ask of them through
 * `ApplicationScope` (./types.ts): which application an id or uid names, and
 * whether one more event fits its events per second (a token bucket in the
 * store, shared by every process and node; taken only for an application that
 * has the limit). Room for one
 * more endpoint is the store's to check, in the write that takes it
 * (store/shared/limits.ts `checkApplicationRoom`).
 */
import { ApplicationRateLimitedError, InvalidRequestError, applicationNotFound } from '../errors.js';
import type { ChangeBus } from '../changes.js';
import type { Clock } from '../clock.js';
import type { ApplicationInput, ApplicationUpdate } from '../schema/applications.js';
import type { Store } from '../store/store.js';
import type { Page } from '../types.js';
import {
  APPLICATION_ID_PREFIX,
  DEFAULT_PORTAL_SETTINGS,
  NO_APPLICATION_LIMITS,
  type Application,
  type ApplicationLimits,
  type ApplicationPatch,
  type ApplicationScope,
  type PortalSettings,
} from './types.js';

const METADATA_MAX_BYTES = 16 * 1024;

export interface ApplicationServiceDeps {
  store: Store;
  clock: Clock;
  /** Deleting an application announces each of its webhooks: every process drops their caches and series. */
  changes: ChangeBus;
}

export class ApplicationService implements ApplicationScope {
  constructor(private readonly deps: ApplicationServiceDeps) {}

  async create(input: ApplicationInput): Promise<Application> {
    checkUid(input.uid);
    checkMetadata(input.metadata);
    return this.deps.store.createApplication({
      name: input.name,
      uid: input.uid ?? null,
      metadata: input.metadata ?? {},
      limits: limitsOf(input.limits, NO_APPLICATION_LIMITS),
      portal: portalOf(input.portal, DEFAULT_PORTAL_SETTINGS),
      project: input.project ?? null,
    });
  }

  /** By id (`app_...`) or uid; throws application_not_found naming `field` when given. */
  async resolve(idOrUid: string, field?: string): Promise<Application> {
    const { store } = this.deps;
    const found = idOrUid.startsWith(APPLICATION_ID_PREFIX) ? await store.getApplication(idOrUid) : await store.getApplicationByUid(idOrUid);
    if (!found) throw applicationNotFound(idOrUid, field);
    return found;
  }

  list(page: Page): Promise<Application[]> {
    return this.deps.store.listApplications(page);
  }

  async update(idOrUid: string, input: ApplicationUpdate): Promise<Application> {
    const current = await this.resolve(idOrUid);
    checkUid(input.uid);
    checkMetadata(input.metadata);
    // Limits and portal merge into the row as the store locked it: two PATCHes of different keys both hold.
    const updated = await this.deps.store.updateApplication(current.id, (locked) => {
      const patch: ApplicationPatch = {};
      if (input.name !== undefined) patch.name = input.name;
      if (input.uid !== undefined) patch.uid = input.uid;
      if (input.metadata !== undefined) patch.metadata = input.metadata;
      if (input.limits !== undefined) patch.limits = limitsOf(input.limits, locked.limits);
      if (input.portal !== undefined) patch.portal = portalOf(input.portal, locked.portal);
      if (input.project !== undefined) patch.project = input.project;
      return patch;
    });
    if (!updated) throw applicationNotFound(idOrUid);
    return updated;
  }

  /**
   * Its webhooks, their deliveries and attempts, and its portal tokens go with it (the store's cascade).
   * The cascade tells no process, so each webhook is announced as WebhookService.delete does: without it
   * their series and cached targets stayed on every process until restart.
   */
  async delete(idOrUid: string): Promise<void> {
    const app = await this.resolve(idOrUid);
    const webhookIds = await this.webhookIdsOf(app.id);
    if (!(await this.deps.store.deleteApplication(app.id))) throw applicationNotFound(idOrUid);
    for (const id of webhookIds) await this.deps.changes.publish({ kind: 'webhook', id });
  }

  private async webhookIdsOf(applicationId: string): Promise<string[]> {
    const ids: string[] = [];
    for (let after: string | undefined; ; ) {
      const page = await this.deps.store.listWebhooks({ after, limit: 500 }, applicationId);
      ids.push(...page.map((w) => w.id));
      if (page.length < 500) return ids;
      after = page[page.length - 1].id;
    }
  }

  async admitEvent(app: Application): Promise<void> {
    const rate = app.limits.eventsPerSecond;
    if (rate === null) return;
    const burst = Math.max(1, Math.ceil(rate));
    const take = await this.deps.store.takeTokens(`app:${app.id}`, { rateLimit: rate, burstLimit: burst }, 1, this.deps.clock.now());
    if (take.taken === 0) throw new ApplicationRateLimitedError(app.id, Math.max(1, Math.ceil(take.retryAfterMs / 1000)));
  }
}

/** A uid that looked like an id would make `resolve` ambiguous. */
function checkUid(uid: string | null | undefined): void {
  if (uid && uid.startsWith(APPLICATION_ID_PREFIX)) {
    throw new InvalidRequestError(`uid: must not start with '${APPLICATION_ID_PREFIX}' (ids do)`, { field: 'uid' });
  }
}

function checkMetadata(metadata: Record<string, unknown> | undefined): void {
  if (metadata === undefined) return;
  const bytes = Buffer.byteLength(JSON.stringify(metadata));
  if (bytes > METADATA_MAX_BYTES) throw new InvalidRequestError(`metadata: ${bytes} bytes of JSON; at most ${METADATA_MAX_BYTES}`, { field: 'metadata' });
}

function limitsOf(input: ApplicationInput['limits'], current: ApplicationLimits): ApplicationLimits {
  if (input === undefined) return { ...current };
  return {
    maxEndpoints: input.max_endpoints === undefined ? current.maxEndpoints : input.max_endpoints,
    eventsPerSecond: input.events_per_second === undefined ? current.eventsPerSecond : input.events_per_second,
    retentionDays: input.retention_days === undefined ? current.retentionDays : input.retention_days,
  };
}

/** An allowed parent as an origin; the schema's pattern lets through some that are none (a port past 65535, 1.2.3.256): a 400 naming the entry. */
function originOf(text: string, i: number): string {
  try {
    return new URL(text).origin;
  } catch {
    const field = `portal.allowed_parents[${i}]`;
    throw new InvalidRequestError(`${field}: '${text}' is not an origin (scheme://host[:port])`, { field });
  }
}

/** Allowed parents are kept as origins (lower-cased, deduplicated): frame-ancestors compares them so. */
function portalOf(input: ApplicationInput['portal'], current: PortalSettings): PortalSettings {
  if (input === undefined) return { allowedParents: [...current.allowedParents], theme: { ...current.theme } };
  const parents = input.allowed_parents === undefined ? current.allowedParents : [...new Set(input.allowed_parents.map(originOf))];
  const t = input.theme ?? {};
  return {
    allowedParents: parents,
    theme: {
      logoUrl: t.logo_url === undefined ? current.theme.logoUrl : t.logo_url,
      primaryColor: t.primary_color === undefined ? current.theme.primaryColor : t.primary_color,
      mode: t.mode ?? current.theme.mode,
    },
  };
}
