/**
 * The error registry (src/errors.ts ERRORS) and docs/errors.md say the same:
 * every code of the registry is documented with its status, and every code the
 * HTTP tables document is in the registry with that status.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  ERRORS,
  ERROR_CODES,
  INVOCATION_ERROR_CODES,
  INVOCATION_ERROR_STATUS,
  NotFoundError,
  functionExists,
  routeConflict,
  type ErrorCode,
} from '../../src/errors.js';
import { CLI_ERRORS } from '../../src/cli/errors.js';
import { PrivateTargetError } from '../../src/net/ssrf.js';

const docs = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

/** Every row of the tables before "At start-up" (start-up and CLI codes come after and have no status). */
function documentedRows(): Array<{ code: string; status: number }> {
  const http = docs.slice(0, docs.indexOf('\n## At start-up'));
  return [...http.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => ({ code: m[1], status: Number(m[2]) }));
}

/** The codes of the command line's tables (its section is the last). */
function documentedCliCodes(): string[] {
  const cli = docs.slice(docs.indexOf("\n## The command line's project verbs"));
  return [...new Set([...cli.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]))];
}

describe('error registry', () => {
  it('matches docs/errors.md both ways, status included', () => {
    const rows = documentedRows();
    expect(rows.length).toBeGreaterThan(40);
    const registry = ERRORS as Record<string, { status: number }>;
    expect(rows.filter((r) => !(r.code in registry)), 'documented in docs/errors.md, missing from ERRORS').toEqual([]);
    expect(
      rows.filter((r) => registry[r.code]?.status !== r.status).map((r) => `${r.code}: documented ${r.status}, registry ${registry[r.code]?.status}`),
      'documented with another status than the registry',
    ).toEqual([]);
    const documented = new Set(rows.map((r) => r.code));
    expect(ERROR_CODES.filter((c) => !documented.has(c)), 'in ERRORS, not documented in docs/errors.md').toEqual([]);
  });

  it("matches the command line's codes in docs/errors.md both ways", () => {
    const documented = documentedCliCodes();
    expect(documented.length).toBeGreaterThan(10);
    expect(documented.filter((c) => !(c in CLI_ERRORS)), 'documented, missing from CLI_ERRORS').toEqual([]);
    expect(Object.keys(CLI_ERRORS).filter((c) => !documented.includes(c)), 'in CLI_ERRORS, not documented').toEqual([]);
  });

  it('gives every code a summary, and ERROR_CODES lists the registry once each', () => {
    expect(ERROR_CODES).toEqual(Object.keys(ERRORS));
    for (const code of ERROR_CODES) expect(ERRORS[code].message.length, code).toBeGreaterThan(5);
  });

  it('builds the classes from the registry', () => {
    const err = functionExists('f');
    expect(err).toBeInstanceOf(ConflictError);
    expect([err.code, err.status, err.message]).toEqual(['function_exists', 409, "Function 'f' already exists"]);
    expect(routeConflict({ method: 'GET', path: '/a' }, { id: 'rt_1', method: 'GET', path: '/:b' }).details).toEqual({ route: 'rt_1' });
    expect(new NotFoundError('not_found').message).toBe(ERRORS.not_found.message);
    const privateTarget = new PrivateTargetError('no');
    expect([privateTarget.name, privateTarget.code, privateTarget.status]).toEqual(['PrivateTargetError', 'private_target', 400]);
    for (const code of INVOCATION_ERROR_CODES) expect(INVOCATION_ERROR_STATUS[code]).toBe(ERRORS[code].status);
    // Only codes of the class's status type-check.
    // @ts-expect-error function_exists is a 409
    void new NotFoundError('function_exists' satisfies ErrorCode, 'x');
  });
});
