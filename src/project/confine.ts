/**
 * Project files stay in the project: the one rule `apply`, `dev`, `import`
 * and `deploy` use to decide whether a path they are about to read (or, for
 * import, to write into a project file) may be read. A path is inside when
 * its real location (symlinks resolved) lies under the project folder or
 * under a folder the operator named with `--allow-outside`. A path that does
 * not exist yet is judged by its resolved text, so `../x.js` is refused
 * whether or not the file is there.
 */
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

export interface ConfinementOptions {
  /** The project folder (absolute). */
  root: string;
  /** More folders the operator allows (absolute, or relative to `root`). */
  allowOutside?: readonly string[];
}

export interface PathVerdict {
  /** Whether the path may be read. */
  inside: boolean;
  /** The path after resolving symlinks (the resolved text when it does not exist). */
  real: string;
}

export interface Confinement {
  /** The project folder and the allowed folders, as real paths. */
  readonly roots: Promise<string[]>;
  /** Judges an absolute path. */
  check(path: string): Promise<PathVerdict>;
  /** The project folder as given, for messages. */
  readonly root: string;
}

/** Whether `path` is `dir` or lies below it (both absolute and normalised). */
export function isUnder(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The real path, or the resolved text when the path (or a folder of it) does not exist. */
export async function realOrResolved(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}

/** Whether a path lies inside a `node_modules` folder (an npm package's file). */
export function inNodeModules(path: string): boolean {
  return path.split(/[\\/]/).includes('node_modules');
}

export function createConfinement(opts: ConfinementOptions): Confinement {
  const root = resolve(opts.root);
  const roots = Promise.all([root, ...(opts.allowOutside ?? []).map((d) => resolve(root, d))].map(realOrResolved));
  return {
    root,
    roots,
    async check(path) {
      const real = await realOrResolved(path);
      const dirs = await roots;
      return { inside: dirs.some((d) => isUnder(real, d)), real };
    },
  };
}

/** Why a path is refused, naming it as given and where it leads, and how to allow it if meant. */
export function outsideMessage(given: string, real: string, root: string): string {
  const leads = real !== given && real !== resolve(root, given) ? ` (it resolves to ${real})` : '';
  return `${given} is outside the project folder ${root}${leads}; pass --allow-outside <folder> to allow a folder outside it`;
}
