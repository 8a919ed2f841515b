/**
 * User source -> the CommonJS script an isolate runs. esbuild strips
 * TypeScript and rewrites ES modules into `module.exports`, so every handler
 * form ends up as an export of `module.exports`.
 *
 * Imports are resolved here, at deploy: `require`/`import` of a Node built-in
 * the sandbox has (node-builtins.ts) stays a `require` the isolate answers;
 * anything else (fs, child_process, an npm package, another file) refuses the
 * deploy naming the module and its line. Nothing is ever read from disk.
 *
 * The output carries an inline source map (no sources content) naming the
 * user's file, `<function name>.js` or `.ts`: stack traces, errors and the
 * positions of deploy failures are given in the user's own lines.
 */
import { build, type Message, type Plugin } from 'esbuild';
import { InvalidCodeError } from '../errors.js';
import type { FunctionRuntimeName } from '../types.js';
import { refusal, sandboxModule } from './node-builtins.js';

/** The file name a function's stack traces and errors show: its name with its runtime's extension. */
export function userFileName(name: string, runtime: FunctionRuntimeName): string {
  return `${name}.${runtime === 'typescript' ? 'ts' : 'js'}`;
}

/** Every import goes through here: built-ins the sandbox has stay external, the rest is refused. */
const sandboxImports: Plugin = {
  name: 'switchyard-sandbox-imports',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      if (sandboxModule(args.path)) return { path: args.path, external: true };
      return { errors: [{ text: refusal(args.path) }] };
    });
  },
};

export async function compileSource(code: string, runtime: FunctionRuntimeName, name = 'function'): Promise<{ compiled: string }> {
  const file = userFileName(name, runtime);
  try {
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
      plugins: [sandboxImports],
      logLevel: 'silent',
    });
    return { compiled: out.outputFiles[0].text };
  } catch (err) {
    const first = (err as { errors?: Message[] }).errors?.[0];
    if (!first) throw err;
    // esbuild columns are 0-based; editors and our validate() count from 1.
    const loc = first.location;
    throw new InvalidCodeError(first.text, loc?.line, loc ? loc.column + 1 : undefined, file);
  }
}
