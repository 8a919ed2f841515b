// Sandbox globals for a function's isolate (worker process only). Stub: filled in shortly.
import type ivm from 'isolated-vm';

export interface SandboxOptions {
  env: Record<string, string>;
  allowPrivateTargets: boolean;
}

export async function installSandbox(
  _isolate: ivm.Isolate,
  _context: ivm.Context,
  _opts: SandboxOptions,
): Promise<{ dispose(): void }> {
  return { dispose() {} };
}
