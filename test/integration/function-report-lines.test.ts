/**
 * Start, end and report lines of every run (SWITCHYARD_FUNCTION_REPORT_LINES=1)
 * on a real server's stdout: as JSON lines (`type` start/end/report, in that
 * order around the run's console lines) with isolate worker processes, and as
 * Lambda's CloudWatch text (SWITCHYARD_FUNCTION_LOGS_FORMAT=lambda) with the
 * isolates in two server processes. Init Duration only where the run started
 * its isolate. Without the setting (function-logs-stdout.test.ts's servers)
 * no such line is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let json: RunningService;
let lambda: RunningService;
let plain: RunningService;

const CODE = `exports.handler = async () => { console.log('hello from the run'); return { statusCode: 200, body: 'ok' }; };`;

beforeAll(async () => {
  [json, lambda, plain] = await Promise.all([
    startService({ env: { LOG_FORMAT: 'json', SWITCHYARD_FUNCTION_REPORT_LINES: '1' } }),
    startService({
      env: { LOG_FORMAT: 'json', SWITCHYARD_FUNCTION_REPORT_LINES: '1', SWITCHYARD_FUNCTION_LOGS_FORMAT: 'lambda', SWITCHYARD_PROCESSES: '2' },
      startTimeoutMs: 60_000,
    }),
    startService({ env: { LOG_FORMAT: 'json' } }),
  ]);
  for (const svc of [json, lambda, plain]) {
    const res = await svc.request('POST', '/api/functions', { name: 'greeter', code: CODE, memory_mb: 64 });
    expect(res.status, res.text).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await Promise.all([json?.stop(), lambda?.stop(), plain?.stop()]);
});

function jsonLines(svc: RunningService): Array<Record<string, unknown>> {
  return svc.output
    .join('')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('report lines as JSON', () => {
  it('writes start, the console line, end and report for each run; init duration only on the cold one', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await json.request('POST', '/api/functions/greeter/invoke', {});
      expect(res.status, res.text).toBe(200);
      ids.push(res.headers.get('x-request-id')!);
    }
    for (const [n, id] of ids.entries()) {
      const mine = await until(() => {
        const lines = jsonLines(json).filter((l) => l.source === 'function' && l.requestId === id);
        return lines.length === 4 ? lines : null;
      }, `the four lines of run ${n}`);
      expect(mine.map((l) => l.type ?? l.msg)).toEqual(['start', 'hello from the run', 'end', 'report']);
      const report = mine[3];
      expect(report).toMatchObject({ level: 30, function: 'greeter', version: 1, memorySizeMB: 64 });
      expect(report.durationMs).toBeTypeOf('number');
      expect(Number.isInteger(report.billedDurationMs) && (report.billedDurationMs as number) >= 1).toBe(true);
      expect(report.maxMemoryUsedMB as number).toBeGreaterThan(0);
      expect(report.msg).toMatch(new RegExp(`^REPORT RequestId: ${id}\\tDuration: `));
      if (n === 0) expect(report.initDurationMs as number).toBeGreaterThan(0);
      else expect(report).not.toHaveProperty('initDurationMs');
    }
  });

  it('writes none without SWITCHYARD_FUNCTION_REPORT_LINES', async () => {
    const res = await plain.request('POST', '/api/functions/greeter/invoke', {});
    expect(res.status).toBe(200);
    const id = res.headers.get('x-request-id');
    await until(() => jsonLines(plain).some((l) => l.source === 'function' && l.requestId === id), 'the console line');
    expect(jsonLines(plain).filter((l) => l.type === 'report' || l.type === 'start')).toEqual([]);
  });
});

describe('report lines as Lambda text (isolates in the server processes)', () => {
  it("writes Lambda's START, console, END and REPORT lines for invocations through an API", async () => {
    const api = await lambda.request('POST', '/api/apis', { name: 'hi', basePath: '/hi', routes: [{ method: 'GET', path: '/', function: 'greeter' }] });
    expect(api.status, api.text).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await lambda.request('GET', `/api/invoke/fn/${api.json.id}/hi`);
      expect(res.status, res.text).toBe(200);
      ids.push(res.headers.get('x-request-id')!);
    }
    const text = () => lambda.output.join('');
    const reports: string[] = [];
    for (const id of ids) {
      await until(() => text().includes(`REPORT RequestId: ${id}\t`), `the REPORT line of ${id}`);
      const lines = text()
        .split('\n')
        .filter((l) => l.includes(id) && !l.startsWith('{'));
      expect(lines[0]).toBe(`START RequestId: ${id} Version: 1`);
      expect(lines[1]).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z\\t${id}\\tINFO\\thello from the run$`));
      expect(lines[2]).toBe(`END RequestId: ${id}`);
      expect(lines[3]).toMatch(
        new RegExp(`^REPORT RequestId: ${id}\\tDuration: \\d+\\.\\d\\d ms\\tBilled Duration: \\d+ ms\\tMemory Size: 64 MB\\tMax Memory Used: [1-9]\\d* MB\\t(Init Duration: \\d+\\.\\d\\d ms\\t)?$`),
      );
      reports.push(lines[3]);
    }
    // The first run in each process started its isolate; the processes share the port, so one or two did.
    const cold = reports.filter((r) => r.includes('Init Duration')).length;
    expect(cold).toBeGreaterThanOrEqual(1);
    expect(cold).toBeLessThanOrEqual(2);
  });
});
