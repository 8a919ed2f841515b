/**
 * One function file plus the npm packages it imports -> the single script the
 * server deploys. esbuild bundles from the file's folder, so packages come from
 * the user's own node_modules next to (or above) the file, platform neutral,
 * CommonJS: the form the server's compile step (src/runtime/compile.ts) takes
 * and keeps. Every Node built-in stays an import for the isolate to answer
 * (node-builtins.ts: one the sandbox lacks throws when loaded, as a guarded
 * require expects); a package that ships native code (a `.node` file) is
 * refused here, naming the package, rather than failing later inside the
 * sandbox. A package that is not installed is said as what to run (`npm
 * install` in the folder of the nearest package.json), not as esbuild's
 * "Could not resolve".
 *
 * A `require()` of a relative or absolute path that does not exist is left
 * to fail when it runs (MODULE_NOT_FOUND), as Node fails it: samples guard
 * one with a condition (`require(process.env.NODE_ENV === 'test' ?
 * '../../index' : 'pkg')`) that is never true in production. The bundle
 * lists them (`unresolved`) so the CLI can say so. A static `import` of one
 * stays an error, as ES module loading fails on it before any code runs.
 *
 * ES modules become CommonJS, so `import.meta` would be empty: its `url`,
 * `filename` and `dirname` are given Lambda's values for the entry file
 * (`file:///var/task/src/handler.mjs`: an ES module file there is `.mjs`).
 *
 * Every file read into the bundle must lie in the project folder once
 * symlinks are resolved (or in a folder the operator allowed with
 * `--allow-outside`): a function's file cannot pull `../secret.json`,
 * `/etc/x.json` or a symlink out of the project into code the server then
 * serves. One exception, npm packages: a file inside a `node_modules` folder
 * may lie anywhere Node's lookup finds it (a monorepo keeps them in a parent
 * folder, pnpm behind symlinks) when it was reached by a package name or from
 * another package file, never by a relative or absolute path from the
 * project's own files. A package symlinked out of `node_modules` (`npm
 * link`, a workspace) lies outside and needs `--allow-outside`.
 */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { build, type Message, type Metafile, type Plugin } from 'esbuild';
import { SANDBOX_MODULES, isNodeBuiltin, sandboxModule } from '../runtime/node-builtins.js';
import { createConfinement, inNodeModules, outsideMessage, type Confinement } from '../project/index.js';
import { CommandFailedError } from './errors.js';
import { shownPath } from './shown-path.js';
import { shellArg } from './words.js';

export interface Bundle {
  code: string;
  /** UTF-8 size of `code`. */
  bytes: number;
  /** npm packages bundled in, by name, sorted. */
  packages: string[];
  /** Files read into the bundle, the entry included: 1 means the file imports nothing to bundle. */
  inputs: number;
  /** `require()`d paths that do not exist, with the file requiring them (`'../../index' (src/lambda.js)`): they throw MODULE_NOT_FOUND if the code runs them. */
  unresolved: string[];
}

/**
 * Node's built-in module names as code may import them: `fs` and `node:fs`;
 * the ones that exist only with the prefix (`node:test`, `node:sqlite`) only
 * with it, since `test` or `sqlite` alone are npm packages.
 */
const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => (m.startsWith('node:') ? [m] : [m, `node:${m}`])));
const AVAILABLE = SANDBOX_MODULES.filter((m) => !m.includes('/')).join(', ');

/** The npm package a path lies in (`.../node_modules/@scope/name/x.js` -> `@scope/name`), or null for the user's own files. */
export function packageOf(path: string): string | null {
  const parts = path.split(/[\\/]/);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0 || at + 1 >= parts.length) return null;
  return parts[at + 1].startsWith('@') ? `${parts[at + 1]}/${parts[at + 2] ?? ''}` : parts[at + 1];
}

/** Who imports: the message's location already gives the file and line. */
function importerText(importer: string): string {
  const pkg = packageOf(importer);
  return pkg ? `package '${pkg}'` : 'this file';
}

/** The sandbox's modules stay external; other built-ins and native code are refused naming who asked. */
function sandboxPlugin(root: string): Plugin {
  return {
    name: 'switchyard-deploy-imports',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        // Every built-in stays an import: the sandbox answers it at run time (node-builtins.ts), so the branch below no longer refuses.
        if (sandboxModule(args.path) || isNodeBuiltin(args.path)) return { path: args.path, external: true };
        if (args.path.startsWith('node:') || NODE_BUILTINS.has(args.path)) {
          const refused: BuiltinRefusal = { kind: BUILTIN, who: importerText(args.importer), module: args.path };
          return { errors: [{ text: `${refused.who} needs the Node module '${args.path}', which functions cannot use`, detail: refused }] };
        }
        if (args.path.endsWith('.node')) {
          return { errors: [{ text: `${importerText(args.importer)} loads native code ('${args.path}'), which the sandbox cannot run` }] };
        }
        return undefined;
      });
      b.onLoad({ filter: /\.node$/ }, (args) => {
        const pkg = packageOf(args.path);
        return {
          errors: [
            {
              text: `${pkg ? `package '${pkg}'` : shownFile(root, args.path)} ships native code (${shownFile(root, args.path)}), which the sandbox cannot run`,
            },
          ],
        };
      });
    },
  };
}

/** A specifier naming a package (`zod`, `@scope/x/y`), not a path. */
const isBare = (specifier: string) => !specifier.startsWith('.') && !isAbsolute(specifier) && !/^[A-Za-z]:[\\/]/.test(specifier);

/** The `detail` of a refusal of this plugin, which makes the failure `outside_project`. */
const OUTSIDE = 'outside_project';

/** Marks esbuild's own resolution of a path this plugin asked for, so the plugin does not ask again. */
const INNER = Symbol('switchyard-confined');

/** The namespace of a required path that does not exist: its module throws as Node's require would. */
const MISSING = 'switchyard-missing';

/** Refuses any file of the bundle outside the project (see the header for the package rule). */
function confinePlugin(confinement: Confinement, unresolved: string[]): Plugin {
  return {
    name: 'switchyard-project-files',
    setup(b) {
      b.onLoad({ filter: /.*/, namespace: MISSING }, (args) => ({
        contents: `throw Object.assign(new Error(${JSON.stringify(`Cannot find module '${args.path}'`)}), { code: 'MODULE_NOT_FOUND' });`,
        loader: 'js',
      }));
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === INNER) return undefined;
        const resolved = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          namespace: args.namespace,
          resolveDir: args.resolveDir,
          pluginData: INNER,
        });
        if (resolved.errors.length > 0 && args.kind === 'require-call' && !isBare(args.path)) {
          unresolved.push(`'${args.path}' (${shownFile(confinement.root, args.importer)})`);
          return { path: args.path, namespace: MISSING };
        }
        if (resolved.errors.length > 0 || resolved.external || resolved.namespace !== 'file') return resolved.errors.length > 0 ? { errors: resolved.errors } : resolved;
        const verdict = await confinement.check(resolved.path);
        const fromPackage = args.kind !== 'entry-point' && (isBare(args.path) || inNodeModules(args.importer));
        if (!verdict.inside && !(fromPackage && inNodeModules(verdict.real))) {
          return { errors: [{ text: outsideMessage(args.path, verdict.real, confinement.root), detail: OUTSIDE }] };
        }
        return { path: resolved.path, namespace: resolved.namespace, sideEffects: resolved.sideEffects, suffix: resolved.suffix, pluginData: resolved.pluginData };
      });
    },
  };
}

/**
 * A file of the bundle as the project's author knows it: relative to the
 * project root; a package file that lies above it (a monorepo's hoisted
 * node_modules, a symlinked node_modules resolved to its real place) from
 * its `node_modules/` on, as Node's lookup found it, never a run of `../`.
 * esbuild names files relative to its working folder, `root`.
 */
export function shownFile(root: string, file: string): string {
  const abs = resolve(root, file);
  const rel = relative(root, abs);
  if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return rel;
  const parts = abs.split(/[\\/]/);
  const at = parts.indexOf('node_modules');
  if (at >= 0) return parts.slice(at).join('/');
  return rel || file;
}

/** `file:line:column` of a message that has a location. */
function where(m: Message, root: string): string {
  const loc = m.location!;
  return `${shownFile(root, loc.file)}:${loc.line}:${loc.column + 1}`;
}

const describe = (m: Message, root: string): string => (m.location ? `${where(m, root)}: ${m.text}` : m.text);

/** The `detail` of a built-in this plugin refused: grouped per importer in the report. */
const BUILTIN = 'builtin_refused';
interface BuiltinRefusal {
  kind: typeof BUILTIN;
  /** `package 'axios'` or `this file`. */
  who: string;
  module: string;
}
const isBuiltinRefusal = (detail: unknown): detail is BuiltinRefusal => (detail as BuiltinRefusal | undefined)?.kind === BUILTIN;

/**
 * The refused built-ins, one line per importer however many modules it
 * needs (a package such as axios asks for a dozen): `package 'axios' needs
 * the Node modules 'http', 'https', 'zlib', which functions cannot use
 * (node_modules/axios/index.js:1:20, and 2 more places)`.
 */
function builtinLines(messages: Message[], root: string): string[] {
  const byWho = new Map<string, { modules: string[]; first: Message; places: number }>();
  for (const m of messages) {
    const refusal = m.detail as BuiltinRefusal;
    const who = refusal.who === 'this file' && m.location ? shownFile(root, m.location.file) : refusal.who;
    const entry = byWho.get(who) ?? { modules: [], first: m, places: 0 };
    byWho.set(who, entry);
    entry.places++;
    if (!entry.modules.includes(refusal.module)) entry.modules.push(refusal.module);
  }
  return [...byWho.values()].map(({ modules, first, places }) => {
    const names = modules.map((n) => `'${n}'`).join(', ');
    const at = first.location ? ` (${where(first, root)}${places > 1 ? `, and ${places - 1} more place${places === 2 ? '' : 's'}` : ''})` : '';
    return `${(first.detail as BuiltinRefusal).who} needs the Node module${modules.length === 1 ? '' : 's'} ${names}, which functions cannot use${at}`;
  });
}

/** `Could not resolve "axios"` for a package name (not a path): the package is not installed. */
function missingPackage(m: Message): string | null {
  const found = /^Could not resolve "(.+)"$/.exec(m.text);
  if (!found || !isBare(found[1])) return null;
  const parts = found[1].split('/');
  const name = parts[0].startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  // Only a name npm could install: a path alias such as `@/lib/db` stays esbuild's own error.
  return NPM_NAME.test(name) ? name : null;
}

/** npm's rule for a package name, scope included. */
const NPM_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/** The folder holding the package.json nearest to `file` within `root` (its dependencies are installed there), else `root`. */
function installFolder(file: string, root: string): { folder: string; manifest: Record<string, unknown> | null } {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    try {
      return { folder: dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown> };
    } catch {
      // No package.json here (or not JSON): look further up, as npm does, but not out of the project.
    }
    if (dir === root || !isUnderFolder(dir, root) || dirname(dir) === dir) return { folder: root, manifest: null };
  }
}

const isUnderFolder = (path: string, folder: string) => {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** The npm packages a bundle needs and the folder lacks: say to install them, not to bundle by hand. */
function notInstalled(file: string, root: string, packages: string[]): CommandFailedError {
  const { folder, manifest } = installFolder(file, root);
  const listed = new Set(
    ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'].flatMap((k) => Object.keys((manifest?.[k] as object | undefined) ?? {})),
  );
  const shown = shownPath(process.cwd(), folder);
  const names = packages.map((p) => `'${p}'`).join(', ');
  const unlisted = packages.filter((p) => !listed.has(p));
  const fix =
    manifest !== null && unlisted.length === 0
      ? `run \`npm install\` in ${shown} (its package.json lists ${packages.length === 1 ? 'it' : 'them'})`
      : `run \`npm install ${unlisted.map(shellArg).join(' ')}\` in ${shown}`;
  return new CommandFailedError(
    'packages_not_installed',
    `cannot bundle ${relative(root, file) || file}: it imports the npm package${packages.length === 1 ? '' : 's'} ${names}, not installed: ${fix}`,
  );
}

function packagesIn(meta: Metafile): string[] {
  const names = new Set<string>();
  for (const input of Object.keys(meta.inputs)) {
    const pkg = packageOf(input);
    if (pkg) names.add(pkg);
  }
  return [...names].sort();
}

export interface BundleOptions {
  /** Folders outside `root` that the bundle's files may come from too. */
  allowOutside?: readonly string[];
}

/**
 * Bundles `file` (absolute) from the project folder `root`; a refusal or a
 * build error is a CommandFailedError listing every problem.
 */
export async function bundleFunction(file: string, root: string, options: BundleOptions = {}): Promise<Bundle> {
  const unresolved: string[] = [];
  const taskFile = `/var/task/${relative(root, file).split(/[\\/]/).join('/').replace(/\.(ts|mts|mjs)$/, '.mjs')}`;
  try {
    const out = await build({
      entryPoints: [file],
      absWorkingDir: root,
      bundle: true,
      write: false,
      format: 'cjs',
      platform: 'neutral',
      // The neutral platform sets no package entry fields: the usual ones, ES modules first.
      mainFields: ['module', 'main'],
      target: 'es2022',
      metafile: true,
      legalComments: 'none',
      // Stack traces and errors point into the user's files (the server keeps an input source map).
      sourcemap: 'inline',
      sourcesContent: false,
      // The sandbox's rules first: a built-in is refused or kept external before any path is resolved.
      plugins: [sandboxPlugin(root), confinePlugin(createConfinement({ root, allowOutside: options.allowOutside }), unresolved)],
      define: {
        'import.meta.url': JSON.stringify(`file://${taskFile}`),
        'import.meta.filename': JSON.stringify(taskFile),
        'import.meta.dirname': JSON.stringify(taskFile.slice(0, taskFile.lastIndexOf('/'))),
      },
      logLevel: 'silent',
    });
    const code = out.outputFiles[0].text;
    return { code, bytes: Buffer.byteLength(code), packages: packagesIn(out.metafile), inputs: Object.keys(out.metafile.inputs).length, unresolved };
  } catch (err) {
    const errors = (err as { errors?: Message[] }).errors;
    if (!errors?.length) throw err;
    const name = relative(root, file) || file;
    if (errors.some((m) => m.detail === OUTSIDE)) {
      throw new CommandFailedError('outside_project', `cannot bundle ${name}:\n  ${errors.map((m) => describe(m, root)).join(`\n  `)}`);
    }
    const missing = [...new Set(errors.map(missingPackage).filter((p): p is string => p !== null))].sort();
    if (missing.length > 0) throw notInstalled(file, root, missing);
    const builtins = errors.filter((m) => isBuiltinRefusal(m.detail));
    const lines = [...builtinLines(builtins, root), ...errors.filter((m) => !isBuiltinRefusal(m.detail)).map((m) => describe(m, root))];
    if (builtins.length > 0) {
      lines.push(`(functions have no file system, processes or sockets; fetch does HTTP. Node built-ins available: ${AVAILABLE})`);
    }
    throw new CommandFailedError('bundle_failed', `cannot bundle ${name}:\n  ${lines.join(`\n  `)}`);
  }
}
