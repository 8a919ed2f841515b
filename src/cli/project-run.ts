/**
 * Load, plan and apply one project against a server: the core of `switchyard
 * apply`, also run by `switchyard dev` on every save. Kept apart from the
 * verbs so both print the same plan and report the same errors.
 */
import { dirname, resolve } from 'node:path';
import { applyPlan, checkPlan, loadProject, planProject, readServerState, renderPlan, type Plan, type PlanChange, type ProjectApi } from '../project/index.js';
import { functionReader } from './project-context.js';
import { shownPath } from './shown-path.js';

export interface RunProjectOptions {
  file: string;
  env: Record<string, string | undefined>;
  /** Variables `${env:}` may read besides the file's `env_from` (`--env-from`). */
  envFrom?: readonly string[];
  /** Folders outside the project its files may come from (`--allow-outside`, absolute). */
  allowOutside?: readonly string[];
  api: ProjectApi;
  prune: boolean;
  dryRun: boolean;
  /** Narrows the plan before it is shown and applied (dev keeps only some deletions). */
  select?(plan: Plan): Plan;
  /** Called with the plan, and the environment variables the file read, before anything is written. */
  onPlan?(plan: Plan, envRead: string[]): void;
  onChange?(change: PlanChange): void;
}

export interface ProjectRun {
  plan: Plan;
  /** The environment variables the file's `${env:}` values read. */
  envRead: string[];
  applied: PlanChange[];
  generatedSecrets: Record<string, string>;
}

export async function runProject(opts: RunProjectOptions): Promise<ProjectRun> {
  const file = resolve(opts.file);
  const shown = shownPath(process.cwd(), file);
  const root = dirname(file);
  const allowOutside = opts.allowOutside ?? [];
  const loaded = await loadProject(file, {
    env: opts.env,
    envFrom: opts.envFrom,
    root,
    allowOutside,
    readFile: functionReader(root, allowOutside),
  });
  const state = await readServerState(opts.api, loaded.project);
  const full = planProject(loaded.project, state, { prune: opts.prune, file: shown });
  const plan = opts.select ? opts.select(full) : full;
  const envRead = loaded.env_used;
  opts.onPlan?.(plan, envRead);
  if (plan.changes.length === 0) return { plan, envRead, applied: [], generatedSecrets: {} };
  if (opts.dryRun) {
    // The server's own checks of every write, code compiled included: a dry run passes only what apply would.
    await checkPlan(plan, opts.api, { file: shown });
    return { plan, envRead, applied: [], generatedSecrets: {} };
  }
  const result = await applyPlan(plan, opts.api, { file: shown, onChange: opts.onChange });
  return { plan, envRead, applied: result.applied, generatedSecrets: result.generated_secrets };
}

/** The line apply and dev print before applying: which variables of the operator's environment the project reads. */
export function envReadLine(names: string[]): string | null {
  return names.length > 0 ? `Reads the environment variables ${names.join(', ')} (allowed by env_from or --env-from).` : null;
}

export { shownPath };

/** One applied change as a past-tense line (`created function hello`). */
export function describeChange(c: PlanChange): string {
  const verb = { create: 'created', update: 'updated', delete: 'deleted' }[c.action];
  const what = c.kind === 'route' ? `route ${c.name} (api ${c.api})` : `${c.kind} ${c.name}`;
  return `${verb} ${what}${c.fields?.length ? ` (${c.fields.join(', ')})` : ''}`;
}

export { renderPlan };
