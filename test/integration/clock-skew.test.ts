/**
 * Two real nodes on one PostgreSQL, one of them with its system clock an hour
 * fast (libfaketime, Debian's `faketime` package, preloaded into that process
 * only). Both must schedule and lease by the database's clock: the fast node
 * fires no slot early and steals no lease the other node still holds.
 * PostgreSQL only: SQLite's processes share one machine and so one clock.
 */
import { existsSync, readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startHoldingReceiver, startReceiver, type HoldingReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { pgSchemaUrl, postgresUnavailable } from '../helpers/test-database.js';
import { sleep, until } from '../helpers/until.js';

const HOUR = 3_600_000;

/** libfaketime's path differs by architecture (/usr/lib/<triplet>/faketime/). */
function findLibfaketime(): string | null {
  for (const dir of existsSync('/usr/lib') ? readdirSync('/usr/lib') : []) {
    const candidate = `/usr/lib/${dir}/faketime/libfaketime.so.1`;
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

const libfaketime = findLibfaketime();
/** Why this file cannot run here, or null. */
const missing = libfaketime ? await postgresUnavailable() : 'install Debian package faketime';

// CI installs faketime (.ci/run) and always has a PostgreSQL: there a missing one fails the test.
const run = !missing || process.env.CI ? describe : describe.skip;

run(`a node whose clock is an hour fast${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let dbUrl = '';
  let normal: RunningService;
  let fast: RunningService;
  let receiver: Receiver | undefined;
  let holding: HoldingReceiver | undefined;

  afterAll(async () => {
    await Promise.all([normal?.stop(), fast?.stop()]);
    await receiver?.close();
    await holding?.close();
  });

  it('starts, measures its offset from the database and says so', async () => {
    expect(libfaketime, 'libfaketime.so.1 (Debian package faketime)').not.toBeNull();
    expect(missing).toBeNull();
    dbUrl = pgSchemaUrl('skew').url; // dropped after the file (test/setup-file.ts)
    // No SWITCHYARD_TEST_HOOKS: these nodes run the production clock.
    const env = { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1', SWITCHYARD_WORKERS: '1' };
    normal = await startService({ dbUrl, env });
    fast = await startService({
      dbUrl,
      env: {
        ...env,
        LD_PRELOAD: libfaketime!,
        FAKETIME: '+1h',
        // Timers run on the monotonic clock; only the wall clock is the point here.
        FAKETIME_DONT_FAKE_MONOTONIC: '1',
      },
    });
    const warning = fast.output.join('').split('\n').find((line) => line.includes("clock is off the database's"));
    expect(warning, fast.output.join('')).toBeDefined();
    expect(Math.abs(JSON.parse(warning!).offset_ms + HOUR)).toBeLessThan(1_000);
    expect(normal.output.join('')).not.toContain("clock is off the database's");
    const offset = (text: string) => Number(/^switchyard_clock_offset_seconds (\S+)$/m.exec(text)?.[1]);
    expect(Math.abs(offset((await fast.request('GET', '/metrics')).text) + 3600)).toBeLessThan(1);
    expect(Math.abs(offset((await normal.request('GET', '/metrics')).text))).toBeLessThan(1);
  });

  it("computes next_fire_at and fires slots by the database's clock, not early", async () => {
    receiver = await startReceiver();
    const now = Date.now();
    // A slot about 30 minutes away: already due by the fast node's own clock, not by the database's.
    const minute = (new Date(now).getUTCMinutes() + 30) % 60;
    const expected = new Date(now);
    expected.setUTCSeconds(0, 0);
    expected.setUTCMinutes(minute);
    if (expected.getTime() <= now) expected.setTime(expected.getTime() + HOUR);

    const created = await fast.request('POST', '/api/webhooks', {
      name: 'half past',
      target_url: `${receiver.url}/slot`,
      method: 'POST',
      payload_template: { at: '{{timestamp}}' },
      cron: `${minute} * * * *`,
    });
    expect(created.status).toBe(201);
    expect(created.json.next_fire_at).toBe(expected.toISOString());
    // Both schedulers tick at least once a second; a fast node on its own clock would fire at once.
    await sleep(2_500);
    expect(receiver.requests).toHaveLength(0);
    expect((await normal.request('GET', `/api/webhooks/${created.json.id}/deliveries`)).json).toEqual([]);
    expect((await normal.request('GET', `/api/webhooks/${created.json.id}`)).json.next_fire_at).toBe(expected.toISOString());
  });

  it('leaves the leases of deliveries another node is sending alone', async () => {
    holding = await startHoldingReceiver();
    const created = await normal.request('POST', '/api/webhooks', {
      name: 'slow target',
      target_url: `${holding.url}/slow`,
      method: 'POST',
      payload_template: { n: '{{data.n}}' },
      events: ['job.run'],
      timeout_ms: 60000,
    });
    expect(created.status).toBe(201);
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) ids.push(...(await normal.request('POST', '/api/events', { event: 'job.run', data: { n } })).json.deliveries);
    await until(async () => holding!.requests.length >= 3, 'three deliveries on the wire');
    // The leases run 90 s of database time. By the fast node's own clock they expired
    // long ago, and its engine polls every second: it would claim and send them again.
    await sleep(2_500);
    expect(holding.requests).toHaveLength(3);
    holding.release();
    await until(async () => {
      const list = (await fast.request('GET', `/api/webhooks/${created.json.id}/deliveries`)).json;
      return list.length === 3 && list.every((d: { status: string }) => d.status === 'succeeded');
    }, 'the three deliveries to succeed');
    expect(new Set(holding.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set(ids));
  });
});
