/**
 * Load, plan and apply one project against a server: the core of `switchyard
 * apply`, also run by `switchyard dev` on every save. Kept apart from the
 * verbs so both print the same plan and report the same errors.
 */
import { dirname, resolve } from 'node:path';
import { applyPlan, checkPlan, loadProject, planProject, ProjectError, readServerState, renderPlan, type Plan, type PlanChange, type Project, type ProjectApi, type ProjectApiDef } from '../project/index.js';
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
  /** `--take-over`: change objects another project (or none) owns; they become this file's project's. */
  takeOver?: boolean;
  /** `--only <function>`: plan and apply that function of the file, nothing else. */
  only?: string;
  /**
   * Settings every API of the file takes when the file leaves them out: `switchyard dev`
   * shows a failing function's error to the caller (expose_errors: true); apply uses the
   * server's defaults.
   */
  apiDefaults?: ApiDefaults;
  /** Narrows the plan before it is shown and applied (dev keeps only some deletions). */
  select?(plan: Plan): Plan;
  /** Called with the plan, and the environment variables the file read, before anything is written. */
  onPlan?(plan: Plan, envRead: string[]): void;
  onChange?(change: PlanChange): void;
}

/** The API settings of the file a run may fill in where the file leaves them out (null in the loaded project). */
export type ApiDefaults = Partial<{ [K in 'error_format' | 'expose_errors']: NonNullable<ProjectApiDef[K]> }>;

/** The project with `defaults` filled in where an API leaves them out; what the file sets stays. */
export function withApiDefaults(project: Project, defaults: ApiDefaults): Project {
  return {
    ...project,
    apis: project.apis.map((api) => ({
      ...api,
      error_format: api.error_format ?? defaults.error_format ?? null,
      expose_errors: api.expose_errors ?? defaults.expose_errors ?? null,
    })),
  };
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
  const project = opts.apiDefaults ? withApiDefaults(loaded.project, opts.apiDefaults) : loaded.project;
  const state = await readServerState(opts.api, project);
  const full = planProject(project, state, { prune: opts.prune, file: shown, takeOver: opts.takeOver, only: opts.only, deferRefusals: true });
  const plan = opts.select ? opts.select(full) : full;
  const envRead = loaded.env_used;
  if (full.refused) {
    // Every problem in one round: the objects it may not change, and what the server finds in the rest.
    const found = await checkPlan(plan, opts.api, { file: shown }).then(
      () => [],
      (err: unknown) => {
        if (err instanceof ProjectError) return err.problems;
        throw err;
      },
    );
    throw new ProjectError([...full.refused, ...found]);
  }
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
