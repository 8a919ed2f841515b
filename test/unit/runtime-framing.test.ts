// Frames between the main process and runtime workers survive arbitrary chunking.
import { describe, expect, it } from 'vitest';
import { FrameDecoder, encodeFrame, splitFrame } from '../../src/runtime/framing.js';

function decodeAll(chunks: Buffer[]): string[] {
  const out: string[] = [];
  const d = new FrameDecoder((t) => out.push(t));
  for (const c of chunks) d.push(c);
  return out;
}

describe('runtime framing', () => {
  const texts = ['{"t":"inv"}\n[{"a":"é✓😀"}]', '', 'x'.repeat(70_000), '{"t":"res","r":[]}'];
  const wire = Buffer.concat(texts.map(encodeFrame));

  it('decodes several frames from one chunk', () => {
    expect(decodeAll([wire])).toEqual(texts);
  });

  it('decodes frames split at every possible byte boundary, including inside a UTF-8 character and the length', () => {
    for (let cut = 1; cut < 40; cut++) {
      expect(decodeAll([wire.subarray(0, cut), wire.subarray(cut)])).toEqual(texts);
    }
  });

  it('decodes a stream delivered in small chunks', () => {
    const chunks: Buffer[] = [];
    for (let i = 0; i < wire.length; i += 7) chunks.push(wire.subarray(i, i + 7));
    expect(decodeAll(chunks)).toEqual(texts);
  });

  it('splits header and raw body at the first newline', () => {
    expect(splitFrame('{"t":"inv"}\n["a\\nb"]')).toEqual(['{"t":"inv"}', '["a\\nb"]']);
    expect(splitFrame('{"t":"ret"}')).toEqual(['{"t":"ret"}', '']);
  });
});
