/**
 * Which export of the user's module the dispatcher calls (docs/functions.md,
 * "Handler"). A function's `handler` field names it, as Lambda's handler
 * setting does (`lambdaHandler`, `app.lambdaHandler`, `src/app.handler`);
 * without one: `handler`, else the default export, else the only exported
 * function. `exportPath` reads the setting on the host; `chooseExport` in
 * isolate/dispatcher.js applies it in the isolate at `init`, after the user's
 * top level, so it uses only what the dispatcher captured before user code
 * ran. Its refusals are the deploy's 400 message.
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
export const LISTED_EXPORTS = 20;
