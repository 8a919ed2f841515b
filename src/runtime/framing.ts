/**
 * Length-prefixed text frames over the main <-> worker socketpair (fd 3).
 * A frame is a 4-byte little-endian byte length followed by UTF-8 text; the
 * text is `headerJson` or `headerJson + "\n" + body` (JSON.stringify never
 * emits a raw newline, so the first one splits header from body). Bodies are
 * spliced in raw so an event serialised once by the gateway is never re-encoded.
 */

export function encodeFrame(text: string): Buffer {
  const n = Buffer.byteLength(text);
  const buf = Buffer.allocUnsafe(4 + n);
  buf.writeUInt32LE(n, 0);
  buf.write(text, 4);
  return buf;
}

/** Splits `header\nbody`; body is '' when absent. */
export function splitFrame(text: string): [header: string, body: string] {
  const nl = text.indexOf('\n');
  return nl < 0 ? [text, ''] : [text.slice(0, nl), text.slice(nl + 1)];
}

/**
 * Reassembles frames from socket chunks. Chunks are kept in a list until a
 * whole frame is there, so a large frame arriving in many chunks is copied once.
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly onFrame: (text: string) => void) {}

  push(chunk: Buffer): void {
    if (this.buffered === 0) {
      // Fast path: the chunk holds whole frames (the usual case for small messages).
      let off = 0;
      while (chunk.length - off >= 4) {
        const len = chunk.readUInt32LE(off);
        if (chunk.length - off - 4 < len) break;
        this.onFrame(chunk.toString('utf8', off + 4, off + 4 + len));
        off += 4 + len;
      }
      if (off < chunk.length) {
        this.chunks.push(off === 0 ? chunk : chunk.subarray(off));
        this.buffered = chunk.length - off;
      }
      return;
    }
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (this.buffered < 4) return;
    let head = this.chunks[0];
    if (head.length < 4) head = this.merge();
    const need = 4 + head.readUInt32LE(0);
    if (this.buffered < need) return;
    const all = this.merge();
    this.chunks = [];
    this.buffered = 0;
    this.push(all);
  }

  private merge(): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.buffered);
    this.chunks = [all];
    return all;
  }
}
