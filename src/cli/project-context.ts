/**
 * What the project commands (apply, export, import, dev) share: the project
 * API of a server chosen by the usual flags, with its failures turned into
 * the CLI's errors (exit 3 when nothing answers, the 401 hint, the server's
 * code and message), and the reader that gives the loader each function's
 * code: the file as written when it imports nothing to bundle, else the
 * esbuild bundle `switchyard deploy` makes (npm packages from the project's
 * node_modules), so a project's functions may use packages too.
 */
import { readFile } from 'node:fs/promises';
import { bundleFunction } from './bundle.js';
import { outputFor, serverChoice, type CliIO, type ClientFlags } from './context.js';
import { CliError, ServerAuthError, ServerError, ServerUnreachableError, type CliErrorCode } from './errors.js';
import type { Output } from './output.js';
import { createHttpProjectApi, ProjectApiError, ProjectError, formatProblem, type ProjectApi } from '../project/index.js';

export interface ProjectContext {
  api: ProjectApi;
  out: Output;
  url: string;
  adminKey: string | null;
}

/** The project API of the server the flags name (dev passes the URL of the server it started). */
export function projectContext(io: CliIO, flags: ClientFlags): ProjectContext {
  const { url, adminKey } = serverChoice(io, flags);
  const base = url.replace(/\/+$/, '');
  return { api: createHttpProjectApi({ baseUrl: base, adminKey }), out: outputFor(io, flags), url: base, adminKey };
}

/** A project's problems, one per line, as the loader and the server's checks report them. */
export class InvalidProjectError extends CliError {
  readonly exitCode = 1;
  readonly code: CliErrorCode = 'invalid_project';
  constructor(readonly problems: ProjectError['problems']) {
    // A problem's own further lines (a bundle's list) are indented under it.
    const lines = problems.map((p) => formatProblem(p).replace(/\n\s*/g, '\n      '));
    super(`the project is invalid; nothing was applied:\n  ${lines.join('\n  ')}`);
  }
}

/** Turns what the project library throws into the CLI's errors; anything else passes through. */
export function asCliError(err: unknown, ctx: { url: string; adminKey: string | null }): unknown {
  if (err instanceof ProjectError) return new InvalidProjectError(err.problems);
  if (!(err instanceof ProjectApiError)) return err;
  if (err.status === 0) return new ServerUnreachableError(ctx.url, err.message.replace(/^cannot reach \S+ \((.*)\)$/, '$1'));
  if (err.status === 401) return new ServerAuthError(ctx.url, ctx.adminKey !== null);
  return new ServerError(err.status, err.code, err.message, err.details);
}

/**
 * The loader's reader of function files: the source itself, or its bundle
 * when it imports files or packages. Every file of the bundle must lie in
 * `root` or an allowed folder (bundle.ts).
 */
export function functionReader(root: string, allowOutside: readonly string[] = []): (file: string) => Promise<string> {
  return async (file) => {
    const source = await readFile(file, 'utf8');
    let bundle;
    try {
      bundle = await bundleFunction(file, root, { allowOutside });
    } catch (err) {
      // Refusals (fs, native code, a file outside the project) and packages not installed name the file and the fix;
      // a syntax error the server reports better itself.
      if (err instanceof CliError && (err.code === 'outside_project' || err.code === 'packages_not_installed' || /needs the Node module|native code/.test(err.message))) {
        throw new Error(err.message);
      }
      return source;
    }
    return bundle.inputs > 1 ? bundle.code : source;
  };
}
