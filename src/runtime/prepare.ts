/**
 * Builds a function's context in an isolate: sandbox globals, the invocation
 * dispatcher, then the user's code (compiled as one wrapped script, its top
 * level run once). Shared by warm isolates (isolate-host.ts) and deploy-time
 * validation (worker.ts). Compile errors come back with the user's line and
 * column.
 */
import ivm from 'isolated-vm';
import { DISPATCHER_SOURCE } from './dispatcher.js';
import type { DispatcherSetup } from './handler-export.js';
import { USER_FILENAME } from './protocol.js';
import { installSandbox, type SandboxHandle } from './sandbox/index.js';

/** Prefix and suffix around user code; the prefix shares line 1 so line numbers stay the user's. */
const WRAP_HEAD = '(function (exports, module) {';
const WRAP_TAIL = '\n})';

export interface CompileError {
  message: string;
  line?: number;
  column?: number;
}

/** Parses ivm's `Message [function.js:3:7]` suffix, correcting line 1's column for the wrapper. */
export function compileErrorOf(err: unknown): CompileError {
  const raw = err instanceof Error ? err.message : String(err);
  const m = /^(.*) \[[^\]]*:(\d+):(\d+)\]$/s.exec(raw);
  if (!m) return { message: raw };
  const line = Number(m[2]);
  let column = Number(m[3]);
  if (line === 1) column = Math.max(1, column - WRAP_HEAD.length);
  const name = err instanceof Error && err.name ? err.name : 'SyntaxError';
  return { message: `${name}: ${m[1]}`, line, column };
}

export class UserCompileError extends Error {
  constructor(readonly detail: CompileError) {
    super(detail.line ? `${detail.message} (line ${detail.line}, column ${detail.column})` : detail.message);
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
    /** Receives results that settle after `dispatch` returned (see dispatcher.ts); untrusted. */
    deliver: (text: unknown) => void;
    /** The sandbox's `emit`; absent in validation isolates, whose emits are dropped. */
    onEmit?: (event: string, dataJson: string) => void;
  },
): Promise<{ dispatch: ivm.Reference<(payload: string) => string>; sandbox: SandboxHandle }> {
  const context = await isolate.createContext();
  const sandbox = await installSandbox(isolate, context, { env, allowPrivateTargets, onEmit: opts.onEmit });
  try {
    const deliverRef = new ivm.Reference(opts.deliver);
    const init = await context.evalClosure(DISPATCHER_SOURCE, [deliverRef, opts.name, sandbox.hook.derefInto()], {
      // Named like the bootstrap, so stack traces show sandbox frames as ours, not as ivm's.
      filename: 'switchyard:dispatcher',
      result: { reference: true },
    });
    let script: ivm.Script;
    try {
      script = await isolate.compileScript(WRAP_HEAD + code + WRAP_TAIL, { filename: USER_FILENAME });
    } catch (err) {
      throw new UserCompileError(compileErrorOf(err));
    }
    const factory = await script.run(context, { reference: true, timeout: timeoutMs });
    script.release();
    const dispatch = (await init.apply(undefined, [factory.derefInto(), JSON.stringify(opts.setup)], {
      timeout: timeoutMs,
      result: { reference: true },
    })) as ivm.Reference<(payload: string) => string>;
    init.release();
    factory.release();
    return { dispatch, sandbox };
  } catch (err) {
    sandbox.dispose();
    throw err;
  }
}
