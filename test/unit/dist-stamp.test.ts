/**
 * When `npm run demo` builds first (scripts/dist-stamp.mjs): only when
 * dist/build-stamp is missing or a build input is newer than it. Run on a
 * folder laid out as the checkout, with file times set explicitly.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { staleReason, writeStamp } from '../../scripts/dist-stamp.mjs';

let root: string;
const at = (rel: string, seconds: number, text = '') => {
  const file = join(root, rel);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  utimesSync(file, seconds, seconds);
};
const stampAt = (seconds: number) => {
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeStamp(root);
  utimesSync(join(root, 'dist', 'build-stamp'), seconds, seconds);
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'switchyard-dist-stamp-'));
  at('package.json', 1000, '{}');
  at('package-lock.json', 1000, '{}');
  at('tsconfig.build.json', 1000, '{}');
  at('src/cli.ts', 1000);
  at('src/cli/dev.ts', 1000);
  at('dashboard/src/app.tsx', 1000);
  at('scripts/build-sandbox.mjs', 1000);
  at('schema/switchyard.schema.json', 1000);
  at('examples/functions/hello.js', 1000);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('staleReason', () => {
  it('is null after a complete build, when no input changed since', () => {
    stampAt(2000);
    expect(staleReason(root)).toBeNull();
  });

  it('asks for a build when there is no stamp (never built, a failed build, dist/ deleted)', () => {
    expect(staleReason(root)).toBe('dist/build-stamp is missing (no complete build yet)');
    stampAt(2000);
    rmSync(join(root, 'dist'), { recursive: true });
    expect(staleReason(root)).toContain('missing');
  });

  it('names the input saved after the build, deep in a folder or at the top', () => {
    stampAt(2000);
    at('src/cli/dev.ts', 3000);
    expect(staleReason(root)).toBe('src/cli/dev.ts changed after the last build');
    stampAt(4000);
    at('dashboard/src/app.tsx', 5000);
    expect(staleReason(root)).toBe('dashboard/src/app.tsx changed after the last build');
    stampAt(6000);
    at('package-lock.json', 7000, '{}');
    expect(staleReason(root)).toBe('package-lock.json changed after the last build');
    stampAt(8000);
    at('src/new-module.ts', 9000);
    expect(staleReason(root)).toBe('src/new-module.ts changed after the last build');
  });

  it('does not build for what the build does not read (the examples dev serves as they are)', () => {
    stampAt(2000);
    at('examples/functions/hello.js', 3000);
    at('README.md', 3000);
    expect(staleReason(root)).toBeNull();
  });
});
