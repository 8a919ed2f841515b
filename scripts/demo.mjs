// `npm run demo [-- options]`: `switchyard dev examples [options]` from this
// checkout, building first only when dist/ is missing or older than a source
// (scripts/dist-stamp.mjs), so right after `npm ci` (which builds) it starts
// at once. Options after `--` go to `dev` (`npm run demo -- --port 4000`);
// PORT and HOST in the environment work as well.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { staleReason } from './dist-stamp.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist', 'cli.js');

// On a Node too old to run it, say so before a build, not after (dist/cli.js checks again).
const check = path.join(root, 'dist', 'node-version.js');
if (existsSync(check)) {
  const { nodeVersionProblem } = await import(pathToFileURL(check).href);
  const { engines } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const problem = nodeVersionProblem(process.versions.node, engines.node);
  if (problem) {
    console.error(`switchyard: ${problem}`);
    process.exit(1);
  }
}

const stale = staleReason(root);
if (stale) {
  console.error(`Building first: ${stale}.`);
  const built = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
if (!existsSync(cli)) {
  console.error(`${path.relative(process.cwd(), cli)} is missing after the build`);
  process.exit(1);
}
// The command runs in this process (no child to pass Ctrl-C to): it reads its arguments from process.argv.
process.argv = [process.argv[0], cli, 'dev', path.relative(process.cwd(), path.join(root, 'examples')) || '.', ...process.argv.slice(2)];
await import(pathToFileURL(cli).href);
