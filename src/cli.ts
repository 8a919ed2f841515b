#!/usr/bin/env node
/**
 * The `switchyard` executable (package.json `bin`, dist/cli.js). First it
 * checks the Node.js version against package.json's `engines`, then it loads
 * the rest (cli/start.ts) with a dynamic import: a static one would load the
 * native modules (isolated-vm, better-sqlite3) before any check, and on an
 * older Node they crash the process with no message (exit 139, or exit 1
 * with nothing printed). So this module imports only node:fs and
 * node-version.ts, which imports nothing.
 */
import { readFileSync } from 'node:fs';
import { nodeVersionProblem } from './node-version.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string; engines: { node: string } };

const problem = nodeVersionProblem(process.versions.node, pkg.engines.node);
if (problem) {
  process.stderr.write(`switchyard: ${problem}\n`);
  process.exit(1);
}
const { start } = await import('./cli/start.js');
start(pkg.version);
