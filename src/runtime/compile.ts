/**
 * User source -> the CommonJS script an isolate runs. esbuild strips
 * TypeScript and rewrites ES modules into `module.exports`, so every handler
 * form ends up as an export of `module.exports`.
 *
 * Every import stays a `require` the isolate answers when it runs
 * (node-builtins.ts): one of a module the sandbox lacks (an npm package that
 * was not bundled, another file, `vm`) throws only then, so a guarded
 * `try { require('x') } catch {}` works as on Lambda, and one at the top
 * level fails the deploy's validation run as it would fail Lambda's init.
 * Nothing is ever read from disk.
 *
 * Code that loads `async_hooks` is compiled a second time with async
 * functions lowered to generators: V8 runs a native `await` without calling
 * any `then` user code could see, so the sandbox's AsyncLocalStorage
 * (sandbox/node/context.cjs) could not keep a store across it; lowered, each
 * await is a `then` call, which carries the store. Other code keeps native
 * async functions (faster, and their stack traces).
 *
 * ES modules become CommonJS, so `import.meta` would be empty: its `url`,
 * `filename` and `dirname` are given Lambda's values for an ES module file
 * of the function's name (`file:///var/task/<name>.mjs`).
 *
 * The output carries an inline source map (no sources content) naming the
 * user's file, `<function name>.js` or `.ts`: stack traces, errors and the
 * positions of deploy failures are given in the user's own lines.
 */
import { build, transform, type Message, type Plugin } from 'esbuild';
import { InvalidCodeError } from '../errors.js';
import type { FunctionRuntimeName } from '../types.js';
import { UNAVAILABLE_MARK, unavailableOf } from './node-builtins.js';

/** The file name a function's stack traces and errors show: its name with its runtime's extension. */
export function userFileName(name: string, runtime: FunctionRuntimeName): string {
  return `${name}.${runtime === 'typescript' ? 'ts' : 'js'}`;
}

/** Every import stays external (the isolate's loader decides at run time), and is noted in `seen`. */
function sandboxImports(seen: Set<string>): Plugin {
  return {
    name: 'switchyard-sandbox-imports',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        seen.add(args.path);
        return { path: args.path, external: true };
      });
    },
  };
}

/** The code with UNAVAILABLE_MARK's line before its source map, when any import will throw if used. */
function markUnavailable(text: string, seen: Set<string>): string {
  const list = unavailableOf(seen);
  if (list.length === 0) return text;
  const at = text.lastIndexOf('//# sourceMappingURL=');
  const line = `${UNAVAILABLE_MARK}${list.join(',')}\n`;
  return at < 0 ? `${text}\n${line}` : text.slice(0, at) + line + text.slice(at);
}

export async function compileSource(code: string, runtime: FunctionRuntimeName, name = 'function'): Promise<{ compiled: string }> {
  const file = userFileName(name, runtime);
  try {
    const first = await transpile(code, runtime, file, name, false);
    const asyncHooks = first.seen.has('async_hooks') || first.seen.has('node:async_hooks');
    return { compiled: asyncHooks ? (await transpile(code, runtime, file, name, true)).text : first.text };
  } catch (err) {
    const first = (err as { errors?: Message[] }).errors?.[0];
    if (!first) throw err;
    // esbuild columns are 0-based; editors and our validate() count from 1.
    const loc = first.location;
    throw new InvalidCodeError(first.text, loc?.line, loc ? loc.column + 1 : undefined, file);
  }
}

async function transpile(code: string, runtime: FunctionRuntimeName, file: string, name: string, lowerAsync: boolean): Promise<{ text: string; seen: Set<string> }> {
  const seen = new Set<string>();
  const taskFile = `/var/task/${name}.mjs`;
  const out = await build({
      stdin: { contents: code, loader: runtime === 'typescript' ? 'ts' : 'js', sourcefile: file },
      bundle: true,
      write: false,
      format: 'cjs',
      platform: 'neutral',
      target: 'es2022',
      sourcemap: 'inline',
      sourcesContent: false,
      // No tsconfig.json is looked up for user code, so the server's never applies.
      tsconfigRaw: {},
      plugins: [sandboxImports(seen)],
      define: {
        'import.meta.url': JSON.stringify(`file://${taskFile}`),
        'import.meta.filename': JSON.stringify(taskFile),
        'import.meta.dirname': JSON.stringify('/var/task'),
      },
      logLevel: 'silent',
      ...(lowerAsync ? { supported: { 'async-await': false, 'async-generator': false, 'for-await': false } } : {}),
    });
  return { text: markUnavailable(out.outputFiles[0].text, seen), seen };
}

/**
 * A webhook transformation's source -> the script its isolate runs
 * (runtime/transformations.ts): modern JavaScript lowered to what the
 * isolate's V8 runs, ES module exports rewritten to `module.exports`. Nothing
 * is bundled: an `import` becomes a `require` the bare isolate does not have,
 * which fails the write-time check. Syntax errors throw an InvalidCodeError
 * with the position in the user's source.
 */
export async function compileTransformation(code: string): Promise<string> {
  try {
    const out = await transform(code, { loader: 'js', format: 'cjs', target: 'es2022', sourcefile: 'transformation.js', logLevel: 'silent' });
    return out.code;
  } catch (err) {
    const first = (err as { errors?: Message[] }).errors?.[0];
    if (!first) throw err;
    const loc = first.location;
    throw new InvalidCodeError(first.text, loc?.line, loc ? loc.column + 1 : undefined, 'transformation.js');
  }
}
