/**
 * What the `switchyard` executable runs once cli.ts has found the Node.js
 * fit: hands the command line, the environment and the standard streams to
 * index.ts. Without a verb it runs the gateway (`switchyard serve`).
 */
import { main, runsServer } from './index.js';

export function start(version: string): void {
  const argv = process.argv.slice(2);
  if (!runsServer(argv)) {
    // `switchyard logs f -f | head`: a reader that goes away ends a command quietly.
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      throw err;
    });
  }

  main(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), version }).then(
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
