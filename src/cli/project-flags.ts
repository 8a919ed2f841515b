/**
 * The two flags with which the operator, not the project, widens what a
 * project may reach: `--env-from NAME[,NAME...]` (variables `${env:}` may
 * read, besides the file's own `env_from`) and `--allow-outside <folder>`
 * (a folder outside the project its files may come from). Both repeatable.
 * A `SWITCHYARD_` variable is refused here as the loader refuses it in a file.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { isServerVariable, SERVER_VARIABLE_REFUSAL } from '../project/index.js';
import { UsageError } from './errors.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Commander collector for `--env-from A,B --env-from C`. */
export function collectEnvFrom(value: string, previous: string[] = []): string[] {
  const names = value.split(',').map((n) => n.trim()).filter(Boolean);
  if (names.length === 0) throw new UsageError('--env-from takes variable names, separated by commas');
  for (const name of names) {
    if (!ENV_NAME.test(name)) throw new UsageError(`--env-from: "${name}" is not an environment variable name`);
    if (isServerVariable(name)) throw new UsageError(`--env-from ${name} is refused: ${SERVER_VARIABLE_REFUSAL}`);
  }
  return [...previous, ...names];
}

/** Commander collector for a repeated `--allow-outside <folder>` (resolved later, against the CLI's folder). */
export function collectFolder(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function withEnvFromOption(cmd: Command): Command {
  return cmd.option(
    '--env-from <names>',
    'environment variables ${env:NAME} may read, besides the env_from list of the file (comma-separated, repeatable; never SWITCHYARD_*)',
    collectEnvFrom,
  );
}

export function withAllowOutsideOption(cmd: Command): Command {
  return cmd.option(
    '--allow-outside <folder>',
    'a folder outside the project that its files may come from (repeatable); symlinks are followed before the check',
    collectFolder,
  );
}

/** `--allow-outside` folders as absolute paths; each must be a folder that exists. */
export async function allowedFolders(cwd: string, given: string[] | undefined): Promise<string[]> {
  const out: string[] = [];
  for (const folder of given ?? []) {
    const path = resolve(cwd, folder);
    const info = await stat(path).catch(() => null);
    if (!info?.isDirectory()) throw new UsageError(`--allow-outside ${folder}: no such folder`);
    out.push(path);
  }
  return out;
}
