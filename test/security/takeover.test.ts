/**
 * A node killed with deliveries in flight and restarted on the same SQLite
 * file sends them again at once: it releases the leases its dead predecessor
 * held instead of waiting for them to expire (90 s). Real processes, real clock.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startHoldingReceiver, type HoldingReceiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const ENV = { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1', SWITCHYARD_WORKERS: '1' };

describe('restart takeover', () => {
  const started: RunningService[] = [];
  let target: HoldingReceiver | undefined;

  afterAll(async () => {
    await Promise.all(started.map((node) => node.stop('SIGKILL')));
    await target?.close();
  });

  it('re-sends what a node killed with -9 had in flight as soon as it is restarted on the same file', async () => {
    // SQLite whatever TEST_STORE says: the case is one machine's processes on one file.
    const dbUrl = `sqlite:${join(mkdtempSync(join(tmpdir(), 'switchyard-takeover-')), 'switchyard.db')}`;
    target = await startHoldingReceiver();
    const first = await startService({ dbUrl, env: ENV });
    started.push(first);
    const webhook = (
      await first.request('POST', '/api/webhooks', {
        name: 'jobs',
        target_url: `${target.url}/jobs`,
        method: 'POST',
        payload_template: { job: '{{data.n}}' },
        events: ['job.run'],
        timeout_ms: 60_000,
      })
    ).json;
    const ids: string[] = [];
    for (let n = 0; n < 5; n++) ids.push(...(await first.request('POST', '/api/events', { event: 'job.run', data: { n } })).json.deliveries);
    // Every delivery is on the wire, leased by the first node, when it dies.
    await until(async () => target!.requests.length >= 5, 'all five attempts in flight');
    first.proc.kill('SIGKILL');
    await new Promise((r) => first.proc.once('exit', r));
    target.release();

    const restartedAt = Date.now();
    const second = await startService({ dbUrl, env: ENV });
    started.push(second);
    // Far below the 90 s lease: only releasing the dead node's leases makes this happen.
    await until(
      async () => {
        const list = (await second.request('GET', `/api/webhooks/${webhook.id}/deliveries`)).json;
        return list.length === 5 && list.every((d: { status: string }) => d.status === 'succeeded');
      },
      'every delivery sent again by the restarted node',
      15_000,
    );
    console.log(`restarted node re-sent the dead node's deliveries ${Date.now() - restartedAt} ms after its start began`);
    const sends = new Map<string, number>();
    for (const req of target.requests) sends.set(String(req.headers['webhook-id']), (sends.get(String(req.headers['webhook-id'])) ?? 0) + 1);
    // Each exactly twice: the attempt cut off by the kill, and the one after the restart.
    expect([...sends.keys()].sort()).toEqual([...ids].sort());
    expect([...sends.values()]).toEqual([2, 2, 2, 2, 2]);
    // The log is written in batches (at most 200 ms late): wait for the line rather than read at once.
    await until(() => second.output.join('').includes('released the delivery leases of a gone process of this host'), 'the takeover line');
  });
});
