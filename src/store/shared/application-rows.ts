/** Applications and portal tokens as both dialects store them (sqlite/applications.ts, postgres/applications.ts). */
import { DEFAULT_PORTAL_SETTINGS, NO_APPLICATION_LIMITS, type Application, type ApplicationLimits, type PortalSession, type PortalSettings } from '../../applications/types.js';

export interface ApplicationRow {
  id: string;
  uid: string | null;
  name: string;
  metadata_json: string;
  limits_json: string;
  portal_json: string;
  /** Null: made by hand, or before owners of applications were recorded (migration application_owners). */
  project: string | null;
  created_at: string | Date;
  updated_at: string | Date;
}

export interface PortalTokenRow {
  application_id: string;
  created_at: string | Date;
  expires_at: string | Date;
  max_expires_at: string | Date;
  revoked_at: string | Date | null;
}

const iso = (t: string | Date) => new Date(t).toISOString();

export function toApplication(r: ApplicationRow): Application {
  return {
    id: r.id,
    uid: r.uid,
    name: r.name,
    metadata: JSON.parse(r.metadata_json) as Record<string, unknown>,
    limits: { ...NO_APPLICATION_LIMITS, ...(JSON.parse(r.limits_json) as Partial<ApplicationLimits>) },
    portal: portalOf(r.portal_json),
    project: r.project ?? null,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

function portalOf(json: string): PortalSettings {
  const stored = JSON.parse(json) as Partial<PortalSettings>;
  return { allowedParents: stored.allowedParents ?? [], theme: { ...DEFAULT_PORTAL_SETTINGS.theme, ...stored.theme } };
}

export function toPortalSession(r: PortalTokenRow): PortalSession {
  return {
    applicationId: r.application_id,
    createdAt: iso(r.created_at),
    expiresAt: iso(r.expires_at),
    maxExpiresAt: iso(r.max_expires_at),
    revokedAt: r.revoked_at === null ? null : iso(r.revoked_at),
  };
}

/** The patch's fields that are present (absent ones stay as they are). */
export function definedOf<T extends object>(patch: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
