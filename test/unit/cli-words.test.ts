/**
 * The CLI's words for people: counts with their plural, arguments quoted as
 * a POSIX shell reads them back (checked with a real sh), names matched
 * exactly, in any case or by a unique start, and "did you mean".
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandLine, counted, shellArg } from '../../src/cli/words.js';
import { matchName, pickName } from '../../src/cli/name-match.js';
import { closest } from '../../src/did-you-mean.js';

describe('counted', () => {
  it('says 1 function, 2 functions, 1 API, 3 APIs', () => {
    expect(counted(1, 'function')).toBe('1 function');
    expect(counted(0, 'function')).toBe('0 functions');
    expect(counted(1, 'API')).toBe('1 API');
    expect(counted(3, 'API')).toBe('3 APIs');
    expect(counted(2, 'child', 'children')).toBe('2 children');
  });
});

describe('shellArg', () => {
  it('leaves plain words alone and quotes the rest so sh reads back the same argument', () => {
    expect(shellArg('order-sync')).toBe('order-sync');
    expect(shellArg('Demo: a user sign-up')).toBe("'Demo: a user sign-up'");
    const hard = ["it's", 'a "b" $HOME `x` \\ ;&|*?', '', 'line\nbreak', '-n'];
    for (const value of hard) {
      const out = execFileSync('sh', ['-c', `printf '%s' ${shellArg(value)}`]).toString();
      expect(out).toBe(value);
    }
    expect(commandLine('deliveries', "Bob's hook")).toBe("switchyard deliveries 'Bob'\\''s hook'");
  });
});

describe('matchName', () => {
  const names = ['greet', 'greet-twice', 'Hello', 'hello', 'broken'];
  it('exact first, then any case, then a unique start; several are ambiguous', () => {
    expect(matchName('greet', names)).toEqual({ kind: 'exact', name: 'greet' });
    expect(matchName('BROKEN', names)).toEqual({ kind: 'case', name: 'broken' });
    expect(matchName('bro', names)).toEqual({ kind: 'prefix', name: 'broken' });
    expect(matchName('GREET-T', names)).toEqual({ kind: 'prefix', name: 'greet-twice' });
  });
  it('an ambiguous case or start lists the candidates; nothing matching is none', () => {
    expect(matchName('HELLO', names)).toEqual({ kind: 'ambiguous', candidates: ['Hello', 'hello'] });
    expect(matchName('gre', names)).toEqual({ kind: 'ambiguous', candidates: ['greet', 'greet-twice'] });
    expect(matchName('zzz', names)).toEqual({ kind: 'none' });
    expect(() => pickName('gre', names, 'function')).toThrow("'gre' matches 2 functions: 'greet', 'greet-twice'; give more of the name");
    expect(pickName('zzz', names, 'function')).toBeNull();
  });
});

describe('closest', () => {
  it('a typo, a swap, or the only word the typed one starts', () => {
    expect(closest('fucntions', ['version', 'env_from', 'functions', 'apis', 'webhooks'])).toBe('functions');
    expect(closest('--prot', ['--port', '--host', '--demo'])).toBe('--port');
    expect(closest('timeout', ['file', 'timeout_ms', 'memory_mb'])).toBe('timeout_ms');
    expect(closest('zzzz', ['file', 'handler'])).toBeNull();
    expect(closest('ab', ['cd', 'ef'])).toBeNull();
  });
});
