/**
 * What can stop a CLI command, each with the exit status scripts can rely on:
 * 1 the server refused or failed the call (or the work failed: a function
 * error, a failed delivery, a bundle refused), 2 a usage error (bad flag or
 * argument, the command line is wrong), 3 no server answered at the URL. The
 * entry point (index.ts) prints `switchyard: <message>` and exits with
 * `exitCode`; nothing else in src/cli/ calls process.exit.
 */

export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3 } as const;

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
  readonly code = 'usage';
}

/** The work itself failed (the function threw, the delivery failed, the bundle was refused). */
export class CommandFailedError extends CliError {
  readonly exitCode = EXIT.failed;
  readonly code: string;
  /** The command already told the user (its own output shows the failure): exit without another line. */
  readonly reported: boolean;
  constructor(code: string, message: string, opts: { reported?: boolean } = {}) {
    super(message);
    this.code = code;
    this.reported = opts.reported ?? false;
  }
}

/** Nothing answered at the server URL (refused, no such host, timed out). */
export class ServerUnreachableError extends CliError {
  readonly exitCode = EXIT.unreachable;
  readonly code = 'server_unreachable';
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
