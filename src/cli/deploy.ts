/**
 * `switchyard deploy <file> [--name n] [--handler h] [--event-format f]
 * [--env K=V]...`: bundles one function file with the npm packages it imports
 * (bundle.ts), then creates the function or, when one has that name, updates
 * it. A progress line per step on stderr; a summary (name, version, size) on
 * stdout, or with --json one object. The project folder is the file's own:
 * the file (symlinks resolved) and every file it imports must lie in it or
 * in an `--allow-outside` folder (npm packages: see bundle.ts).
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, extname, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { bundleFunction } from './bundle.js';
import { clientContext, withClientOptions, type CliIO, type ClientFlags } from './context.js';
import { collectEnv } from './data.js';
import { CommandFailedError, UsageError } from './errors.js';
import { allowedFolders, withAllowOutsideOption } from './project-flags.js';
import type { EventFormat, FunctionInfo, FunctionPatch } from './server-api.js';
import { commandLine } from './words.js';

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** The server's limit on `code` (docs/api.md). */
const MAX_CODE_BYTES = 5 * 1024 * 1024;

interface DeployFlags extends ClientFlags {
  name?: string;
  handler?: string;
  eventFormat?: EventFormat;
  env?: Record<string, string>;
  allowOutside?: string[];
}

export function formatSize(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}

export function registerDeploy(program: Command, io: CliIO): void {
  const command = withClientOptions(
    program
      .command('deploy')
      .description('Bundle a function file with its npm packages and create or update the function')
      .argument('<file>', 'the function source (.js, .mjs, .cjs, .ts, .mts, .cts)')
      .option('--name <name>', "function name (default: the file's name without extension)")
      .option('--handler <export>', 'the export to call (`handler` or Lambda-style `file.handler`)')
      .addOption(new Option('--event-format <format>', 'the event the function receives').choices(['switchyard', 'aws-v1', 'aws-v2']))
      .option('-e, --env <KEY=VALUE>', 'an environment variable of the function (repeat for more; replaces all of them on update)', collectEnv),
  );
  withAllowOutsideOption(command).action(async (fileArg: string, flags: DeployFlags) => {
    const file = resolve(io.cwd, fileArg);
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) throw new UsageError(`${fileArg}: no such file`);
    const name = flags.name ?? basename(file, extname(file));
    if (!NAME.test(name)) {
      throw new UsageError(
        `'${name}' is not a function name (a letter, then up to 63 letters, digits, - or _): pass --name`,
      );
    }
    const allowOutside = await allowedFolders(io.cwd, flags.allowOutside);
    const { api, out } = clientContext(io, flags);
    const step = (text: string) => out.info(out.paintErr('dim', text));

    step(`bundling ${fileArg}...`);
    const bundle = await bundleFunction(file, dirname(file), { allowOutside });
    const pkgs = bundle.packages.length ? ` with ${bundle.packages.join(', ')}` : '';
    step(`bundled ${formatSize(bundle.bytes)}${pkgs}`);
    if (bundle.unresolved.length > 0) {
      out.info(out.paintErr('yellow', `warning: not found, so not bundled (a require of them throws MODULE_NOT_FOUND when it runs): ${bundle.unresolved.join(', ')}`));
    }
    if (bundle.bytes > MAX_CODE_BYTES) {
      throw new CommandFailedError(
        'bundle_too_large',
        `the bundle is ${formatSize(bundle.bytes)}, over the server's limit of ${formatSize(MAX_CODE_BYTES)} per function`,
      );
    }

    const existing = await api.getFunction(name);
    step(`${existing ? 'updating' : 'creating'} function ${name} at ${api.url}...`);
    const fields: FunctionPatch = {
      code: bundle.code,
      runtime: 'javascript',
      ...(flags.handler !== undefined ? { handler: flags.handler } : {}),
      ...(flags.eventFormat !== undefined ? { event_format: flags.eventFormat } : {}),
      ...(flags.env !== undefined ? { env: flags.env } : {}),
    };
    const fn: FunctionInfo = existing ? await api.updateFunction(name, fields) : await api.createFunction({ name, ...fields, code: bundle.code });
    const action = existing ? 'updated' : 'created';
    const unavailable = fn.unavailable_modules ?? [];
    if (unavailable.length > 0) out.info(out.paintErr('yellow', `warning: the code names modules that will throw if used: ${unavailable.join(', ')}`));
    if (out.json) {
      out.data({ name: fn.name, version: fn.version, action, bytes: bundle.bytes, packages: bundle.packages, code_sha256: fn.code_sha256, unavailable_modules: unavailable });
    } else {
      out.line(`${out.paint('green', action)} ${out.paint('bold', fn.name)} version ${fn.version} (${formatSize(bundle.bytes)}${pkgs})`);
      out.line(out.paint('dim', `try it: ${commandLine('invoke', fn.name)}`));
    }
  });
}
