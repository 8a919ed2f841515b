/**
 * `switchyard webhooks pause|resume|recover` end to end: the real binary
 * (`node dist/cli.js`) against a real server over HTTP and a real local
 * receiver whose answers a test switches. What the verbs did is read back
 * through the API (a delivery held while paused) and at the receiver (what
 * resume released and recover resent); a local stub stands in for a server
 * older than these routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killLeftoverClis, runCliToEnd } from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let svc: RunningService;
let receiver: Receiver;
/** How the receiver answers now; tests switch it. */
let status = 200;

beforeAll(async () => {
  receiver = await startReceiver(() => ({ status, body: '{"ok":true}', headers: { 'content-type': 'application/json' } }));
  svc = await startService({ env: { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
}, 60_000);

afterAll(async () => {
  killLeftoverClis();
  await Promise.all([svc?.stop(), receiver?.close()]);
});

/** Runs a verb to its end against `svc`. */
const cli = (args: string[]) => runCliToEnd(args, { SWITCHYARD_URL: svc.url }, 30_000);

async function webhook(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await svc.request('POST', '/api/webhooks', {
    name,
    target_url: `${receiver.url}/${name}`,
    method: 'POST',
    payload_template: { n: '{{data.n}}' },
    events: [`${name}.happened`],
    ...extra,
  });
  expect(res.status, res.text).toBe(201);
  return res.json.id as string;
}

async function publish(name: string, count: number) {
  for (let n = 0; n < count; n++) {
    const res = await svc.request('POST', '/api/events', { event: `${name}.happened`, data: { n } });
    expect(res.status, res.text).toBe(202);
  }
}

/** The answers the receiver gave `name`'s deliveries, in arrival order. */
const received = (name: string) => receiver.requests.filter((r) => r.url === `/${name}`);
const deliveries = async (id: string, state?: string) =>
  (await svc.request('GET', `/api/webhooks/${id}/deliveries?limit=100${state ? `&status=${state}` : ''}`)).json as Array<{ status: string }>;

describe('webhooks pause and resume', () => {
  it('pause holds a published event, none sent; resume releases it to the receiver', async () => {
    status = 200;
    const id = await webhook('cw-paused');
    const paused = await cli(['webhooks', 'pause', 'cw-paused']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toContain("paused 'cw-paused': its deliveries are held until it is resumed");
    expect(paused.stdout).toContain('resume: switchyard webhooks resume cw-paused');
    expect((await svc.request('GET', `/api/webhooks/${id}`)).json).toMatchObject({ paused: true });

    await publish('cw-paused', 1);
    const held = await until(async () => {
      const list = await deliveries(id, 'held');
      return list.length === 1 && list;
    }, 'the held delivery');
    expect(held.map((d) => d.status)).toEqual(['held']);
    expect(received('cw-paused')).toEqual([]);
    // Pausing again changes nothing and says so.
    const again = await cli(['webhooks', 'pause', 'cw-paused']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^'cw-paused' was already paused \(since \S+Z\)$/m);

    const resumed = await cli(['webhooks', 'resume', 'cw-paused']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe("resumed 'cw-paused'\n1 held delivery released, in publish order\n");
    await until(() => received('cw-paused').length === 1, 'the released delivery');
    expect(JSON.parse(received('cw-paused')[0].body)).toEqual({ n: 0 });
    expect((await svc.request('GET', `/api/webhooks/${id}`)).json).toMatchObject({ paused: false });
    await until(async () => (await deliveries(id)).every((d) => d.status === 'succeeded'), 'the delivery to succeed');

    const json = await cli(['webhooks', 'pause', id, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ id, name: 'cw-paused', paused: true });
  }, 60_000);
});

describe('webhooks recover', () => {
  it('--dry-run prints the count; --wait resends the failed deliveries to a target that now succeeds, and exits 0', async () => {
    status = 500;
    // One attempt each: they fail at once, and are done with (failed), ready to recover.
    const id = await webhook('cw-recover', { retry: { max_attempts: 1 } });
    await publish('cw-recover', 3);
    await until(async () => (await deliveries(id, 'failed')).length === 3, 'three failed deliveries');
    status = 200;
    const before = received('cw-recover').length;

    const dry = await cli(['webhooks', 'recover', 'cw-recover', '--since', '1h', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^would resend 3 failed deliveries of 'cw-recover' created since \S+Z\n$/);
    const dryJson = await cli(['webhooks', 'recover', 'cw-recover', '--since', '1h', '--dry-run', '--json']);
    expect(JSON.parse(dryJson.stdout)).toEqual({ count: 3, dry_run: true });
    expect(received('cw-recover').length).toBe(before);
    expect((await deliveries(id, 'failed')).length).toBe(3);

    const wait = await cli(['webhooks', 'recover', 'cw-recover', '--since', '1h', '--wait']);
    expect(wait.code, wait.stderr).toBe(0);
    const lines = wait.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^resending 3 failed deliveries of 'cw-recover' created from \S+Z to \S+Z$/);
    expect(lines[1]).toMatch(/^recovery rcv_\S+$/);
    expect(lines.slice(2)).toEqual(['done: 3 of 3 resent', 'their outcomes: switchyard deliveries cw-recover']);
    const recovery = lines[1].slice('recovery '.length);
    expect((await svc.request('GET', `/api/recoveries/${recovery}`)).json).toMatchObject({ webhook_id: id, status: 'done', total: 3, resent: 3 });

    await until(async () => (await deliveries(id)).every((d) => d.status === 'succeeded'), 'the resent deliveries to succeed');
    const resent = received('cw-recover').slice(before);
    expect(resent.map((r) => (JSON.parse(r.body) as { n: number }).n).sort()).toEqual([0, 1, 2]);
    // Nothing failed is left to resend; the filters reach the server: they are the succeeded ones now.
    const none = await cli(['webhooks', 'recover', 'cw-recover', '--since', '1h', '--dry-run']);
    expect(none.stdout).toMatch(/^would resend 0 failed deliveries/);
    const succeeded = await cli(['webhooks', 'recover', 'cw-recover', '--since', '1h', '--status', 'succeeded', '--event', 'cw-recover.happened', '--dry-run']);
    expect(succeeded.stdout).toMatch(/^would resend 3 succeeded deliveries of 'cw-recover' of the event cw-recover\.happened created since /);
  }, 60_000);
});

describe('errors', () => {
  it('a wrong name exits 1 (webhook_not_found) and suggests the name meant', async () => {
    await webhook('cw-orders');
    for (const verb of [['pause'], ['resume'], ['recover', '--since', '2h']]) {
      const r = await cli(['webhooks', verb[0], 'cw-ordres', ...verb.slice(1)]);
      expect(r.code, verb[0]).toBe(1);
      expect(r.stderr).toContain(`switchyard: no webhook named 'cw-ordres' at ${svc.url}; did you mean 'cw-orders'? (there are: `);
    }
    const json = await cli(['webhooks', 'pause', 'cw-ordres', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ code: 'webhook_not_found' });
    expect((await svc.request('GET', '/api/webhooks')).json.find((w: { name: string }) => w.name === 'cw-orders')).toMatchObject({ paused: false });
  }, 30_000);

  it('a server older than pause, resume and recovery says so (exit 1)', async () => {
    const hook = { id: 'wh_1', name: 'old-hook', target_url: 'https://example.com/h', method: 'POST', enabled: true, cron: null, events: [] };
    const old = await startReceiver((req) =>
      req.method === 'GET' && req.url.startsWith('/api/webhooks?')
        ? { status: 200, body: JSON.stringify([hook]), headers: { 'content-type': 'application/json' } }
        : { status: 404, body: JSON.stringify({ error: `Route ${req.method}:${req.url} not found`, code: 'not_found' }), headers: { 'content-type': 'application/json' } },
    );
    try {
      for (const verb of [['pause'], ['resume'], ['recover', '--since', '2h']]) {
        const r = await runCliToEnd(['webhooks', verb[0], 'old-hook', ...verb.slice(1), '--url', old.url], {}, 30_000);
        expect(r.code, verb[0]).toBe(1);
        expect(r.stderr).toMatch(new RegExp(`^switchyard: the server at ${old.url} cannot (pause webhooks|resume webhooks|recover deliveries): it is older than this CLI\n$`));
      }
    } finally {
      await old.close();
    }
  }, 30_000);

  it('a bad --since or --until is a usage error naming the flag; --since is required', async () => {
    const bad = await cli(['webhooks', 'recover', 'cw-orders', '--since', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('switchyard: --since must be an ISO time (2026-11-23T10:00:00Z) or a duration back from now (30m, 2h, 7d), got "yesterday"\n');
    const badUntil = await cli(['webhooks', 'recover', 'cw-orders', '--since', '2h', '--until', '2026-02-30T00:00Z']);
    expect(badUntil.code).toBe(2);
    expect(badUntil.stderr).toMatch(/^switchyard: --until must be an ISO time/);
    const reversed = await cli(['webhooks', 'recover', 'cw-orders', '--since', '1h', '--until', '2h']);
    expect(reversed.code).toBe(2);
    expect(reversed.stderr).toMatch(/^switchyard: --since \(\S+\) is after --until \(\S+\)\n$/);
    const missing = await cli(['webhooks', 'recover', 'cw-orders']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--since <time>' not specified");
    const pending = await cli(['webhooks', 'recover', 'cw-orders', '--since', '2h', '--status', 'pending']);
    expect(pending.code).toBe(2);
    expect(pending.stderr).toContain('--status must be failed, succeeded, discarded');
  }, 30_000);
});

describe('webhooks rotate-secret', () => {
  it('prints a generated secret once, alone on stdout, and the server signs with both during the overlap', async () => {
    const old = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
    const id = await webhook('cw-rotate', { secret: old });
    const r = await cli(['webhooks', 'rotate-secret', 'cw-rotate', '--overlap', '2h']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^whsec_[A-Za-z0-9+/]{43}=\n$/);
    expect(r.stderr).toContain("rotated the secret of 'cw-rotate' to an HMAC secret (v1)");
    expect(r.stderr).toMatch(/deliveries carry 2 signatures until \S+: the new secret's and the old one/);
    const shown = (await svc.request('GET', `/api/webhooks/${id}`)).json;
    expect(shown.secrets).toHaveLength(2);
    // Two hours, as asked: the old one's expiry is the rotation's time plus the overlap.
    expect(Date.parse(shown.secrets[1].expires_at) - Date.parse(shown.secrets[0].created_at)).toBe(2 * 3_600_000);
    expect(JSON.stringify(shown)).not.toContain(r.stdout.trim().slice(6));

    const ed = await cli(['webhooks', 'rotate-secret', 'cw-rotate', '--ed25519', '--overlap', '0', '--json']);
    expect(ed.code, ed.stderr).toBe(0);
    const answer = JSON.parse(ed.stdout);
    expect(answer.secret).toMatch(/^whsk_/);
    expect(answer.public_key).toMatch(/^whpk_/);
    expect(answer.secrets).toHaveLength(1);

    const given = 'whsec_' + Buffer.alloc(32, 10).toString('base64');
    const quiet = await cli(['webhooks', 'rotate-secret', 'cw-rotate', '--secret', given]);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toBe('');
    expect(quiet.stderr).toContain('the new secret');
  }, 30_000);

  it('a bad --overlap is a usage error; a bad --secret is the server\'s 400 naming the field', async () => {
    await webhook('cw-rotate-bad');
    const bad = await cli(['webhooks', 'rotate-secret', 'cw-rotate-bad', '--overlap', '31d']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('switchyard: --overlap must be a duration of at most 30 days (0, 30m, 24h, 7d), got "31d"\n');
    const secret = await cli(['webhooks', 'rotate-secret', 'cw-rotate-bad', '--secret', 'whsec_nope']);
    expect(secret.code).toBe(1);
    expect(secret.stderr).toContain('secret must be');
  }, 30_000);
});
