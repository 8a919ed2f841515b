/**
 * Application domain types (src/applications/service.ts, src/portal/).
 *
 * Glossary
 * - Application: one customer of the operator (`app_...`, or the operator's own
 *   `uid`). Its webhooks (endpoints) receive only the events published to it;
 *   a webhook without one is global and receives only events published
 *   without one.
 * - Portal token: a short-lived bearer token bound to one application that
 *   grants the consumer API (`/api/portal/...`) on that application's
 *   resources only, never the management API. Stored as its SHA-256.
 */

/** Bounds an application's customer lives within; null: none. */
export interface ApplicationLimits {
  /** Webhooks it may own at most. */
  maxEndpoints: number | null;
  /** Events per second published to it, for the whole cluster (a shared token bucket). */
  eventsPerSecond: number | null;
  /** Days its deliveries are kept (shorter than the server's retention only). */
  retentionDays: number | null;
}

export const NO_APPLICATION_LIMITS: Readonly<ApplicationLimits> = Object.freeze({ maxEndpoints: null, eventsPerSecond: null, retentionDays: null });

/** How the consumer portal looks for this application, and who may embed it. */
export interface PortalSettings {
  /** Origins (`https://host[:port]`) whose pages may frame the portal (CSP frame-ancestors); empty: none. */
  allowedParents: string[];
  theme: PortalTheme;
}

export interface PortalTheme {
  /** An https (or same-origin) image shown in the portal's header; null: the application's name alone. */
  logoUrl: string | null;
  /** `#rrggbb`; null: the portal's default. */
  primaryColor: string | null;
  mode: 'light' | 'dark' | 'auto';
}

export const DEFAULT_PORTAL_SETTINGS: Readonly<PortalSettings> = Object.freeze({
  allowedParents: [],
  theme: Object.freeze({ logoUrl: null, primaryColor: null, mode: 'auto' as const }),
});

export interface Application {
  id: string;
  /** The operator's own id for the customer; unique; null: none. */
  uid: string | null;
  name: string;
  metadata: Record<string, unknown>;
  limits: ApplicationLimits;
  portal: PortalSettings;
  /** The project whose `switchyard apply` made (or last took over) the application; null or absent: none (made by hand). */
  project?: string | null;
  createdAt: string;
  updatedAt: string;
}

export type NewApplication = Omit<Application, 'id' | 'createdAt' | 'updatedAt'>;
/** Fields present replace. */
export type ApplicationPatch = Partial<NewApplication>;

/** One portal token as stored (its hash is the key; the token itself is never kept). */
export interface PortalSession {
  applicationId: string;
  createdAt: string;
  expiresAt: string;
  /** A refresh never moves `expiresAt` past this. */
  maxExpiresAt: string;
  revokedAt: string | null;
}

/** Ids of applications start with this; anything else given where an application is named is looked up as a uid first. */
export const APPLICATION_ID_PREFIX = 'app_';

/**
 * What the webhook service and the event bus ask of applications (implemented
 * by ApplicationService), given to them as a dependency so neither imports it.
 */
export interface ApplicationScope {
  /** The application an id (`app_...`) or uid names; throws application_not_found naming `field`. */
  resolve(idOrUid: string, field?: string): Promise<Application>;
  /** Counts one event published to it; throws application_rate_limited past its events per second. */
  admitEvent(app: Application): Promise<void>;
}
