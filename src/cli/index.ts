/**
 * The `switchyard` command line: verbs parsed by commander, one file per verb
 * in this folder, each exporting `register<Verb>(program, io)`.
 *
 * No verb (or a first argument that is an option) means `serve`, so every
 * command line from before the verbs (`switchyard --port 8080 --demo`) runs the
 * gateway as it did; its options stay those of config.ts, whose table is also
 * the help. Errors end as one line `switchyard: ...` on stderr (with --json
 * also `{error, code}` on stdout) and an exit status: 1 the server refused or
 * the work failed, 2 a usage error, 3 no server at the URL (errors.ts).
 */
import { Command, CommanderError } from 'commander';
import { helpText } from '../config.js';
import type { CliIO } from './context.js';
import { registerDeliveries } from './deliveries.js';
import { registerApply } from './apply.js';
import { registerDeploy } from './deploy.js';
import { registerEvents } from './events.js';
import { registerEventTypes } from './event-types.js';
import { registerApplications } from './applications.js';
import { registerDev } from './dev.js';
import { registerExport } from './export.js';
import { registerImport } from './import.js';
import { CliError, CommandFailedError, EXIT, ServerError } from './errors.js';
import { registerInvoke } from './invoke.js';
import { registerInvocations } from './invocations.js';
import { registerLogs } from './logs.js';
import { SERVE_USAGE, serve } from './serve.js';
import { runsServer } from './server-args.js';
import { registerWebhooks } from './webhooks.js';
import { terminalText } from './terminal-text.js';

const HELP_FLAGS = new Set(['--help', '-h']);

/** Every verb, as commander knows it; the top-level help lists them from here. */
export function buildProgram(io: CliIO): Command {
  const program = new Command('switchyard')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
      outputError: (text, write) => write(`switchyard: ${text.replace(/^error: /, '')}`),
    })
    .showSuggestionAfterError(true)
    // Options after a verb are the verb's (and after `invocations retry`, retry's, not the list's).
    .enablePositionalOptions()
    .helpCommand('help [command]', 'Show the help of a command');
  program.helpInformation = () => topHelp(program);

  const serveCommand = program
    .command('serve')
    .description('Run the gateway (the default when no command is given)')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[options...]')
    .action(async (args: string[]) => {
      await serve(args, { env: io.env as NodeJS.ProcessEnv, version: io.version });
    });
  serveCommand.helpInformation = () => helpText(SERVE_USAGE);

  registerInvoke(program, io);
  registerInvocations(program, io);
  registerLogs(program, io);
  registerWebhooks(program, io);
  registerEvents(program, io);
  registerEventTypes(program, io);
  registerApplications(program, io);
  registerDeliveries(program, io);
  registerDeploy(program, io);
  registerDev(program, io);
  registerApply(program, io);
  registerExport(program, io);
  registerImport(program, io);
  return program;
}

function topHelp(program: Command): string {
  const usage = (c: Command, prefix = '') => {
    const args = c.name() === 'serve' ? [] : c.registeredArguments.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`));
    return [`${prefix}${c.name()}${args.length ? ` ${args.join(' ')}` : ''}`, c.description()];
  };
  // A command with arguments of its own and subcommands (`invocations <function>`, `invocations retry`) is listed with them.
  const rows = program.commands.flatMap((c) =>
    c.commands.length ? [...(c.registeredArguments.length ? [usage(c)] : []), ...c.commands.map((s) => usage(s, `${c.name()} `))] : [usage(c)],
  );

  rows.push(['help [command]', 'Show the help of a command']);
  const width = Math.max(...rows.map((r) => r[0].length));
  const head = [
    'Usage: switchyard [options]                  run the gateway (the same as: switchyard serve [options])',
    '       switchyard <command> [arguments] [options]',
    '',
    'Commands:',
    ...rows.map(([name, text]) => `  ${name.padEnd(width)}  ${text}`),
    '',
    'The options of a command: switchyard <command> --help. Commands that call a server take',
    '--url <url> [SWITCHYARD_URL], --admin-key <key> [SWITCHYARD_ADMIN_KEY], --json and --no-color.',
    'Exit status: 0 done, 1 the server refused or the work failed, 2 a usage error, 3 no server at the URL.',
    '',
    'switchyard [serve] runs the gateway with these options:',
  ].join('\n');
  return helpText(head);
}


/** Runs one command line; resolves to the exit status (serve keeps running after it resolves). */
export async function main(argv: string[], io: CliIO): Promise<number> {
  if (runsServer(argv) && argv[0] !== 'serve') {
    if (argv.some((a) => HELP_FLAGS.has(a))) {
      io.stdout.write(topHelp(buildProgram(io)));
      return EXIT.ok;
    }
    await serve(argv, { env: io.env as NodeJS.ProcessEnv, version: io.version });
    return EXIT.ok;
  }
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and --version are "errors" to commander; everything else it raises is a usage error.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (!(err instanceof CliError)) throw err;
    if (err instanceof CommandFailedError && err.reported) return err.exitCode;
    if (argv.includes('--json')) {
      const body: Record<string, unknown> = { error: err.message, code: err.code };
      if (err instanceof ServerError) Object.assign(body, { status: err.status }, err.details === undefined ? {} : { details: err.details });
      io.stdout.write(`${JSON.stringify(body)}\n`);
    }
    const code = err instanceof ServerError && err.code !== 'unauthorized' ? `${err.code}: ` : '';
    // A message may carry what a function threw or a name someone chose: its controls are shown, not obeyed.
    io.stderr.write(`switchyard: ${terminalText(code + err.message)}\n`);
    return err.exitCode;
  }
}
