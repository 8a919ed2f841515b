/**
 * Which export of the user's module the dispatcher calls (docs/functions.md,
 * "Handler"). A function's `handler` field names it, as Lambda's handler
 * setting does (`lambdaHandler`, `app.lambdaHandler`, `src/app.handler`);
 * without one: `handler`, else the default export, else the only exported
 * function. `exportPath` reads the setting on the host; CHOOSE_EXPORT_SOURCE
 * is spliced into the dispatcher (dispatcher.ts) and runs in the isolate at
 * `init`, after the user's top level, so it uses only what the dispatcher
 * captured before user code ran. Its refusals are the deploy's 400 message.
 */

/** What the dispatcher's `init` receives besides the user code, as JSON text. */
export interface DispatcherSetup {
  /** The `handler` setting as given, for messages; null: the default rule. */
  handler: string | null;
  /** The property path it names (`['lambdaHandler']`); null with `handler`. */
  path: string[] | null;
  /** For the Lambda context: `functionVersion` and `memoryLimitInMB`. */
  version: number;
  memoryMb: number;
}

/**
 * Lambda's reading of a handler setting: the part after the last `/` is
 * `file.export.path`; the file part names nothing here (a function is one
 * file), the rest is a property path into the module (`app.api.get` calls
 * `exports.api.get`). A setting without a dot is the export name itself.
 */
export function exportPath(handler: string): string[] {
  const base = handler.slice(handler.lastIndexOf('/') + 1);
  const dot = base.indexOf('.');
  const rest = dot < 0 ? base : base.slice(dot + 1);
  return rest.split('.').filter((part) => part !== '');
}

export function dispatcherSetup(handler: string | null, version: number, memoryMb: number): DispatcherSetup {
  return { handler, path: handler === null ? null : exportPath(handler), version, memoryMb };
}

/** At most this many export names in a refusal; the rest are counted. */
const LISTED_EXPORTS = 20;

/**
 * `chooseExport(exp, setup)` returns the function to call or throws an Error
 * whose message says why none and lists the exports found. Needs from the
 * dispatcher's scope (all captured before user code): apply, keys, joinList,
 * isArray, cut, StringCtor, ErrorCtor.
 */
export const CHOOSE_EXPORT_SOURCE = `
function isObjectLike(v) {
  return v !== null && (typeof v === 'object' || typeof v === 'function');
}
function kindOf(v) {
  if (v === null) return 'null';
  if (isArray(v)) return 'an array';
  const t = typeof v;
  return (t === 'object' || t === 'undefined' ? 'an ' : 'a ') + t;
}
/** The exports as the user sees them: a function module.exports counts as the default. */
function exportNames(exp) {
  let names = [];
  try { if (isObjectLike(exp)) names = keys(exp); } catch {}
  let list = typeof exp === 'function' ? 'default (module.exports)' : '';
  const shown = names.length < ${LISTED_EXPORTS} ? names.length : ${LISTED_EXPORTS};
  for (let i = 0; i < shown; i++) list += (list === '' ? '' : ', ') + cut(StringCtor(names[i]), 64);
  if (names.length > shown) list += ', and ' + (names.length - shown) + ' more';
  return { names, text: list === '' ? 'none' : list };
}
function read(obj, key) {
  try { return isObjectLike(obj) ? obj[key] : undefined; } catch { return undefined; }
}
function chooseExport(exp, setup) {
  const found = exportNames(exp);
  const listed = '; exports found: ' + found.text;
  if (setup.path !== null) {
    let v = exp;
    for (let i = 0; i < setup.path.length; i++) v = read(v, setup.path[i]);
    if (v === undefined && setup.path.length === 1 && setup.path[0] === 'default' && typeof exp === 'function') v = exp;
    if (typeof v === 'function') return v;
    const name = apply(joinList, setup.path, ['.']);
    const from = setup.handler === name ? '' : " (handler '" + setup.handler + "')";
    if (v === undefined) throw new ErrorCtor("no export named '" + name + "'" + from + listed);
    throw new ErrorCtor("export '" + name + "'" + from + ' is ' + kindOf(v) + ', not a function' + listed);
  }
  const named = read(exp, 'handler');
  if (typeof named === 'function') return named;
  if (named !== undefined) throw new ErrorCtor("export 'handler' is " + kindOf(named) + ', not a function' + listed);
  if (typeof exp === 'function') return exp;
  const def = read(exp, 'default');
  if (typeof def === 'function') return def;
  let only = null;
  let count = 0;
  for (let i = 0; i < found.names.length; i++) {
    const v = read(exp, found.names[i]);
    if (typeof v === 'function') { only = v; count++; }
  }
  if (count === 1) return only;
  if (count > 1) {
    throw new ErrorCtor("no export named 'handler' or 'default' and " + count +
      ' exported functions: set the handler field to the one to call' + listed);
  }
  throw new ErrorCtor("no function to call: export one named 'handler' or a default export" + listed);
}
`;
