#!/usr/bin/env node
/**
 * The `switchyard` executable (package.json `bin`, dist/cli.js): hands the
 * command line, the environment and the standard streams to src/cli/index.ts.
 * Without a verb it runs the gateway (`switchyard serve`).
 */
import { readFileSync } from 'node:fs';
import { main } from './cli/index.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), version }).then(
  (code) => {
    // serve resolves once listening and keeps running; its signal handlers exit.
    if (code !== 0) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`switchyard: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
