/**
 * The dependency lists stay honest: every runtime dependency of the server is
 * imported by its code (a declared one that nothing imports, as find-my-way
 * was, only makes installs bigger), and pino's transport library is one
 * version in the lockfile, shared by pino and pino-pretty.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('dependencies', () => {
  it('are each imported by the server, its client or its build scripts', () => {
    const code = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'scripts'))].map((f) => readFileSync(f, 'utf8')).join('\n');
    const unused = Object.keys(pkg.dependencies).filter((name) => {
      const quoted = name.replace(/[/.]/g, '\\$&');
      return !new RegExp(`(from |import\\()'${quoted}(/[^']*)?'`).test(code);
    });
    expect(unused).toEqual([]);
  });

  it('install one pino-abstract-transport, shared by pino and pino-pretty', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
    const copies = Object.entries(lock.packages)
      .filter(([path]) => path.endsWith('node_modules/pino-abstract-transport'))
      .map(([path, entry]) => `${path}@${entry.version}`);
    expect(copies).toHaveLength(1);
  });
});
