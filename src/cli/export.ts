/**
 * `switchyard export [-o switchyard.yaml] [--force]`: writes the server's
 * functions, APIs, routes and webhooks as a project (the project file plus
 * one file per function, beside it), so that `switchyard apply` of it plans
 * nothing. Values the server never shows become `${env:NAME}` placeholders
 * named after their function or webhook (`ORDERS_API__DB_URL`), listed, and
 * allowed under the file's `env_from`. Existing files are kept unless --force.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { exportProject } from '../project/index.js';
import { withClientOptions, type CliIO, type ClientFlags } from './context.js';
import { UsageError } from './errors.js';
import { asCliError, projectContext } from './project-context.js';
import { terminalLine } from './terminal-text.js';

interface ExportFlags extends ClientFlags {
  output: string;
  force?: boolean;
}

/** Writes `files` (relative paths) under `dir`; refuses to replace any unless `force`, before writing one. */
export async function writeProjectFiles(dir: string, files: Record<string, string>, force: boolean, cwd: string): Promise<string[]> {
  const paths = Object.keys(files).map((rel) => resolve(dir, rel));
  if (!force) {
    const existing = [];
    for (const p of paths) if (await stat(p).catch(() => null)) existing.push(relative(cwd, p) || p);
    if (existing.length) throw new UsageError(`${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''}: pass --force to replace, or -o another place`);
  }
  for (const [rel, text] of Object.entries(files)) {
    const p = resolve(dir, rel);
    await mkdir(dirname(p), { recursive: true });
    await writeFile(p, text);
  }
  return paths.map((p) => relative(cwd, p) || p);
}

export function registerExport(program: Command, io: CliIO): void {
  withClientOptions(
    program
      .command('export')
      .description("Write the server's functions, APIs and webhooks as a project (switchyard.yaml + function files)")
      .option('-o, --output <file>', 'the project file to write; function files go to functions/ beside it', 'switchyard.yaml')
      .option('--force', 'replace files that exist'),
  ).action(async (flags: ExportFlags) => {
    const ctx = projectContext(io, flags);
    const { out } = ctx;
    const target = resolve(io.cwd, flags.output);
    let exported;
    try {
      exported = await exportProject(ctx.api);
    } catch (err) {
      throw asCliError(err, ctx);
    }
    const files = { ...exported.files };
    const projectText = files['switchyard.yaml'];
    delete files['switchyard.yaml'];
    files[relative(dirname(target), target)] = projectText;
    const written = await writeProjectFiles(dirname(target), files, flags.force === true, io.cwd);
    if (out.json) {
      out.data({ files: written, env_vars: exported.env_vars, notes: exported.notes });
      return;
    }
    out.line(`Wrote ${written.length} file${written.length === 1 ? '' : 's'}:`);
    for (const f of written) out.line(`  ${f}`);
    if (exported.env_vars.length) {
      out.line('Values the server never shows are placeholders, one variable per function or webhook, listed under env_from in the file.');
      out.line('Set these before applying it elsewhere:');
      out.table(['variable', 'for'], exported.env_vars.map((v) => [v.name, terminalLine(v.for)]));
    }
    for (const note of exported.notes) out.info(`note: ${terminalLine(note)}`);
  });
}
