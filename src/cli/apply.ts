/**
 * `switchyard apply [-f switchyard.yaml] [--dry-run] [--prune]`: makes the
 * server match a project file. Prints the plan (stdout), then applies it with
 * a line per change (stderr). An invalid project (the file, a key, a function
 * the server refuses) applies nothing and exits 1 listing every problem. A
 * second run plans nothing. Secrets the server generated (`secret: generate`)
 * are shown this once. Before the plan, it says which environment variables
 * the file reads (only those `env_from` or `--env-from` allow); the files it
 * reads must lie in the project folder (or an `--allow-outside` folder).
 * `--dry-run` asks the server to check every write as apply would (its
 * `?dry_run=true`: function code compiled), so it refuses what apply refuses.
 * What a file's `project` applies is recorded as that project's; apply
 * refuses to change what another project (or no project) owns unless
 * `--take-over` (src/project/ownership.ts). `--only <function>` applies one
 * function of the file.
 */
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { planToJson } from '../project/index.js';
import { withClientOptions, type CliIO, type ClientFlags } from './context.js';
import { UsageError } from './errors.js';
import { asCliError, projectContext } from './project-context.js';
import { describeChange, envReadLine, renderPlan, runProject } from './project-run.js';
import { allowedFolders, withAllowOutsideOption, withEnvFromOption } from './project-flags.js';

interface ApplyFlags extends ClientFlags {
  file: string;
  dryRun?: boolean;
  prune?: boolean;
  envFrom?: string[];
  allowOutside?: string[];
  takeOver?: boolean;
  only?: string;
}

/** `-f` may name the file or the folder holding switchyard.yaml. */
export async function projectFile(cwd: string, given: string): Promise<string> {
  const path = resolve(cwd, given);
  const info = await stat(path).catch(() => null);
  if (info?.isDirectory()) {
    const inside = join(path, 'switchyard.yaml');
    if (!(await stat(inside).catch(() => null))) throw new UsageError(`no switchyard.yaml in ${given}`);
    return inside;
  }
  if (!info) throw new UsageError(`no project file at ${given} (write one, or run \`switchyard import\` or \`switchyard export\`)`);
  return path;
}

export function registerApply(program: Command, io: CliIO): void {
  const command = program
    .command('apply')
    .description('Make the server match a project file: print the plan, then apply it')
    .option('-f, --file <file>', 'the project file, or a folder holding switchyard.yaml', 'switchyard.yaml')
    .option('--dry-run', 'print the plan and have the server check it (code compiled, as apply does); change nothing')
    .option('--prune', 'also delete the functions, APIs, routes, webhooks and applications the file does not name (only those its project owns)')
    .option('--only <function>', 'apply only this function of the file (its code and settings); nothing else is written or deleted')
    .option('--take-over', "change functions, APIs, webhooks and applications another project (or no project) made: they become this file's project's");
  withClientOptions(withAllowOutsideOption(withEnvFromOption(command))).action(async (flags: ApplyFlags) => {
    const ctx = projectContext(io, flags);
    const { out } = ctx;
    const file = await projectFile(io.cwd, flags.file);
    const allowOutside = await allowedFolders(io.cwd, flags.allowOutside);
    const started = Date.now();
    try {
      const run = await runProject({
        file,
        env: io.env,
        envFrom: flags.envFrom,
        allowOutside,
        api: ctx.api,
        prune: flags.prune === true,
        dryRun: flags.dryRun === true,
        takeOver: flags.takeOver === true,
        only: flags.only,
        onPlan: (plan, envRead) => {
          if (out.json) return;
          const reads = envReadLine(envRead);
          if (reads) out.info(reads);
          out.line(renderPlan(plan));
        },
        onChange: (c) => {
          if (!out.json) out.info(`  ${describeChange(c)}`);
        },
      });
      if (out.json) {
        out.data({ ...planToJson(run.plan), env_read: run.envRead, applied: !flags.dryRun, generated_secrets: run.generatedSecrets });
        return;
      }
      if (flags.dryRun) {
        if (run.plan.changes.length > 0) out.info('Dry run: nothing was changed.');
        return;
      }
      if (run.applied.length > 0) out.info(`Applied ${run.applied.length} change${run.applied.length === 1 ? '' : 's'} in ${Date.now() - started} ms.`);
      for (const [name, secret] of Object.entries(run.generatedSecrets)) {
        out.info(`Webhook '${name}' signs with ${secret} (shown once: keep it for the receiver).`);
      }
    } catch (err) {
      throw asCliError(err, ctx);
    }
  });
}
