/**
 * What the `switchyard` executable runs once cli.ts has found the Node.js
 * fit: hands the command line, the environment and the standard streams to
 * index.ts. Without a verb it runs the gateway (`switchyard serve`): then it
 * imports serve.ts alone, not the CLI's other verbs (server-args.ts says why).
 */
import { directServeArgs, runsServer } from './server-args.js';

export function start(version: string): void {
  const argv = process.argv.slice(2);
  if (!runsServer(argv)) {
    // `switchyard logs f -f | head`: a reader that goes away ends a command quietly.
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      throw err;
    });
  }

  const serveArgs = directServeArgs(argv);
  const run: Promise<number> =
    serveArgs !== undefined
      ? import('./serve.js').then(({ serve }) => serve(serveArgs, { env: process.env, version })).then(() => 0)
      : import('./index.js').then(({ main }) =>
          main(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), version }),
        );
  run.then(
    (code) => {
      // serve resolves once listening and keeps running; its signal handlers exit.
      if (code !== 0) process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`switchyard: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
