/**
 * The host's side of the Node modules that cannot run inside the isolate
 * (`hostNode(op, optionsJson, bytes)`, one ivm.Callback per context, see
 * index.ts): brotli, which has no maintained pure-JS port, done by the host's
 * zlib. Only data crosses: an op name, JSON options and bytes in; bytes, or
 * `{ error, code }` JSON text, out. Output is capped, so a decompression bomb
 * costs the host at most HOST_NODE_MAX_OUTPUT bytes.
 */
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/** The most bytes one host operation answers (a function's own memory limit does not cover the host's). */
export const HOST_NODE_MAX_OUTPUT = 64 * 1024 * 1024;

function asBytes(x: unknown): Uint8Array | null {
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  return null;
}

/** Brotli `params` as Node takes them: numeric keys (BROTLI_PARAM_*) to numbers; anything else is dropped. */
function brotliParams(json: unknown): Record<number, number> {
  const out: Record<number, number> = {};
  if (typeof json !== 'string') return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return out;
  }
  const params = (parsed as { params?: unknown } | null)?.params;
  if (!params || typeof params !== 'object') return out;
  const known = new Set(Object.entries(constants).filter(([k]) => k.startsWith('BROTLI_PARAM_')).map(([, v]) => v));
  for (const [k, v] of Object.entries(params)) {
    if (known.has(Number(k)) && typeof v === 'number' && Number.isFinite(v)) out[Number(k)] = v;
  }
  return out;
}

const failure = (err: unknown) => JSON.stringify({ error: err instanceof Error ? err.message : String(err), code: (err as { code?: string }).code ?? 'ERR_HOST_OPERATION' });

export function hostNode(op: unknown, optionsJson: unknown, data: unknown): ArrayBuffer | string {
  const bytes = asBytes(data);
  if (!bytes) return failure(new TypeError('hostNode: bytes expected'));
  try {
    let out: Buffer;
    if (op === 'brotliCompress') out = brotliCompressSync(bytes, { params: brotliParams(optionsJson), maxOutputLength: HOST_NODE_MAX_OUTPUT });
    else if (op === 'brotliDecompress') out = brotliDecompressSync(bytes, { params: brotliParams(optionsJson), maxOutputLength: HOST_NODE_MAX_OUTPUT });
    else return failure(new TypeError(`hostNode: unknown operation ${String(op)}`));
    return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength) as ArrayBuffer;
  } catch (err) {
    return failure(err);
  }
}
