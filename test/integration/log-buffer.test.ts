/**
 * The buffered JSON log (src/logger.ts): lines are joined into writes of at
 * most PIPE_BUF bytes, so a real server's stdout must still get a lone line
 * soon after traffic stops (the flush timer), every line written before a
 * SIGTERM stop (the flush on exit), and, with two server processes sharing
 * one stdout pipe under load, only whole lines: every line parses as JSON and
 * none is lost.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { killLeftoverClis, startCli, type CliRun } from '../helpers/cli.js';
import { tempDbUrl } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const ECHO = `exports.handler = async () => ({ statusCode: 200, body: { ok: true } });`;

afterAll(() => killLeftoverClis());

async function post(base: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.text()).toBe(201);
}

/** Deploys a function and an API routing to it; the invocation path prefix. */
async function deployEcho(base: string): Promise<string> {
  await post(base, '/api/functions', { name: 'echo', code: ECHO });
  const res = await fetch(base + '/api/apis', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'shop', basePath: '/shop', routes: [{ method: 'GET', path: '/items/:id', function: 'echo' }] }),
  });
  const api = (await res.json()) as { id: string };
  expect(res.status).toBe(201);
  return `/api/invoke/fn/${api.id}/shop/items`;
}

function invoke(base: string, prefix: string, requestId: string, pad = ''): Promise<number> {
  return fetch(`${base}${prefix}/${requestId}${pad ? `?pad=${pad}` : ''}`, { headers: { 'x-request-id': requestId } }).then(async (r) => {
    await r.arrayBuffer();
    return r.status;
  });
}

/** stdout's lines, each parsed (a line that is not JSON fails the test, naming it). */
function stdoutLines(run: CliRun): Record<string, unknown>[] {
  const text = run.stdout();
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  return complete
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        throw new Error(`a stdout line is not JSON: ${l.slice(0, 300)}`);
      }
    });
}

const accessIds = (run: CliRun) => new Set(stdoutLines(run).filter((l) => l.type === 'access').map((l) => l.requestId as string));

describe('the buffered JSON log', () => {
  it('writes a lone line soon after traffic stops, and every line on a SIGTERM stop', async () => {
    const run = await startCli([], { DATABASE_URL: tempDbUrl(), LOG_FORMAT: 'json' });
    const prefix = await deployEcho(run.url);
    // One line: far below the buffer's size, it is written by the flush timer alone.
    expect(await invoke(run.url, prefix, 'lone-1')).toBe(200);
    await until(() => accessIds(run).has('lone-1'), 'the lone access line');

    const ids = Array.from({ length: 40 }, (_, i) => `burst-${i}`);
    for (const id of ids) expect(await invoke(run.url, prefix, id)).toBe(200);
    run.proc.kill('SIGTERM');
    expect((await run.exit).code).toBe(0);
    const seen = accessIds(run);
    expect(ids.filter((id) => !seen.has(id))).toEqual([]);
    expect(stdoutLines(run).at(-1)?.msg).toBe('stopped');
  }, 90_000);

  it.skipIf(process.platform !== 'linux')('two server processes on one stdout pipe under load write only whole lines', async () => {
    const run = await startCli([], { DATABASE_URL: tempDbUrl(), LOG_FORMAT: 'json', SWITCHYARD_PROCESSES: '2', SWITCHYARD_WORKERS: '1' });
    // startCli resolves on the primary's line; both processes are ready by then.
    const prefix = await deployEcho(run.url);
    // Lines of about 1 KB: several to a write, and a write boundary near most lines' ends.
    const pad = 'x'.repeat(900);
    const ids = Array.from({ length: 1200 }, (_, i) => `load-${i}`);
    let next = 0;
    const worker = async () => {
      while (next < ids.length) expect(await invoke(run.url, prefix, ids[next++], pad)).toBe(200);
    };
    // The reader stops for a while, as a slow log shipper does: the pipe fills, and a write then goes in
    // only partly unless it is at most PIPE_BUF, which is where two processes' lines could mix.
    run.proc.stdout!.pause();
    const resume = setTimeout(() => run.proc.stdout!.resume(), 1500);
    await Promise.all(Array.from({ length: 16 }, worker));
    clearTimeout(resume);
    run.proc.stdout!.resume();
    const pids = await until(() => {
      const lines = stdoutLines(run).filter((l) => l.type === 'access' && String(l.requestId).startsWith('load-'));
      return lines.length === ids.length ? new Set(lines.map((l) => l.pid)) : null;
    }, 'every access line of the load');
    // Both processes wrote into the same pipe: the test is about their lines meeting.
    expect(pids.size).toBe(2);
    run.proc.kill('SIGTERM');
    expect((await run.exit).code).toBe(0);
    stdoutLines(run);
  }, 120_000);
});
