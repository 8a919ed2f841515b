/**
 * Which command lines run the gateway, without loading the CLI: start.ts asks
 * before it imports anything else, so a node's processes (the supervisor of
 * src/cluster.ts above all, which serves nothing itself) load serve.ts and
 * what it needs, not every verb's modules (the client, the project tools,
 * esbuild, chokidar, yaml).
 */

/** Whether this command line runs the gateway (no verb, or `serve`) rather than a command that calls one. */
export function runsServer(argv: string[]): boolean {
  return argv[0] === undefined || argv[0].startsWith('-') || argv[0] === 'serve';
}

const HELP_FLAGS = new Set(['--help', '-h']);

/**
 * serve()'s arguments when this command line runs the gateway and needs
 * nothing of the CLI's parser; undefined otherwise (the top help of a bare
 * `--help`, an argument `--`, which the parser interprets).
 */
export function directServeArgs(argv: string[]): string[] | undefined {
  if (!runsServer(argv) || argv.includes('--')) return undefined;
  if (argv[0] === 'serve') return argv.slice(1);
  return argv.some((a) => HELP_FLAGS.has(a)) ? undefined : argv;
}
