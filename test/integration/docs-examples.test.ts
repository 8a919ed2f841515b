/**
 * Every shell example of README.md and docs/*.md, run with bash against a
 * demo server this test starts (real HTTP), as a reader would paste them.
 *
 * Conventions the docs follow (docs/architecture.md, "Docs examples"):
 * - Fenced `sh` / `bash` blocks run in the order of their page, each in a
 *   fresh bash; shell variables a block sets (`USERS_URL=$(...)`) are handed
 *   to the later blocks of the same page, which is how an example uses an id
 *   or URL from an earlier answer. `localhost:3000` and `127.0.0.1:3000` are
 *   replaced by the test server's address.
 * - `<!-- docs-test: skip (reason) -->` on the line before a fence: not run
 *   (installs, long-running servers, the test suite itself); still linted.
 * - `<!-- docs-test: expect 405 (reason) -->`: the block's requests may answer
 *   those statuses, and at least one does. Any other answer of 400 or more
 *   fails the block, as does a non-zero exit.
 * - Pasted into zsh and interactive bash, `#` does not start a comment (zsh
 *   without INTERACTIVE_COMMENTS passes it on as an argument) and `!` outside
 *   single quotes is a history expansion: blocks contain neither. bash runs
 *   with `failglob`, so an unquoted `?` or `*` in a URL fails here as it fails
 *   in zsh, and a command put in the background (an unquoted `&`) fails too.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const SHELLS = new Set(['sh', 'bash', 'shell']);
const MARKER = /^<!--\s*docs-test:\s*(skip|expect)\b(.*?)-->\s*$/;
/** Commands that must never run from here unmarked: they install, start servers or run this very suite. */
const NOT_HERE = /(^|[\s;&|(])(npm|npx|node\s+dist\/cli\.js|switchyard|apt-get|systemctl|sudo)(?=\s|$)/m;

interface Block {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  mode: 'run' | 'skip' | 'expect';
  reason: string;
  expected: number[];
}

function blocksOf(file: string): Block[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i]);
    if (marker && !/^```(sh|bash|shell)\s*$/.test(lines[i + 1] ?? '')) {
      throw new Error(`${file}:${i + 1}: a docs-test marker must stand on the line just before a sh fence`);
    }
    const fence = /^```(\S*)\s*$/.exec(lines[i]);
    if (!fence) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end++;
    if (SHELLS.has(fence[1])) {
      const previous = MARKER.exec(lines[i - 1] ?? '');
      const detail = previous?.[2].trim() ?? '';
      blocks.push({
        file,
        line: i + 1,
        code: lines.slice(i + 1, end).join('\n'),
        mode: previous ? (previous[1] as 'skip' | 'expect') : 'run',
        reason: detail.replace(/^[\d,\s]*/, '').replace(/^\((.*)\)$/, '$1'),
        expected: previous?.[1] === 'expect' ? (/^[\d,\s]+/.exec(detail)?.[0] ?? '').split(/[,\s]+/).filter(Boolean).map(Number) : [],
      });
    }
    i = end;
  }
  return blocks;
}

/** The block with its quoted strings blanked out, for the checks on what the shell itself reads. */
function unquoted(code: string, alsoDouble: boolean): string {
  let text = code.replace(/'[^']*'/g, "''");
  if (alsoDouble) text = text.replace(/"(?:\\.|[^"\\])*"/g, '""');
  return text;
}

/** What makes a block fail when pasted into zsh or an interactive bash, though `bash -c` would run it. */
function pasteProblems(code: string): string[] {
  const problems: string[] = [];
  if (/(^|\s)#/m.test(unquoted(code, true))) problems.push('a # comment (zsh does not treat it as one when pasted: say it in the text around the block)');
  if (unquoted(code, false).includes('!')) problems.push('a ! outside single quotes (history expansion when pasted)');
  return problems;
}

function syntaxError(shell: string, code: string): string | null {
  const res = spawnSync(shell, ['-n'], { input: code, encoding: 'utf8' });
  return res.status === 0 ? null : `${shell} -n: ${res.stderr.trim()}`;
}

const HAS_ZSH = spawnSync('zsh', ['-c', 'true']).status === 0;
const all = FILES.flatMap(blocksOf);

/**
 * Prepended to every run: strict mode, failglob (zsh's nomatch), every
 * assignment exported so the test can hand it on, and a curl that reports
 * each answer's status on stderr.
 */
const PRELUDE = `set -euo pipefail
shopt -s failglob
set -a
trap 'env -0 > "$DOCS_TEST_ENV_OUT"' EXIT
curl() { command curl -sS -w '%{stderr}docs-test: HTTP %{http_code}\\n' "$@"; }
`;
const EPILOGUE = `
if [ -n "\${!-}" ]; then echo 'docs-test: a command ran in the background (an unquoted & in a URL?)' >&2; exit 97; fi
`;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  statuses: number[];
  variables: Record<string, string>;
}

async function runBlock(block: Block, server: string, variables: Record<string, string>, workDir: string): Promise<Outcome> {
  const code = block.code.replace(/\b(localhost|127\.0\.0\.1):3000\b/g, server);
  const script = join(workDir, 'block.sh');
  const envOut = join(workDir, 'env.out');
  writeFileSync(script, PRELUDE + code + EPILOGUE);
  writeFileSync(envOut, '');
  const proc = spawn('bash', [script], {
    cwd: workDir,
    env: { PATH: process.env.PATH, HOME: workDir, LANG: 'C.UTF-8', ...variables, DOCS_TEST_ENV_OUT: envOut },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exitCode = await new Promise<number | null>((done) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    proc.once('exit', (c) => {
      clearTimeout(timer);
      done(c);
    });
  });
  // The variables the block assigns, as the shell ended with them.
  const assigned = new Set([...code.matchAll(/(?:^|[\s;(])([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]));
  const after: Record<string, string> = {};
  for (const entry of readFileSync(envOut, 'utf8').split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0 && assigned.has(entry.slice(0, eq))) after[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  const statuses = [...stderr.matchAll(/^docs-test: HTTP (\d{3})$/gm)].map((m) => Number(m[1]));
  return { code: exitCode, stdout, stderr, statuses, variables: after };
}

let svc: RunningService;
let server = '';
let workDir = '';
const ran: string[] = [];
const skipped: string[] = [];

beforeAll(async () => {
  svc = await startService({ args: ['--demo'] });
  // The demo loads after the server listens; its webhook comes last.
  await until(async () => {
    const webhooks = (await svc.request('GET', '/api/webhooks')).json;
    return Array.isArray(webhooks) && webhooks.length > 0;
  }, 'the demo to load', 20_000);
  server = new URL(svc.url).host;
  workDir = mkdtempSync(join(tmpdir(), 'switchyard-docs-'));
}, 40_000);

afterAll(async () => {
  await svc?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  console.log(
    `docs examples: ${ran.length} ran, ${skipped.length} skipped` +
      (skipped.length ? `\n  skipped: ${skipped.join('\n  skipped: ')}` : '') +
      (HAS_ZSH ? '' : '\n  zsh is not installed: checked with bash -n and the paste rules only'),
  );
});

describe('shell examples of README.md and docs/', () => {
  it('are found, and every skip names its reason', () => {
    expect(all.filter((b) => b.mode === 'run').length).toBeGreaterThanOrEqual(10);
    for (const block of all.filter((b) => b.mode !== 'run')) {
      expect(block.reason, `${block.file}:${block.line}: say why in the marker`).not.toBe('');
    }
    for (const block of all.filter((b) => b.mode === 'expect')) {
      expect(block.expected.length, `${block.file}:${block.line}: expect which statuses?`).toBeGreaterThan(0);
    }
  });

  it('parse in bash (and zsh when installed) and keep to what survives pasting', () => {
    const problems: string[] = [];
    for (const block of all) {
      const where = `${block.file}:${block.line}`;
      for (const problem of pasteProblems(block.code)) problems.push(`${where}: ${problem}`);
      const bash = syntaxError('bash', block.code);
      if (bash) problems.push(`${where}: ${bash}`);
      const zsh = HAS_ZSH ? syntaxError('zsh', block.code) : null;
      if (zsh) problems.push(`${where}: ${zsh}`);
      if (block.mode !== 'skip' && NOT_HERE.test(block.code)) {
        problems.push(`${where}: installs, starts a server or runs the tests: mark it <!-- docs-test: skip (reason) -->`);
      }
    }
    expect(problems).toEqual([]);
  });

  for (const file of FILES) {
    const blocks = all.filter((b) => b.file === file);
    if (blocks.length === 0) continue;
    it(`${file}: run against a demo server, in order, and answer no error they do not announce`, async () => {
      let variables: Record<string, string> = {};
      for (const block of blocks) {
        const where = `${block.file}:${block.line}`;
        if (block.mode === 'skip' || NOT_HERE.test(block.code)) {
          skipped.push(`${where} (${block.reason})`);
          continue;
        }
        const out = await runBlock(block, server, variables, workDir);
        const report = `${where}\n${block.code}\n--- exit ${out.code}\n--- stdout:\n${out.stdout}\n--- stderr:\n${out.stderr}`;
        expect(out.code, report).toBe(0);
        const unexpected = out.statuses.filter((s) => s >= 400 && !block.expected.includes(s));
        expect(unexpected, report).toEqual([]);
        for (const status of block.expected) expect(out.statuses, `${report}\n(expected a ${status})`).toContain(status);
        for (const [name, value] of Object.entries(out.variables)) {
          expect(value, `${report}\n(${name} is empty or undefined)`).not.toMatch(/^(|undefined|null)$/);
        }
        variables = { ...variables, ...out.variables };
        ran.push(where);
      }
    }, 60_000);
  }
});
