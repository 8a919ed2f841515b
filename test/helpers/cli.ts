/**
 * The real CLI (`node dist/cli.js`) as a child process, for the tests of what
 * a person sees and sends: its output as text (not parsed as JSON), its exit
 * code, and what service.ts does not offer: a process group of its own
 * (`detached`, as a terminal runs a job, so a test can signal the whole group)
 * and another user (`uid`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');

export interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CliRun {
  proc: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  exit: Promise<CliExit>;
  /** The first match of `pattern` in stdout and stderr; throws with the output so far after `ms` or at exit. */
  waitForOutput(pattern: RegExp, ms?: number): Promise<RegExpExecArray>;
  /** SIGKILLs what is left (the whole group when detached). */
  kill(): void;
}

const running = new Set<CliRun>();

export function runCli(
  args: string[],
  env: Record<string, string>,
  opts: { detached?: boolean; uid?: number; gid?: number } = {},
): CliRun {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const proc = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', SWITCHYARD_WORKERS: '2', SWITCHYARD_PROCESSES: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.detached ?? false,
    uid: opts.uid,
    gid: opts.gid,
  });
  let out = '';
  let err = '';
  let gone = false;
  const listeners = new Set<() => void>();
  const changed = () => listeners.forEach((l) => l());
  proc.stdout!.on('data', (c: Buffer) => ((out += c.toString()), changed()));
  proc.stderr!.on('data', (c: Buffer) => ((err += c.toString()), changed()));
  const exit = new Promise<CliExit>((done) =>
    proc.once('exit', (code, signal) => {
      running.delete(run);
      // 'exit', not 'close': the workers share these pipes. Let them drain before anyone reads the output.
      setTimeout(() => {
        gone = true;
        done({ code, signal });
        changed();
      }, 100);
    }),
  );
  const run: CliRun = {
    proc,
    pid: proc.pid!,
    stdout: () => out,
    stderr: () => err,
    exit,
    waitForOutput(pattern, ms = 20_000) {
      return new Promise((resolveMatch, reject) => {
        const check = () => {
          const m = pattern.exec(out + err);
          if (m) return finish(() => resolveMatch(m));
          if (gone) return finish(() => reject(new Error(`exited before printing ${pattern}:\n${out}${err}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`no ${pattern} within ${ms} ms:\n${out}${err}`))), ms);
        const finish = (then: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          then();
        };
        listeners.add(check);
        check();
      });
    },
    kill() {
      if (gone) return;
      try {
        if (opts.detached) process.kill(-proc.pid!, 'SIGKILL');
        else proc.kill('SIGKILL');
      } catch {
        /* already gone */
      }
    },
  };
  running.add(run);
  return run;
}

/** Starts the server and resolves once it listens, with its URL. */
export async function startCli(
  args: string[],
  env: Record<string, string>,
  opts: { detached?: boolean } = {},
): Promise<CliRun & { url: string }> {
  const run = runCli(args, env, opts);
  try {
    const m = await run.waitForOutput(/listening on (http:\/\/[0-9.:]+)/);
    return Object.assign(run, { url: m[1] });
  } catch (err) {
    run.kill();
    throw err;
  }
}

/** For afterAll: no test leaves a server behind, whatever it asserted. */
export function killLeftoverClis(): void {
  for (const run of running) run.kill();
}

/** Runs the CLI to its end (killed, and the test failed with its output, after `timeoutMs`): exit code and output. */
export async function runCliToEnd(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = runCli(args, env);
  const exit = await Promise.race([
    run.exit,
    new Promise<never>((_, reject) => setTimeout(() => (run.kill(), reject(new Error(`still running:\n${run.stdout()}${run.stderr()}`))), timeoutMs)),
  ]);
  return { code: exit.code, stdout: run.stdout(), stderr: run.stderr() };
}

/** Writes the folder `root/name` holding `files` (path in the folder -> text); returns its path. */
export function writeProject(root: string, name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}
