/**
 * Switchyard projects as a library, for the `switchyard` CLI: load and check
 * a switchyard.yaml, plan and apply it against a server, export a server as a
 * project, import serverless.yml and SAM templates. See docs/cli.md, "The
 * project file".
 */
export { loadProject, parseProject, keyPath, PROJECT_SCHEMA_URL, type LoadOptions, type LoadedProject, type EnvMap } from './load.js';
export { readServerState, type ServerState } from './state.js';
export {
  planProject,
  renderPlan,
  planToJson,
  codeSha256,
  type Plan,
  type PlanChange,
  type PlanOptions,
  type ChangeAction,
  type ChangeKind,
} from './plan.js';
export { applyPlan, checkPlan, type ApplyOptions, type ApplyResult } from './apply.js';
export { exportProject, type ExportedProject } from './export.js';
export { importServerless, importServerlessValue } from './import-serverless.js';
export { importSam, importSamValue } from './import-sam.js';
export { parseCfnYaml } from './cfn-yaml.js';
export type { ImportOptions, ImportResult, MissingFile, UnresolvedValue } from './import-common.js';
export { notCarriedNames } from './import-report.js';
export { prefixed, projectPrefix } from './import-names.js';
export { createConfinement, inNodeModules, isUnder, outsideMessage, realOrResolved, type Confinement, type PathVerdict } from './confine.js';
export { isServerVariable, SERVER_VARIABLE_REFUSAL } from './env-names.js';
export { createHttpProjectApi, type HttpProjectApiOptions } from './http-api.js';
export type {
  ProjectApi,
  RemoteFunction,
  RemoteApi,
  RemoteRoute,
  RemoteWebhook,
  RemoteSchedule,
  RemoteAsync,
  RemoteDestination,
  FunctionBody,
  FunctionPatchBody,
  ApiBody,
  WebhookBody,
  RemoteUsagePlan,
  UsagePlanBody,
  DryRunResult,
} from './api.js';
export {
  ProjectError,
  ProjectApiError,
  OutsideProjectError,
  formatProblem,
  type Project,
  type ProjectDocument,
  type ProjectFunction,
  type ProjectSchedule,
  type ProjectAsync,
  type ProjectDestination,
  type ProjectApiDef,
  type ProjectRoute,
  type ProjectWebhook,
  type ProjectUsagePlan,
  type ProjectProblem,
} from './types.js';
export { PROJECT_DEFAULTS } from './defaults.js';

import { loadProject, type LoadOptions } from './load.js';
import { readServerState } from './state.js';
import { planProject, type Plan } from './plan.js';
import type { ProjectApi } from './api.js';

/** Load the file, read the server, plan: what `switchyard apply --dry-run` prints. */
export async function planFromFile(
  file: string,
  api: ProjectApi,
  options: LoadOptions & { prune?: boolean } = {},
): Promise<Plan> {
  const loaded = await loadProject(file, options);
  const state = await readServerState(api, loaded.project);
  return planProject(loaded.project, state, { prune: options.prune, file });
}
