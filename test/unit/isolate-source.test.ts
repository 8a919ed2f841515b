// The isolate code as the sandbox build writes it from src/runtime/isolate/: the host's
// constants spliced in, the type-only lines gone, nothing left of the wrappers.
import { describe, expect, it } from 'vitest';
import { DISPATCHER_PLACEHOLDERS, MAX_LOG_LINES, dispatcherSource } from '../../src/runtime/dispatcher.js';
import { SANDBOX_PLACEHOLDERS, bootstrapSource } from '../../src/runtime/sandbox/bootstrap.js';

describe('isolate source', () => {
  it("is the dispatcher's closure body with every placeholder filled and no annotation line", () => {
    const text = dispatcherSource();
    expect(text.startsWith("\n'use strict';\nconst deliver = $0;\n")).toBe(true);
    expect(text.endsWith('  return dispatch;\n};\n')).toBe(true);
    expect(text).toContain(`const MAX_LINES = ${MAX_LOG_LINES};`);
    expect(text).toContain(`:${DISPATCHER_PLACEHOLDERS.AWS_ACCOUNT_ID}:function:`);
    expect(text).not.toMatch(/__[A-Z_]+__|\/\*\* @|\/\/ @ts-|isolate source/);
  });

  it("splices the sandbox's parts into the bootstrap the same way", () => {
    const text = bootstrapSource();
    expect(text).toContain(`const RESERVED = ${SANDBOX_PLACEHOLDERS.EMIT_RESERVED_PREFIX_JSON};`);
    expect(text).toContain("def('DOMException', DOMException);");
    expect(text).not.toMatch(/__EMIT_|__MAX_JSON_DEPTH__|\/\*\* @type|\/\/ @ts-|isolate source/);
  });
});
