/**
 * What every command receives, and the options shared by the commands that
 * call a server: `--url` / SWITCHYARD_URL, `--admin-key` /
 * SWITCHYARD_ADMIN_KEY, `--json`, `--no-color`. The environment arrives as a
 * value from the entry point (only config.ts and the entry read process.env),
 * and the default URL is the server's own default host and port, taken from
 * the option table of config.ts so the two cannot drift.
 */
import { Option, type Command } from 'commander';
import { OPTIONS } from '../config.js';
import { UsageError } from './errors.js';
import { createOutput, type Output, type Stream } from './output.js';
import { createServerApi, type ServerApi } from './server-api.js';

export interface CliIO {
  stdout: Stream;
  stderr: Stream;
  env: Record<string, string | undefined>;
  /** The folder relative paths are read from. */
  cwd: string;
  version: string;
}

const defaultOf = (env: string) => OPTIONS.find((o) => o.env === env)?.default ?? '';
export const DEFAULT_URL = `http://${defaultOf('HOST')}:${defaultOf('PORT')}`;

export interface ClientFlags {
  url?: string;
  adminKey?: string;
  json?: boolean;
  color?: boolean;
}

/** Adds the shared options to a command that talks to a server. */
export function withClientOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--url <url>', `server URL [SWITCHYARD_URL, default: ${DEFAULT_URL}]`))
    .addOption(new Option('--admin-key <key>', 'admin key of the server [SWITCHYARD_ADMIN_KEY]'))
    .addOption(new Option('--json', 'machine-readable output: JSON on stdout'))
    .addOption(new Option('--no-color', 'no colours (also NO_COLOR=1; colours only on a terminal anyway)'));
}

/** Output only, for commands that need no server (and for errors before one is chosen). */
export function outputFor(io: CliIO, flags: ClientFlags): Output {
  return createOutput({ stdout: io.stdout, stderr: io.stderr, env: io.env, json: flags.json === true, color: flags.color !== false });
}

export interface ClientContext {
  api: ServerApi;
  out: Output;
}

/** The server the flags or the environment name, checked once: its URL and admin key. */
export function serverChoice(io: CliIO, flags: ClientFlags): { url: string; adminKey: string | null } {
  const url = flags.url ?? (io.env.SWITCHYARD_URL || DEFAULT_URL);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url must be an http(s) URL such as ${DEFAULT_URL}, got "${url}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`--url must be an http(s) URL such as ${DEFAULT_URL}, got "${url}"`);
  }
  return { url, adminKey: flags.adminKey ?? (io.env.SWITCHYARD_ADMIN_KEY || null) };
}

export function clientContext(io: CliIO, flags: ClientFlags): ClientContext {
  const { url, adminKey } = serverChoice(io, flags);
  return { api: createServerApi({ url, adminKey }), out: outputFor(io, flags) };
}

/** A whole number from `min` to `max` given to `flag`. */
export function intFlag(flag: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^[0-9]+$/.test(value) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${value}"`);
    return n;
  };
}
