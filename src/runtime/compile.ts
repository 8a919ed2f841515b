/**
 * User source -> the CommonJS script an isolate runs. esbuild strips
 * TypeScript and rewrites `export function handler` / `export const handler`
 * into `module.exports`, so every handler form ends up as
 * `module.exports.handler`.
 */
import { transformSync, type Message } from 'esbuild';
import { InvalidCodeError } from '../errors.js';
import type { FunctionRuntimeName } from '../types.js';

export function compileSource(code: string, runtime: FunctionRuntimeName): { compiled: string } {
  try {
    const out = transformSync(code, {
      loader: runtime === 'typescript' ? 'ts' : 'js',
      format: 'cjs',
      target: 'es2022',
      sourcemap: false,
      logLevel: 'silent',
    });
    return { compiled: out.code };
  } catch (err) {
    const first = (err as { errors?: Message[] }).errors?.[0];
    if (!first) throw err;
    // esbuild columns are 0-based; editors and our validate() count from 1.
    const loc = first.location;
    throw new InvalidCodeError(first.text, loc?.line, loc ? loc.column + 1 : undefined);
  }
}
