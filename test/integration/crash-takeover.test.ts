/**
 * A node killed with SIGKILL mid-delivery, on each backend: two real
 * Switchyard processes on one database, the first one sending. What the dead
 * node had recorded is never sent again; what it had in flight is sent again
 * once by the survivor, after the dead node's heartbeat went stale (3 s here),
 * long before its 90 s leases would have run out; nothing is lost.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startHoldingReceiver, type HoldingReceiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { pgSchemaUrl, postgresUnavailable } from '../helpers/test-database.js';
import { backends as storeBackends } from '../helpers/store-backends.js';
import { sleep, until } from '../helpers/until.js';

const ENV = { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1', SWITCHYARD_WORKERS: '1', SWITCHYARD_HEARTBEAT_TIMEOUT: '3' };

const backends = [
  // A file of its own whatever TEST_STORE says: this test runs each backend itself.
  { name: 'sqlite', url: () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'switchyard-crash-')), 'switchyard.db')}` },
  { name: 'postgres', url: () => pgSchemaUrl('crash').url },
];
/** Raw SQL on each backend's database, to see the heartbeat rows. */
const raw = new Map(storeBackends().map((b) => [b.name, b]));

const pgMissing = process.env.CI ? null : await postgresUnavailable();

for (const backend of backends) {
  const skip = backend.name === 'postgres' ? pgMissing : null;
  describe.skipIf(skip)(`a node killed mid-delivery on ${backend.name}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    const nodes: RunningService[] = [];
    let receiver: HoldingReceiver | undefined;

    afterAll(async () => {
      await Promise.all(nodes.map((n) => n.stop('SIGKILL')));
      await receiver?.close();
    });

    it('re-sends what was in flight once, never what was recorded, and loses nothing', async () => {
      const holding = await startHoldingReceiver();
      receiver = holding;
      const dbUrl = backend.url();
      const a = await startService({ dbUrl, env: ENV });
      nodes.push(a);
      const created = (
        await a.request('POST', '/api/webhooks', {
          name: 'jobs',
          target_url: `${holding.url}/jobs`,
          method: 'POST',
          payload_template: { job: '{{data.n}}' },
          events: ['job.run'],
          timeout_ms: 60000,
        })
      ).json;
      const publish = async (n: number) => (await a.request('POST', '/api/events', { event: 'job.run', data: { n } })).json.deliveries as string[];
      const deliveries = async (node: RunningService) =>
        (await node.request('GET', `/api/webhooks/${created.id}/deliveries`)).json as Array<{ id: string; status: string; attempts: unknown[] }>;

      // Three answered and recorded before the crash.
      const recorded = (await Promise.all([1, 2, 3].map(publish))).flat();
      await until(async () => holding.requests.length >= 3, 'the first three sent');
      holding.release();
      await until(async () => (await deliveries(a)).filter((d) => d.status === 'succeeded').length === 3, 'the first three recorded');
      // Three more, held by the receiver: in flight at the kill.
      holding.hold();
      const inflight = (await Promise.all([4, 5, 6].map(publish))).flat();
      await until(async () => holding.requests.length >= 6, 'three in flight');

      const b = await startService({ dbUrl, env: ENV });
      nodes.push(b);
      // The survivor beats and has run its start-up check (which gives back this host's gone
      // processes' leases by pid) while the first node still lives: the heartbeat is what must notice the kill.
      const beats = () => raw.get(backend.name)!.query(dbUrl, 'SELECT owner FROM lease_heartbeats');
      await until(async () => (await beats()).length === 2, 'both nodes beating');
      await sleep(500);
      a.proc.kill('SIGKILL');
      await new Promise((r) => a.proc.once('exit', r));
      const killed = Date.now();
      // Far below the dead node's 90 s leases: only its stale heartbeat can let the survivor send these.
      await until(async () => holding.requests.length >= 9, 'the survivor sends the three in flight again', 30_000);
      console.log(`[${backend.name}] in-flight deliveries sent again ${Date.now() - killed} ms after the kill`);
      // The log is written in batches (at most 200 ms late): wait for the line rather than read at once.
      await until(() => b.output.join('').includes('took over a lease owner whose heartbeat stopped'), 'the takeover line');
      holding.release();
      await until(async () => (await deliveries(b)).every((d) => d.status === 'succeeded'), 'every delivery succeeded', 20_000);

      const seen = new Map<string, number>();
      for (const req of holding.requests) {
        const id = String(req.headers['webhook-id']);
        seen.set(id, (seen.get(id) ?? 0) + 1);
      }
      for (const id of recorded) expect(seen.get(id), `recorded ${id}`).toBe(1);
      for (const id of inflight) expect(seen.get(id), `in flight ${id}`).toBe(2);
      expect(seen.size).toBe(6);
      // One attempt each: the dead node's unanswered attempts were never recorded.
      for (const d of await deliveries(b)) expect(d.attempts).toHaveLength(1);
      // The dead node's row went with its leases; the survivor's is the one left.
      expect(await beats()).toHaveLength(1);
    });
  });
}
