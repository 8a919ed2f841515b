/**
 * The CLI's output rules: colour only on a terminal and never with --no-color,
 * NO_COLOR or TERM=dumb; tables aligned by visible width (colour codes take
 * no room); packages named from the paths esbuild reports.
 */
import { describe, expect, it } from 'vitest';
import { packageOf } from '../../src/cli/bundle.js';
import { formatTable, wantsColor } from '../../src/cli/output.js';

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
