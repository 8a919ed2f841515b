/**
 * The client package as users get it: `npm pack` of packages/client (built by
 * `npm run build`), installed from the tarball into an empty folder (its
 * dependencies from the registry, as a user's install fetches them, and none
 * of the server's), then a script there, and a TypeScript file type-checked
 * there, use it against a running server. Catches a file missing from the
 * package, a dependency it uses but does not declare, a native or server
 * dependency creeping in, and declarations that do not resolve on their own.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..', '..');
const PACKAGE = join(ROOT, 'packages', 'client');
const KEY = 'client-package-key';
let dir: string;
let app: string;
let files: string[];
let svc: RunningService;

/** Every file under `folder`, relative to it. */
function walk(folder: string, prefix = ''): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(folder, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-client-pack-'));
  const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PACKAGE });
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  files = info.files.map((f) => f.path).sort();
  app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'client-pack-test-app', version: '1.0.0', private: true, type: 'module' }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(dir, info.filename)], { cwd: app, timeout: 240_000 });
  svc = await startService({ env: { SWITCHYARD_ADMIN_KEY: KEY } });
}, 300_000);

afterAll(async () => {
  await svc?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('@switchyard-gateway/client, packed and installed on its own', () => {
  it('ships its built files and declarations only', () => {
    expect(files).toEqual([
      'LICENSE',
      'README.md',
      'dist/errors.d.ts',
      'dist/errors.js',
      'dist/events.d.ts',
      'dist/events.js',
      'dist/index.d.ts',
      'dist/index.js',
      'dist/resources.d.ts',
      'dist/resources.js',
      'dist/schema.d.ts',
      'package.json',
    ]);
  });

  it('brings openapi-fetch and eventsource-parser and nothing of the server: no native code, under a megabyte', () => {
    const modules = join(app, 'node_modules');
    const installed = readdirSync(modules)
      .filter((name) => !name.startsWith('.'))
      .flatMap((name) => (name.startsWith('@') ? readdirSync(join(modules, name)).map((sub) => `${name}/${sub}`) : [name]))
      .sort();
    expect(installed).toEqual(['@switchyard-gateway/client', 'eventsource-parser', 'openapi-fetch', 'openapi-typescript-helpers']);
    const all = walk(modules);
    expect(all.filter((f) => f.endsWith('.node'))).toEqual([]);
    const bytes = all.reduce((sum, f) => sum + statSync(join(modules, f)).size, 0);
    expect(bytes).toBeLessThan(1024 * 1024);
    // The same ranges as the server's own, so the two never pull different versions.
    const own = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
    const server = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
    for (const [name, range] of Object.entries(own.dependencies)) expect(range, name).toBe(server.dependencies[name]);
    expect(own.version).toBe(server.version);
  });

  it('calls a running server from a script in that folder', async () => {
    const script = `
      import { createClient, SwitchyardApiError } from '@switchyard-gateway/client';
      const client = createClient({ baseUrl: process.env.URL, adminKey: process.env.KEY });
      const code = "exports.handler = async () => ({ statusCode: 200, body: 'packed' });";
      const plan = await client.functions.create.plan({ name: 'packed', code });
      const fn = await client.functions.create({ name: 'packed', code });
      await client.functions.create({ name: 'packed-2', code });
      const names = [];
      for await (const f of client.functions.list({ limit: 1 })) names.push(f.name);
      const ran = await client.functions.invoke('packed');
      let code404;
      try { await client.functions.get('nobody'); } catch (err) { code404 = err instanceof SwitchyardApiError ? err.code : String(err); }
      console.log(JSON.stringify({ plan: plan.action, version: fn.version, names, result: ran.result, code404 }));
    `;
    const out = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: app, env: { ...process.env, URL: svc.url, KEY } });
    expect(JSON.parse(out.stdout)).toEqual({
      plan: 'create',
      version: 1,
      names: ['packed', 'packed-2'],
      result: { statusCode: 200, body: 'packed' },
      code404: 'function_not_found',
    });
  });

  it('type-checks a program there with its own declarations: resources typed, error codes a union', async () => {
    writeFileSync(
      join(app, 'program.ts'),
      `import { createClient, SwitchyardApiError, type ErrorCode, type Schemas } from '@switchyard-gateway/client';
const client = createClient({ baseUrl: 'http://localhost:3000' });
export async function main(): Promise<string> {
  const fn: Schemas['Function'] = await client.functions.create({ name: 'a', code: 'x' });
  const plan: Schemas['DryRun'] = await client.functions.create.plan({ name: 'a', code: 'x' });
  const page = await client.GET('/api/functions', { params: { query: { limit: 10 } } });
  try {
    await client.functions.delete('a');
  } catch (err) {
    if (err instanceof SwitchyardApiError) {
      const code: ErrorCode = err.code;
      // @ts-expect-error a code the API does not have
      const wrong: ErrorCode = 'no_such_code';
      return code + wrong;
    }
  }
  return fn.name + plan.action + String(page.data?.length);
}
`,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM', 'DOM.Iterable'], types: [], skipLibCheck: false },
        files: ['program.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app }).catch((err: { stdout: string }) => err);
    expect(checked.stdout).toBe('');
  }, 60_000);
});
