// Whether dist/ was built from the sources as they are now, so `npm run demo`
// (scripts/demo.mjs) can skip a build of a minute that `npm ci` has just done.
// `npm run build` ends (npm's `postbuild`) by running this file, which writes
// dist/build-stamp; dist/ is up to date while no input of the build (src/,
// dashboard/, scripts/, schema/, package.json, the lock, the tsconfigs) is
// newer than that stamp. A build that fails writes no stamp, and one changed
// file anywhere in those folders, or a deleted dist/, means a build.
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const STAMP = path.join('dist', 'build-stamp');
const INPUT_FOLDERS = ['src', 'dashboard', 'scripts', 'schema'];
const INPUT_FILE = /^(package\.json|package-lock\.json|tsconfig(\.[a-z]+)?\.json)$/;

function newest(dir) {
  let found = null;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const candidate = entry.isDirectory() ? newest(full) : entry.isFile() ? { file: full, ms: statSync(full).mtimeMs } : null;
    if (candidate && (!found || candidate.ms > found.ms)) found = candidate;
  }
  return found;
}

/** Why dist/ under `root` needs a build (a sentence), or null when it is up to date. */
export function staleReason(root) {
  let stampMs;
  try {
    stampMs = statSync(path.join(root, STAMP)).mtimeMs;
  } catch {
    return `${STAMP} is missing (no complete build yet)`;
  }
  const inputs = [
    ...INPUT_FOLDERS.map((d) => path.join(root, d)).filter((d) => statSync(d, { throwIfNoEntry: false })?.isDirectory()).map(newest),
    ...readdirSync(root).filter((f) => INPUT_FILE.test(f)).map((f) => ({ file: path.join(root, f), ms: statSync(path.join(root, f)).mtimeMs })),
  ].filter(Boolean);
  const latest = inputs.reduce((a, b) => (b.ms > a.ms ? b : a), { file: null, ms: -Infinity });
  return latest.ms > stampMs ? `${path.relative(root, latest.file)} changed after the last build` : null;
}

export function writeStamp(root) {
  writeFileSync(path.join(root, STAMP), 'Written at the end of a complete `npm run build` (scripts/dist-stamp.mjs).\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeStamp(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
