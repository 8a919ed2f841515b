/**
 * `applications:` of a project file: one entry per customer, by name, in the
 * management API's own (snake_case) form. Identity is the `uid` when the file
 * gives one (the operator's stable id, so a renamed customer updates rather
 * than duplicates), else the name; the `app_...` id is the server's and never
 * in the file. An application records the project whose apply made it
 * (`project`, as webhooks do): apply refuses to change another project's
 * (ownership.ts), and `--prune` deletes the file's project's own that the
 * file leaves out, never another project's or one no project owns (most are
 * made per customer by hand or by the operator's code).
 */
import { canonicalJson } from '../canonical-json.js';
import type { FileApplication, ProjectApplication, RemoteApplication } from './types.js';

export type { FileApplication, ProjectApplication, RemoteApplication };

/** The body of POST /api/applications (PATCH takes the same fields, each optional); `project` only when set, so a server older than owners takes a file without one. */
export type ApplicationBody = ProjectApplication & { project?: string | null };

const APPLICATION_FIELDS = ['name', 'uid', 'metadata', 'limits', 'portal'] as const;

export function toProjectApplication(name: string, raw: FileApplication): ProjectApplication {
  return {
    name,
    uid: raw.uid ?? null,
    metadata: raw.metadata ?? {},
    limits: {
      max_endpoints: raw.limits?.max_endpoints ?? null,
      events_per_second: raw.limits?.events_per_second ?? null,
      retention_days: raw.limits?.retention_days ?? null,
    },
    portal: {
      allowed_parents: raw.portal?.allowed_parents ?? [],
      theme: {
        logo_url: raw.portal?.theme?.logo_url ?? null,
        primary_color: raw.portal?.theme?.primary_color ?? null,
        mode: raw.portal?.theme?.mode ?? 'auto',
      },
    },
  };
}

/** The server's application the file's one is: by uid when it has one, else by name (among those without a uid). */
export function matchApplication(app: ProjectApplication, current: RemoteApplication[]): RemoteApplication | undefined {
  if (app.uid !== null) return current.find((a) => a.uid === app.uid);
  return current.find((a) => a.name === app.name && a.uid === null) ?? current.find((a) => a.name === app.name);
}

/** The fields that differ, in the API's order, then `project` when the file's project is not the owner (a server older than owners answers none). */
export function applicationChanges(app: ProjectApplication, current: RemoteApplication, project: string | null = null): string[] {
  const fields: string[] = APPLICATION_FIELDS.filter((k) => canonicalJson(app[k]) !== canonicalJson(current[k]));
  if ((current.project ?? null) !== project) fields.push('project');
  return fields;
}

/** The fields to send: all on a create (the project when the file names one), the changed ones on an update (PATCH). */
export function applicationBody(app: ProjectApplication, project: string | null, fields?: string[]): Partial<ApplicationBody> {
  if (!fields) return project === null ? { ...app } : { ...app, project };
  const body: Partial<ApplicationBody> = Object.fromEntries(APPLICATION_FIELDS.filter((k) => fields.includes(k)).map((k) => [k, app[k]]));
  if (fields.includes('project')) body.project = project;
  return body;
}

/** An application as export writes it: the defaults left out. */
export function applicationToFile(a: RemoteApplication): FileApplication {
  const entry: FileApplication = {};
  if (a.uid !== null) entry.uid = a.uid;
  if (Object.keys(a.metadata).length > 0) entry.metadata = a.metadata;
  const limits = Object.fromEntries(Object.entries(a.limits).filter(([, v]) => v !== null));
  if (Object.keys(limits).length > 0) entry.limits = limits;
  const theme = Object.fromEntries(Object.entries(a.portal.theme).filter(([k, v]) => v !== null && !(k === 'mode' && v === 'auto')));
  const portal: NonNullable<FileApplication['portal']> = {};
  if (a.portal.allowed_parents.length > 0) portal.allowed_parents = a.portal.allowed_parents;
  if (Object.keys(theme).length > 0) portal.theme = theme;
  if (Object.keys(portal).length > 0) entry.portal = portal;
  return entry;
}

/** What a webhook's `application:` names: an application of the file (and the server's one it is, once made), or one only on the server. */
export interface ApplicationRef {
  app?: ProjectApplication;
  remote?: RemoteApplication;
}

/** Looks up `application: <uid or name>`: the file's applications first (uid, then name), then the server's. */
export function applicationResolver(file: ProjectApplication[], server: RemoteApplication[]): (ref: string) => ApplicationRef | undefined {
  return (ref) => {
    const app = file.find((a) => a.uid === ref) ?? file.find((a) => a.name === ref);
    if (app) return { app, remote: matchApplication(app, server) };
    const remote = server.find((a) => a.uid === ref) ?? server.find((a) => a.name === ref) ?? server.find((a) => a.id === ref);
    return remote ? { remote } : undefined;
  };
}

/** What `application:` may name, for a did-you-mean. */
export function applicationRefNames(file: ProjectApplication[], server: RemoteApplication[]): string[] {
  return [...new Set([...file, ...server].flatMap((a) => (a.uid === null ? [a.name] : [a.uid, a.name])))];
}

/** How an export names a webhook's application: its uid (stable), else its name. */
export const applicationRefOf = (a: Pick<RemoteApplication, 'uid' | 'name'>): string => a.uid ?? a.name;
