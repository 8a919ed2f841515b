/**
 * Webhook targets are isolated from each other: a target that never answers
 * holds only its own share of the delivery engine, so another webhook's
 * deliveries still go out at once. Real server, real local targets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHoldingReceiver, startReceiver, type HoldingReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const ENV = { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1', SWITCHYARD_WORKERS: '1' };

describe('fair delivery across webhook targets', () => {
  let service: RunningService;
  let hung: HoldingReceiver;
  let healthy: Receiver;

  beforeAll(async () => {
    [service, hung, healthy] = await Promise.all([startService({ env: ENV }), startHoldingReceiver(), startReceiver()]);
  });

  afterAll(async () => {
    await service?.stop('SIGKILL');
    await Promise.all([hung?.close(), healthy?.close()]);
  });

  async function webhook(name: string, url: string, event: string): Promise<string> {
    const res = await service.request('POST', '/api/webhooks', {
      name,
      target_url: url,
      method: 'POST',
      payload_template: { n: '{{data.n}}' },
      events: [event],
      timeout_ms: 30_000,
    });
    expect(res.status).toBe(201);
    return res.json.id;
  }

  async function publish(event: string, count: number): Promise<void> {
    for (let n = 0; n < count; n++) {
      const res = await service.request('POST', '/api/events', { event, data: { n } });
      expect(res.status).toBe(202);
    }
  }

  it('delivers to a healthy target while 100 deliveries hang on another', async () => {
    await webhook('hangs', `${hung.url}/hang`, 'slow.thing');
    await webhook('answers', `${healthy.url}/ok`, 'fast.thing');

    await publish('slow.thing', 100);
    // The hung target holds as many attempts as the engine lets it have; wait until they are on the wire.
    await until(async () => hung.requests.length >= 20, 'attempts waiting on the hung target');
    await new Promise((r) => setTimeout(r, 500));
    const hungBefore = hung.requests.length;

    const started = Date.now();
    await publish('fast.thing', 10);
    // Far below the hung target's 30 s timeout: nothing of the hung webhook must be in the way.
    await until(async () => healthy.requests.length >= 10, 'the healthy target to get its 10 deliveries', 10_000);
    console.log(`healthy target got 10 deliveries ${Date.now() - started} ms after publishing (hung target holds ${hungBefore})`);
    expect(healthy.requests.map((r) => JSON.parse(r.body).n).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // The hung webhook holds a bounded share, not every slot, and no more than that while it hangs.
    expect(hung.requests.length).toBe(hungBefore);
    expect(hungBefore).toBeLessThan(100);

    // Per-webhook figures: the hung one is listed with what it holds in flight and what waits.
    const metrics = (await service.request('GET', '/metrics')).text;
    const hungId = (await service.request('GET', '/api/webhooks')).json.find((w: { name: string }) => w.name === 'hangs').id;
    expect(metrics).toContain(`switchyard_webhook_inflight_attempts{webhook="${hungId}"} ${hungBefore}`);
    // Webhooks with nothing in flight are not listed (the healthy one's last attempts are being recorded).
    await until(
      async () => (await service.request('GET', '/metrics')).text.match(/^switchyard_webhook_inflight_attempts\{/gm)?.length === 1,
      'only the hung webhook in the per-webhook in-flight gauge',
    );
    // Queue depths are refreshed every 5 s: all 100 of the hung webhook's deliveries are pending.
    await until(
      async () => (await service.request('GET', '/metrics')).text.includes(`switchyard_webhook_pending_deliveries{webhook="${hungId}"} 100\n`),
      'the hung webhook in the per-webhook queue depth',
      12_000,
    );
    expect((await service.request('GET', '/metrics')).text.match(/^switchyard_webhook_pending_deliveries\{/gm)).toHaveLength(1);
  });
});
