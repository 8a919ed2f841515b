/**
 * What can stop a CLI command, each with the exit status scripts can rely on:
 * 1 the server refused or failed the call (or the work failed: a function
 * error, a failed delivery, a bundle refused), 2 a usage error (bad flag or
 * argument, the command line is wrong), 3 no server answered at the URL. The
 * entry point (index.ts) prints `switchyard: <message>` and exits with
 * `exitCode`; nothing else in src/cli/ calls process.exit, but the two
 * verbs that run a server (serve.ts, dev.ts) when it stops.
 */

import type { InvocationErrorCode } from '../errors.js';

export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3 } as const;

/**
 * Every code a failure of the CLI itself can carry (printed with --json), with
 * its summary: the CLI's side of the error registry (the server's is ERRORS in
 * src/errors.ts; a ServerError carries the server's code as it came).
 * docs/errors.md lists each, and test/unit/error-registry.test.ts checks both ways.
 */
export const CLI_ERRORS = {
  usage: { message: 'The command line is wrong' },
  server_unreachable: { message: 'No server answered at the URL' },
  invalid_config: { message: "The dev server's settings are invalid" },
  start_failed: { message: 'The dev server could not start' },
  invalid_input: { message: 'The file to import is neither a serverless.yml nor a SAM template' },
  invalid_project: { message: 'The project file has problems' },
  outside_project: { message: 'A file lies outside the project folder' },
  dev_already_running: { message: "A dev server already serves this project's database" },
  packages_not_installed: { message: 'The file imports npm packages that are not installed' },
  bundle_failed: { message: 'The file cannot be bundled for the sandbox' },
  bundle_too_large: { message: "The bundle is over the server's size limit" },
  function_not_found: { message: 'No function has that name' },
  webhook_not_found: { message: 'No webhook has that name' },
  application_not_found: { message: 'No application has that id, uid or name' },
  delivery_failed: { message: 'The test delivery failed' },
  no_log_stream: { message: 'The server is older than this CLI: no log stream' },
  no_invocation_records: { message: 'The server is older than this CLI: no invocation records' },
  no_async_invoke: { message: 'The server is older than this CLI: no asynchronous invocation' },
  no_endpoint_health: { message: 'The server is older than this CLI: no pause, resume or recovery of webhooks' },
  recovery_cancelled: { message: 'The recovery job was cancelled before it finished' },
} as const satisfies Record<string, { message: string }>;
export type CliErrorCode = keyof typeof CLI_ERRORS;

export abstract class CliError extends Error {
  abstract readonly exitCode: number;
  /** Stable snake_case name of the failure, shown with --json. */
  abstract readonly code: string;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The command line is wrong (a flag value, a missing argument, a file that cannot be read). */
export class UsageError extends CliError {
  readonly exitCode = EXIT.usage;
  readonly code: CliErrorCode = 'usage';
}

/** The work itself failed (the function threw, the delivery failed, the bundle was refused). */
export class CommandFailedError extends CliError {
  readonly exitCode = EXIT.failed;
  /** The CLI's own, or the server's code of an invocation's failure (`invoke`). */
  readonly code: CliErrorCode | InvocationErrorCode;
  /** The command already told the user (its own output shows the failure): exit without another line. */
  readonly reported: boolean;
  constructor(code: CliErrorCode | InvocationErrorCode, message: string, opts: { reported?: boolean } = {}) {
    super(message);
    this.code = code;
    this.reported = opts.reported ?? false;
  }
}

/** Nothing answered at the server URL (refused, no such host, timed out). */
export class ServerUnreachableError extends CliError {
  readonly exitCode = EXIT.unreachable;
  readonly code: CliErrorCode = 'server_unreachable';
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(`cannot reach Switchyard at ${url}: ${reason}; start it with \`switchyard serve\` or pass --url`);
  }
}

/** The server answered with an error: its status, its `code` and its message. */
export class ServerError extends CliError {
  readonly exitCode = EXIT.failed;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** 401: the server has an admin key and we sent none or the wrong one. */
export class ServerAuthError extends ServerError {
  constructor(url: string, sentKey: boolean) {
    super(
      401,
      'unauthorized',
      sentKey
        ? `the server at ${url} refused the admin key (401): pass the key it was started with in --admin-key or SWITCHYARD_ADMIN_KEY`
        : `the server at ${url} needs an admin key (401): pass --admin-key <key> or set SWITCHYARD_ADMIN_KEY`,
    );
  }
}
