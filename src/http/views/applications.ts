/** Applications and portal access as the API answers them (typed by src/schema/applications.ts). */
import type { Application, PortalSession } from '../../applications/types.js';
import type { ApplicationView, PortalAccessView, PortalSessionView } from '../../schema/applications.js';

export function applicationView(a: Application): ApplicationView {
  return {
    id: a.id,
    uid: a.uid,
    name: a.name,
    metadata: a.metadata,
    limits: { max_endpoints: a.limits.maxEndpoints, events_per_second: a.limits.eventsPerSecond, retention_days: a.limits.retentionDays },
    portal: {
      allowed_parents: a.portal.allowedParents,
      theme: { logo_url: a.portal.theme.logoUrl, primary_color: a.portal.theme.primaryColor, mode: a.portal.theme.mode },
    },
    project: a.project ?? null,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}

/** The token travels in the URL's fragment only: browsers send neither it to the server nor it in a Referer. */
export function portalAccessView(token: string, session: PortalSession, origin: string): PortalAccessView {
  return {
    token,
    url: `${origin}/portal/${encodeURIComponent(session.applicationId)}#token=${encodeURIComponent(token)}`,
    expires_at: session.expiresAt,
    max_expires_at: session.maxExpiresAt,
    application_id: session.applicationId,
  };
}

export function portalSessionView(application: Application, session: PortalSession): PortalSessionView {
  const { theme } = application.portal;
  return {
    application_id: application.id,
    application_name: application.name,
    expires_at: session.expiresAt,
    max_expires_at: session.maxExpiresAt,
    theme: { logo_url: theme.logoUrl, primary_color: theme.primaryColor, mode: theme.mode },
  };
}
