// The dispatcher's text as the sandbox build writes it from src/runtime/isolate/dispatcher.js:
// the host's constants spliced in, the type-only lines gone, nothing left of the wrapper.
import { describe, expect, it } from 'vitest';
import { DISPATCHER_PLACEHOLDERS, MAX_LOG_LINES, dispatcherSource } from '../../src/runtime/dispatcher.js';

describe('dispatcher source', () => {
  it('is the closure body with every placeholder filled and no annotation line', () => {
    const text = dispatcherSource();
    expect(text.startsWith("\n'use strict';\nconst deliver = $0;\n")).toBe(true);
    expect(text.endsWith('  return dispatch;\n};\n')).toBe(true);
    expect(text).toContain(`const MAX_LINES = ${MAX_LOG_LINES};`);
    expect(text).toContain(`:${DISPATCHER_PLACEHOLDERS.AWS_ACCOUNT_ID}:function:`);
    expect(text).not.toMatch(/__[A-Z_]+__|\/\*\* @|\/\/ @ts-|isolate source/);
  });
});
