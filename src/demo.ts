/**
 * `switchyard --demo`: the example project (examples/switchyard.yaml) through
 * the project core and the running server's own management API (plain HTTP,
 * so the demo exercises exactly what users call). Unlike `switchyard apply`
 * it only creates: functions, APIs (with their routes) and webhooks the
 * server lacks by name; what exists is never updated nor deleted, so a
 * restart with --demo keeps whatever the user edited. A demo function that
 * cannot be deployed is a ConfigError naming the function, its file and line.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from './errors.js';
import type { Logger } from './types.js';
import {
  applyPlan,
  createHttpProjectApi,
  formatProblem,
  loadProject,
  planProject,
  ProjectApiError,
  ProjectError,
  readServerState,
  type LoadedProject,
  type Plan,
  type ProjectApi,
  type ProjectProblem,
} from './project/index.js';

/** The demo's project file, in the examples folder. */
export const DEMO_PROJECT_FILE = 'switchyard.yaml';

export interface LoadDemoOptions {
  /** The running server, e.g. `http://127.0.0.1:3000` (no trailing slash needed). */
  baseUrl: string;
  adminKey: string | null;
  /** Folder holding switchyard.yaml and the functions it names; see defaultExamplesDir(). */
  examplesDir: string;
  log: Pick<Logger, 'info'>;
}

export interface DemoResult {
  apis: Array<{ name: string; id: string; invokeUrl: string }>;
  webhooks: Array<{ name: string; id: string; cron: string | null }>;
}

/** A demo step the server refused; carries the management API's answer. */
export class DemoLoadError extends Error {
  readonly code = 'demo_load_failed';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'DemoLoadError';
  }
}

/**
 * The repository's examples/ folder. Compiled, this module is dist/demo.js, so
 * `../examples/` is the repository's (or the installed package's) examples/;
 * under vitest it is src/demo.ts, which resolves to the same folder.
 */
export function defaultExamplesDir(): string {
  return fileURLToPath(new URL('../examples/', import.meta.url));
}

/** A name another node created between the plan and the write: planned again, this many times. */
const CONFLICT_RETRIES = 3;

export async function loadDemo(opts: LoadDemoOptions): Promise<DemoResult> {
  const api = createHttpProjectApi({ baseUrl: opts.baseUrl, adminKey: opts.adminKey });
  const file = path.join(opts.examplesDir, DEMO_PROJECT_FILE);
  let loaded: LoadedProject;
  try {
    loaded = await loadProject(file, { env: process.env });
  } catch (err) {
    throw demoError(err, file);
  }

  for (let attempt = 1; ; attempt++) {
    try {
      const plan = createsOnly(planProject(loaded.project, await readServerState(api), { file: shown(file) }));
      logKept(plan, opts.log);
      await applyPlan(plan, api, {
        file: shown(file),
        onChange: (c) => {
          if (c.kind !== 'route') opts.log.info({ [c.kind]: c.name }, `demo ${c.kind === 'api' ? 'API' : c.kind} created`);
        },
      });
      break;
    } catch (err) {
      // Another node loading the demo created it in the meantime: theirs stays.
      if (err instanceof ProjectApiError && err.status === 409 && attempt < CONFLICT_RETRIES) continue;
      throw demoError(err, file, loaded, opts.examplesDir);
    }
  }
  return result(api, loaded);
}

/**
 * The plan's creations only: what the server lacks by name, and the routes of
 * the APIs created here. Updates and deletions (a user's edits) are dropped.
 */
export function createsOnly(plan: Plan): Plan {
  const newApis = new Set(plan.changes.filter((c) => c.kind === 'api' && c.action === 'create').map((c) => c.name));
  const changes = plan.changes.filter((c) => c.action === 'create' && (c.kind !== 'route' || newApis.has(c.api ?? '')));
  return { ...plan, prune: false, changes };
}

function logKept(plan: Plan, log: LoadDemoOptions['log']): void {
  const created = new Set(plan.changes.map((c) => `${c.kind} ${c.name}`));
  const { desired } = plan;
  for (const fn of desired.functions) {
    if (!created.has(`function ${fn.name}`)) log.info({ function: fn.name }, 'demo function already present, left as it is');
  }
  for (const a of desired.apis) if (!created.has(`api ${a.name}`)) log.info({ api: a.name }, 'demo API already present, left as it is');
  for (const w of desired.webhooks) {
    if (!created.has(`webhook ${w.name}`)) log.info({ webhook: w.name }, 'demo webhook already present, left as it is');
  }
}

/** The demo's APIs and webhooks as the server holds them now, in the file's order. */
async function result(api: ProjectApi, loaded: LoadedProject): Promise<DemoResult> {
  const [apis, webhooks] = await Promise.all([api.listApis(), api.listWebhooks()]);
  const out: DemoResult = { apis: [], webhooks: [] };
  for (const wanted of loaded.project.apis) {
    const found = apis.find((a) => a.name === wanted.name);
    if (found) out.apis.push({ name: found.name, id: found.id, invokeUrl: found.invokeUrl });
  }
  for (const wanted of loaded.project.webhooks) {
    const found = webhooks.find((w) => w.name === wanted.name);
    if (found) out.webhooks.push({ name: found.name, id: found.id, cron: found.cron });
  }
  return out;
}

/** One line for the start-up failure: a refused function names its file and line; the rest names the project file. */
function demoError(err: unknown, file: string, loaded?: LoadedProject, examplesDir?: string): Error {
  if (err instanceof ProjectError) {
    const refused = loaded && examplesDir ? refusedFunction(err.problems, loaded, examplesDir) : undefined;
    if (refused) return refused;
    const problems = err.problems.map((p) => formatProblem({ ...p, file: shown(p.file) })).join('; ');
    return new ConfigError(`the demo project ${shown(file)} cannot be loaded: ${problems}. Fix it, or start without --demo`);
  }
  if (err instanceof ProjectApiError) return new DemoLoadError(`demo: ${err.message}`, err.status);
  return err as Error;
}

/** The first problem that names a demo function: the function, the file and the line, and what to do about it. */
function refusedFunction(problems: ProjectProblem[], loaded: LoadedProject, examplesDir: string): ConfigError | undefined {
  for (const problem of problems) {
    const fn = loaded.project.functions.find((f) => problem.path === `functions.${f.name}` || problem.path.startsWith(`functions.${f.name}.`));
    if (!fn) continue;
    const position = problem.code_position;
    const where = position ? `, line ${position.line}${position.column ? ` column ${position.column}` : ''}` : '';
    // The server's message names the field and the position, which this line gives in its own words.
    const reason = problem.message.replace(/^code: /, '').replace(/ \((?:[^(),]+, )?line \d+(, column \d+)?\)$/, '');
    return new ConfigError(
      `the demo function '${fn.name}' in ${shown(path.join(examplesDir, fn.file))} cannot be deployed${where}: ${reason}. Fix the file, or start without --demo`,
    );
  }
  return undefined;
}

/** A file under the working directory as a relative path (shorter to read), else as it is. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}
