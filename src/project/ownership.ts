/**
 * Who may change what: every function, API, webhook and application records the project
 * whose apply made it (`project`; null: made by hand, or before projects
 * were recorded). A plan that would change or replace an object another
 * project owns (or one no project owns, from a file that names a project) is
 * refused, naming the object and its owner, unless the apply takes it over;
 * prune deletes only what the file's own project owns. Without this, the
 * second of two imported projects that share a name silently replaced the
 * first's code.
 */
import { matchApplication } from './applications.js';
import type { ServerState } from './state.js';
import type { ProjectApplication, ProjectProblem } from './types.js';

/** What of a plan's change (plan.ts PlanChange) says what it writes to. */
interface OwnedChange {
  action: 'create' | 'update' | 'delete';
  kind: 'function' | 'api' | 'route' | 'webhook' | 'usage_plan' | 'event_type' | 'application';
  name: string;
  api?: string;
}

/** The owner as the server answers it (a server older than owners answers none). */
const ownerOf = (item: { project?: string | null } | undefined): string | null => item?.project ?? null;

const whose = (owner: string | null) => (owner === null ? 'no project (made by hand or before owners were recorded)' : `project '${owner}'`);

/** Owners of what exists, by kind and name (an API's routes are the API's). */
export class Owners {
  private readonly byKey = new Map<string, string | null>();

  /** `applications`: the file's, as an application is the server's one it matches (by uid, else name), not the one of its name. */
  constructor(current: ServerState, applications: ProjectApplication[] = []) {
    for (const f of current.functions) this.byKey.set(`function ${f.name}`, ownerOf(f));
    for (const a of current.apis) this.byKey.set(`api ${a.name}`, ownerOf(a));
    for (const w of current.webhooks) this.byKey.set(`webhook ${w.name}`, ownerOf(w));
    for (const app of applications) {
      const existing = matchApplication(app, current.applications ?? []);
      if (existing) this.byKey.set(`application ${app.name}`, ownerOf(existing));
    }
  }

  /** The owner of what a change writes to, or undefined when it writes nothing that exists (a create, a usage plan). */
  owner(change: OwnedChange): string | null | undefined {
    // Usage plans have no owner; an event type's is read by plan.ts (prune deletes only the project's own).
    if (change.kind === 'usage_plan' || change.kind === 'event_type') return undefined;
    if (change.kind === 'route') return this.byKey.get(`api ${change.api}`);
    if (change.action === 'create') return undefined;
    return this.byKey.get(`${change.kind} ${change.name}`);
  }
}

/**
 * One problem per object of another owner that the changes would write to
 * (an API once, however many of its routes change).
 */
export function ownershipProblems(changes: OwnedChange[], owners: Owners, project: string | null, file: string): ProjectProblem[] {
  const problems: ProjectProblem[] = [];
  const said = new Set<string>();
  for (const change of changes) {
    const owner = owners.owner(change);
    if (owner === undefined || owner === project) continue;
    const kind = change.kind === 'route' ? 'api' : change.kind;
    const name = change.kind === 'route' ? change.api! : change.name;
    if (said.has(`${kind} ${name}`)) continue;
    said.add(`${kind} ${name}`);
    const section = { function: 'functions', api: 'apis', webhook: 'webhooks', application: 'applications' }[kind as 'function' | 'api' | 'webhook' | 'application'];
    const mine = project === null ? 'this file names no project' : `this file is project '${project}'`;
    problems.push({
      file,
      path: `${section}.${name}`,
      message: `${kind === 'api' ? 'API' : kind} '${name}' belongs to ${whose(owner)}, and ${mine}: pass --take-over to take it over, or give it another name here`,
    });
  }
  return problems;
}
