/**
 * The CLI's output rules: colour only on a terminal and never with --no-color,
 * NO_COLOR or TERM=dumb; progress lines only on a terminal; tables aligned
 * by visible width (colour codes take no room); packages named from the
 * paths esbuild reports; text others wrote shown with its control characters
 * escaped.
 */
import { describe, expect, it } from 'vitest';
import { packageOf } from '../../src/cli/bundle.js';
import { createOutput, formatTable, wantsColor } from '../../src/cli/output.js';
import { CONTINUATION, terminalLine, terminalText } from '../../src/cli/terminal-text.js';

describe('terminal text', () => {
  it('shows every control character instead of obeying it: ESC, CSI, OSC, BEL, C1, CR, backspace, bidi', () => {
    expect(terminalText('a\x1b]0;title\x07b')).toBe('a\\x1b]0;title\\x07b');
    expect(terminalText('\x1b[2J\x1b[H')).toBe('\\x1b[2J\\x1b[H');
    expect(terminalText('\x9b31m\x9d0;t\x9c')).toBe('\\x9b31m\\x9d0;t\\x9c');
    expect(terminalText('ok\rforged\b\b\x7f\0')).toBe('ok\\rforged\\b\\b\\x7f\\0');
    expect(terminalText('abc\u202edcba\u2028x\u0085')).toBe('abc\\u202edcba\\u2028x\\x85');
    expect(terminalText('tab\tand é ünïcode ✓')).toBe('tab\tand é ünïcode ✓');
    for (let c = 0; c < 0xa0; c++) {
      const ch = String.fromCharCode(c);
      if (ch === '\t' || ch === '\n' || (c >= 0x20 && c < 0x7f)) continue;
      expect(terminalLine(ch), `U+${c.toString(16)}`).not.toContain(ch);
    }
  });

  it('a line break inside one line starts the next with the continuation mark, so it cannot pass for a line of its own', () => {
    expect(terminalLine('Error: x\n    at f (a.js:1:1)\r\n2026-01-01T00:00:00.000Z error forged')).toBe(
      `Error: x\n${CONTINUATION}    at f (a.js:1:1)\n${CONTINUATION}2026-01-01T00:00:00.000Z error forged`,
    );
  });
});

describe('wantsColor', () => {
  const tty = { write: () => true, isTTY: true };
  it('only on a terminal, and not when asked not to', () => {
    expect(wantsColor(tty, {}, true)).toBe(true);
    expect(wantsColor({ write: () => true }, {}, true)).toBe(false);
    expect(wantsColor(tty, {}, false)).toBe(false);
    expect(wantsColor(tty, { NO_COLOR: '1' }, true)).toBe(false);
    expect(wantsColor(tty, { NO_COLOR: '' }, true)).toBe(true);
    expect(wantsColor(tty, { TERM: 'dumb' }, true)).toBe(false);
  });
});

describe('progress', () => {
  it('goes to stderr on a terminal only: a pipe or a log file gets the result alone', () => {
    const run = (isTTY: boolean) => {
      const written: string[] = [];
      const out = createOutput({ stdout: { write: () => true }, stderr: { write: (t: string) => written.push(t), isTTY }, env: {}, json: false, color: true });
      out.progress('  1 of 3 resent (33 %)');
      return written;
    };
    expect(run(true)).toEqual(['  1 of 3 resent (33 %)\n']);
    expect(run(false)).toEqual([]);
  });
});

describe('formatTable', () => {
  it('pads every column but the last to its widest cell, ignoring colour codes', () => {
    const red = (s: string) => `\x1b[31m${s}\x1b[39m`;
    const text = formatTable(['ID', 'STATUS', 'NOTE'], [
      ['a', red('failed'), 'x'],
      ['long-id', 'ok', ''],
    ]);
    expect(text.replace(/\x1b\[[0-9;]*m/g, '')).toBe('ID       STATUS  NOTE\na        failed  x\nlong-id  ok\n');
  });
});

describe('packageOf', () => {
  it('names the package a path lies in, scoped or not, the innermost when nested', () => {
    expect(packageOf('/p/node_modules/left-pad/index.js')).toBe('left-pad');
    expect(packageOf('node_modules/@scope/pkg/lib/a.js')).toBe('@scope/pkg');
    expect(packageOf('/p/node_modules/a/node_modules/b/x.js')).toBe('b');
    expect(packageOf('/p/src/fn.js')).toBeNull();
  });
});
