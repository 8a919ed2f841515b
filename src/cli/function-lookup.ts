/**
 * The function a command means by the name typed: the call is made with the
 * name as typed first, so an exact name costs no extra request; only when
 * the server answers `function_not_found` are the names listed and matched
 * (name-match.ts: any case, or the start of one name), and the call made
 * again with the one name found, saying which on stderr. When none matches,
 * the server's own `function_not_found` stands.
 */
import { ServerError } from './errors.js';
import { pickName } from './name-match.js';
import type { Output } from './output.js';
import type { ServerApi } from './server-api.js';
import { terminalLine } from './terminal-text.js';

/** The function name `given` stands for: `given` itself when a function has it, null when none matches. */
export async function functionNameFor(api: ServerApi, given: string, out: Output): Promise<string | null> {
  const name = pickName(given, await api.listFunctionNames(), 'function');
  if (name !== null && name !== given) out.info(out.paintErr('dim', terminalLine(`(function '${name}')`)));
  return name;
}

/** Runs `call` with the name as typed, then, on function_not_found, with the function it stands for. */
export async function withFunction<T>(api: ServerApi, given: string, out: Output, call: (name: string) => Promise<T>): Promise<T> {
  try {
    return await call(given);
  } catch (err) {
    if (!(err instanceof ServerError && err.code === 'function_not_found')) throw err;
    const name = await functionNameFor(api, given, out);
    // None matches (the server's own answer says so best), or the exact name went meanwhile.
    if (name === null || name === given) throw err;
    return call(name);
  }
}
