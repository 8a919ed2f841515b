/**
 * Starts the real Switchyard (`node dist/cli.js`) as a child process on a free
 * port with a temporary SQLite file (or, with TEST_STORE=postgres, a fresh schema
 * of the test PostgreSQL), and speaks HTTP to it. Tests build first (`npm test`
 * runs `npm run build`). The temporary files live in the run's folder, which
 * test/global-setup.ts removes at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FLUSH_MS } from '../../src/logger.js';
import { checkAnswer } from './openapi-check.js';
import { pgSchemaUrl } from './test-database.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');

/**
 * The server's output once its log has been flushed: JSON lines are written in
 * batches at most FLUSH_MS late (src/logger.ts), so a check that a line is
 * absent reads after a flush, or it could pass on a line not yet written.
 */
export async function flushedOutput(svc: { output: string[] }): Promise<string> {
  await new Promise((r) => setTimeout(r, FLUSH_MS * 2 + 100));
  return svc.output.join('');
}

export interface RunningService {
  url: string;
  /** The dashboard and management API: `url` unless SWITCHYARD_ADMIN_ADDRESS gives them their own listener. */
  adminUrl: string;
  /** GET /metrics's own listener (SWITCHYARD_METRICS_ADDRESS), when it has one. */
  metricsUrl?: string;
  dbUrl: string;
  proc: ChildProcess;
  output: string[];
  /** SIGTERM and wait for exit; returns the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpAnswer>;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** `TEST_STORE=postgres` runs the HTTP suites on PostgreSQL (a fresh schema per service). */
export const TEST_STORE: 'sqlite' | 'postgres' = process.env.TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

export function tempDbUrl(): string {
  if (TEST_STORE === 'postgres') return pgSchemaUrl('it').url;
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-test-'));
  return `sqlite:${join(dir, 'switchyard.db')}`;
}

export interface StartOptions {
  dbUrl?: string;
  env?: Record<string, string>;
  args?: string[];
  /**
   * Check every answer of `request()` against the OpenAPI document
   * (test/helpers/openapi-check.ts): on by default, so a test whose call gets an
   * answer the document does not describe fails. Off for tests that send what
   * no client would.
   */
  checkAnswers?: boolean;
  /** How long the server may take to say it listens (default 20 s; a cluster of several processes on a busy machine takes longer). */
  startTimeoutMs?: number;
}

export async function startService(opts: StartOptions = {}): Promise<RunningService> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const dbUrl = opts.dbUrl ?? tempDbUrl();
  const proc = spawn(process.execPath, [CLI, ...(opts.args ?? [])], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: dbUrl,
      LOG_LEVEL: 'info',
      SWITCHYARD_WORKERS: '2',
      // One server process unless a test asks for more (test/integration/processes.test.ts).
      SWITCHYARD_PROCESSES: '1',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  let adminUrl: string | undefined;
  let metricsUrl: string | undefined;
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      // Never leave a half-started server behind (it would hold ports and CPU for later tests).
      proc.kill('SIGKILL');
      reject(new Error(`server did not start:\n${output.join('')}`));
    }, opts.startTimeoutMs ?? 20000);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output.push(text);
      const m = /"url":"(http:\/\/[^"]+)"/.exec(text);
      if (m && text.includes('listening on')) {
        clearTimeout(timer);
        adminUrl = /"adminUrl":"(http:\/\/[^"]+)"/.exec(text)?.[1];
        metricsUrl = /"metricsUrl":"(http:\/\/[^"]+)"/.exec(text)?.[1];
        resolveUrl(m[1]);
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', (c: Buffer) => output.push(c.toString()));
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output.join('')}`));
    });
  });

  const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      if (typeof body === 'string' || body instanceof Uint8Array) init.body = body as NonNullable<RequestInit['body']>;
      else {
        init.body = JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
      }
    }
    const res = await fetch(url + path, init);
    const text = await res.text();
    if (opts.checkAnswers !== false && method !== 'HEAD') {
      checkAnswer(method, path, res.status, res.headers.get('content-type'), text);
    }
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, text, json };
  };

  const stop = (signal: NodeJS.Signals = 'SIGTERM') =>
    new Promise<number | null>((done) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return done(proc.exitCode);
      proc.removeAllListeners('exit');
      proc.once('exit', (code) => done(code));
      proc.kill(signal);
    });

  return { url, adminUrl: adminUrl ?? url, ...(metricsUrl ? { metricsUrl } : {}), dbUrl, proc, output, stop, request };
}
