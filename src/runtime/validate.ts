/**
 * Deploy-time validation: compiles a function's code and runs its top level
 * once in a throwaway isolate, under its limits and env, and checks that the
 * export its `handler` names is there. Shared by the worker process
 * (worker.ts) and the in-process runtime (in-process.ts), which host it
 * wherever their isolates live.
 */
import ivm from 'isolated-vm';
import { dispatcherSetup } from './handler-export.js';
import { UserCompileError, prepare } from './prepare.js';
import type { ValidateOutcome } from './types.js';

export interface ValidateRequest {
  code: string;
  timeoutMs: number;
  memoryMb: number;
  env: Record<string, string>;
  handler: string | null;
}

export async function validateFunction(msg: ValidateRequest, allowPrivateTargets: boolean): Promise<ValidateOutcome> {
  const isolate = new ivm.Isolate({ memoryLimit: msg.memoryMb });
  let timer: NodeJS.Timeout | undefined;
  try {
    // ivm's timeout covers the synchronous top level; this covers the rest (context, sandbox).
    const overall = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), msg.timeoutMs + 2000);
    });
    const prepared = prepare(isolate, msg.code, msg.env ?? {}, msg.timeoutMs, allowPrivateTargets, {
      name: 'validate',
      // The export is chosen as the warm isolate will, so a missing one is refused at deploy.
      setup: dispatcherSetup(msg.handler ?? null, 0, msg.memoryMb),
      deliver: () => undefined,
      // No onEmit: top-level emits at deploy are checked (bad names still throw, as they
      // would in the warm isolate) but dropped; a deploy is not an event source.
    });
    prepared.catch(() => undefined);
    const { sandbox, dispatch } = await Promise.race([prepared, overall]);
    dispatch.release();
    sandbox.dispose();
    return { ok: true };
  } catch (err) {
    if (err instanceof UserCompileError) return { ok: false, ...err.detail };
    const message = err instanceof Error ? err.message : String(err);
    if (/memory limit/.test(message)) {
      return { ok: false, message: `top-level code exceeded the memory limit of ${msg.memoryMb} MB` };
    }
    if (/timed out/.test(message)) {
      return { ok: false, message: `top-level code timed out after ${msg.timeoutMs} ms` };
    }
    // The position moves from the message to its own fields (the caller prints it once).
    const at = /\s*\((?:[^(),]+, )?line (\d+), column (\d+)\)$/.exec(message);
    return at
      ? { ok: false, message: message.slice(0, at.index), line: Number(at[1]), column: Number(at[2]) }
      : { ok: false, message };
  } finally {
    clearTimeout(timer);
    if (!isolate.isDisposed) isolate.dispose();
  }
}
