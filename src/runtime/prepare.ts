/**
 * Builds a function's context in an isolate: sandbox globals, the invocation
 * dispatcher, then the user's code (compiled as one wrapped script, its top
 * level run once). Shared by warm isolates (isolate-host.ts) and deploy-time
 * validation (worker.ts). Compile errors come back with the user's line and
 * column, read through the source map compile.ts appended to the code; the
 * sandbox maps stack traces with the same map (isolate/sandbox/positions.js).
 *
 * The user's module wrapper receives the sandbox's `require` (Node built-ins
 * inside the isolate), `__filename` and `__dirname` from an outer function,
 * so the dispatcher still calls it as `(exports, module)`.
 */
import ivm from 'isolated-vm';
import { dispatcherSource } from './dispatcher.js';
import type { DispatcherSetup } from './handler-export.js';
import { USER_FILENAME } from './protocol.js';
import { installSandbox, type SandboxHandle, type SandboxTrace } from './sandbox/index.js';
import { originalPosition, splitSourceMap } from './source-map.js';

/** Prefix and suffix around user code; the prefix shares line 1 so that, without a map, line numbers stay the user's. */
const WRAP_HEAD = '(function (require, __filename, __dirname) { return function (exports, module) {';
const WRAP_TAIL = '\n}})';

export interface CompileError {
  message: string;
  line?: number;
  column?: number;
}

/**
 * Parses ivm's `Message [users-get.js:3:7]` suffix, correcting line 1's column for the
 * wrapper, then maps the position through the source map when there is one.
 */
export function compileErrorOf(err: unknown, mappings: string | null = null): CompileError {
  const raw = err instanceof Error ? err.message : String(err);
  const m = /^(.*) \[[^\]]*:(\d+):(\d+)\]$/s.exec(raw);
  if (!m) return { message: raw };
  let line = Number(m[2]);
  let column = Number(m[3]);
  if (line === 1) column = Math.max(1, column - WRAP_HEAD.length);
  const name = err instanceof Error && err.name ? err.name : 'SyntaxError';
  if (mappings !== null) {
    const at = originalPosition(mappings, line, column);
    if (!at) return { message: `${name}: ${m[1]}` };
    [line, column] = at;
  }
  return { message: `${name}: ${m[1]}`, line, column };
}

export class UserCompileError extends Error {
  /** `detail` travels as fields (the caller prints the position once); the message names the file too. */
  constructor(
    readonly detail: CompileError,
    file: string = USER_FILENAME,
  ) {
    super(detail.line ? `${detail.message} (${file}, line ${detail.line}, column ${detail.column})` : detail.message);
  }
}

/**
 * Context + sandbox + dispatcher + user code. Throws a UserCompileError when
 * the code does not compile, or an Error whose message explains a top-level
 * failure.
 */
export async function prepare(
  isolate: ivm.Isolate,
  code: string,
  env: Record<string, string>,
  timeoutMs: number,
  allowPrivateTargets: boolean,
  opts: {
    name: string;
    /** The export to call and the Lambda context's settings (handler-export.ts). */
    setup: DispatcherSetup;
    /** Receives results that settle after `dispatch` returned (see isolate/dispatcher.js); untrusted. */
    deliver: (text: unknown) => void;
    /** The sandbox's `emit` (a string returned is thrown as a refusal); absent in validation isolates, whose emits are dropped. */
    onEmit?: (event: string, dataJson: string, application?: string) => string | undefined;
    /** What the sandbox's fetch traces by (sandbox/index.ts); absent: fetches send no trace context. */
    trace?: SandboxTrace;
    /** Whether the sandbox counts its calls into the isolate (only the synchronous fast path reads them); default on. */
    countEntries?: boolean;
  },
): Promise<{ dispatch: ivm.Reference<(payload: string, mode: number) => string | null>; sandbox: SandboxHandle }> {
  const { code: script0, file, mappings } = splitSourceMap(code);
  const userFile = file ?? USER_FILENAME;
  const context = await isolate.createContext();
  const sandbox = await installSandbox(isolate, context, {
    env,
    allowPrivateTargets,
    onEmit: opts.onEmit,
    trace: opts.trace,
    countEntries: opts.countEntries,
    source: { file: userFile, mappings, firstLineOffset: WRAP_HEAD.length },
  });
  try {
    const deliverRef = new ivm.Reference(opts.deliver);
    const init = await context.evalClosure(dispatcherSource(), [deliverRef, opts.name, sandbox.hook.derefInto(), userFile], {
      // Named like the bootstrap, so stack traces show sandbox frames as ours, not as ivm's.
      filename: 'switchyard:dispatcher',
      result: { reference: true },
    });
    let script: ivm.Script;
    try {
      script = await isolate.compileScript(WRAP_HEAD + script0 + WRAP_TAIL, { filename: userFile });
    } catch (err) {
      throw new UserCompileError(compileErrorOf(err, mappings), userFile);
    }
    const outer = await script.run(context, { reference: true, timeout: timeoutMs });
    script.release();
    // The outer function only returns the wrapper (no user code runs yet): sync is cheap.
    const factory = outer.applySync(undefined, [sandbox.require.derefInto(), `/${userFile}`, '/'], {
      result: { reference: true },
    }) as ivm.Reference;
    outer.release();
    const dispatch = (await init.apply(undefined, [factory.derefInto(), JSON.stringify(opts.setup)], {
      timeout: timeoutMs,
      result: { reference: true },
    })) as ivm.Reference<(payload: string, mode: number) => string | null>;
    init.release();
    factory.release();
    return { dispatch, sandbox };
  } catch (err) {
    sandbox.dispose();
    throw err;
  }
}
