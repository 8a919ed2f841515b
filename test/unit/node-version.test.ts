/**
 * The Node.js version check of the executable (src/node-version.ts): which
 * versions it refuses, what its one line says, and that package.json's
 * `engines` (and the lock's copy) keep to the one form it reads; a form it
 * could not read would turn the check off.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { minimumOf, nodeVersionProblem } from '../../src/node-version.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };

describe('nodeVersionProblem', () => {
  it('refuses a version below the minimum with one line naming the version found, the one needed and how to get it', () => {
    const line = nodeVersionProblem('20.20.2', '>=22.12');
    expect(line).toBe(
      'Node.js 20.20.2 is too old: Switchyard needs Node.js >=22.12; install the current LTS release from https://nodejs.org/ or with nvm (nvm install --lts) and run switchyard with it',
    );
    expect(line).not.toContain('\n');
    expect(nodeVersionProblem('v22.11.9', '>=22.12')).toContain('Node.js 22.11.9 is too old');
    expect(nodeVersionProblem('18.0.0', '>=22')).toContain('needs Node.js >=22;');
  });

  it('lets the minimum and anything newer through', () => {
    for (const v of ['22.12.0', '22.12.1', '22.22.0', '23.0.0', '24.21.0', 'v25.1.0', '100.0.0']) expect(nodeVersionProblem(v, '>=22.12'), v).toBeNull();
  });

  it('refuses nothing on a range or version it cannot read', () => {
    expect(nodeVersionProblem('20.0.0', '^22 || ^24')).toBeNull();
    expect(nodeVersionProblem('nightly', '>=22.12')).toBeNull();
  });
});

describe("package.json's engines", () => {
  it('is a >= range the check reads, and the lock says the same', () => {
    expect(minimumOf(pkg.engines.node)).toMatch(/^\d+\.\d+\.\d+$/);
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { engines?: { node?: string } }> };
    expect(lock.packages[''].engines?.node).toBe(pkg.engines.node);
  });

  it('npm installs refuse an older Node (.npmrc engine-strict)', () => {
    expect(readFileSync(join(ROOT, '.npmrc'), 'utf8')).toMatch(/^engine-strict=true$/m);
  });
});
