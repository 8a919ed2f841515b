/**
 * Sensitive webhook header values and credentials in a target URL are
 * write-only: every answer and delivery record shows them masked, the target
 * still receives them, and the logs never print them. Real server, real local
 * target.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { flushedOutput, startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const TOKEN = 'Bearer sk_live_51HqLyjWDarjtT1zdp7dcXYZ9';
const API_KEY = 'ak-7f3c9a1e';
const COOKIE = 'sid=s3cr3t-session';
const HOOK_SECRET = 'shared-with-the-receiver-42';
const RECEIVER_COOKIE = 'receiver-session=zz99-private';
const URL_PASSWORD = 'url-pass-9f8e7d';
const URL_TOKEN = 'url-token-5c4b3a';
const SECRETS = [TOKEN.slice('Bearer '.length), API_KEY, COOKIE, HOOK_SECRET, RECEIVER_COOKIE, URL_PASSWORD, URL_TOKEN];

describe('sensitive webhook headers are masked in answers and delivery records', () => {
  let service: RunningService;
  let target: Receiver;

  beforeAll(async () => {
    [service, target] = await Promise.all([
      startService({ env: { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1', SWITCHYARD_WORKERS: '1', LOG_LEVEL: 'debug' } }),
      startReceiver(() => ({ status: 200, body: 'ok', headers: { 'set-cookie': RECEIVER_COOKIE, 'x-served-by': 'target' } })),
    ]);
  });

  afterAll(async () => {
    await service?.stop();
    await target?.close();
  });

  const noSecretIn = (what: string, text: string) => {
    for (const secret of SECRETS) expect(text, `${what} shows ${secret}`).not.toContain(secret);
  };

  it('masks them in webhook answers, sends them to the target, and keeps them when sent back masked', async () => {
    const created = await service.request('POST', '/api/webhooks', {
      name: 'crm',
      target_url: `${target.url}/hook`,
      method: 'POST',
      headers: { Authorization: TOKEN, 'x-api-key': API_KEY, cookie: COOKIE, 'x-webhook-secret': HOOK_SECRET, 'x-source': 'shop' },
      payload_template: { n: '{{data.n}}' },
      events: ['crm.sync'],
    });
    expect(created.status).toBe(201);
    const shown = { Authorization: '***XYZ9', 'x-api-key': '***', cookie: '***', 'x-webhook-secret': '***r-42', 'x-source': 'shop' };
    expect(created.json.headers).toEqual(shown);
    const id = created.json.id;
    expect((await service.request('GET', `/api/webhooks/${id}`)).json.headers).toEqual(shown);
    const listed = (await service.request('GET', '/api/webhooks')).text;
    noSecretIn('the webhook list', listed);
    expect(JSON.parse(listed)[0].headers).toEqual(shown);

    // Read, edit one plain header, send everything back: the credentials stay as stored.
    const edited = { ...shown, 'x-source': 'shop-2' };
    const updated = await service.request('PUT', `/api/webhooks/${id}`, { headers: edited });
    expect(updated.status).toBe(200);
    expect(updated.json.headers).toEqual(edited);

    const test = await service.request('POST', `/api/webhooks/${id}/test`);
    expect(test.json.status).toBe('succeeded');
    expect(target.requests[0].headers).toMatchObject({
      authorization: TOKEN,
      'x-api-key': API_KEY,
      cookie: COOKIE,
      'x-webhook-secret': HOOK_SECRET,
      'x-source': 'shop-2',
    });
    noSecretIn('the test-fire answer', test.text);
    expect(test.json.request.headers).toMatchObject({ Authorization: '***XYZ9', 'x-api-key': '***', 'x-source': 'shop-2' });
    expect(test.json.response.headers).toMatchObject({ 'set-cookie': '***vate', 'x-served-by': 'target' });

    // A delivery the engine renders and retries from the stored request.
    const published = await service.request('POST', '/api/events', { event: 'crm.sync', data: { n: 1 } });
    const [deliveryId] = published.json.deliveries;
    await until(async () => (await service.request('GET', `/api/deliveries/${deliveryId}`)).json.status === 'succeeded', 'the event delivery');
    expect(target.requests[1].headers.authorization).toBe(TOKEN);
    const record = await service.request('GET', `/api/deliveries/${deliveryId}`);
    noSecretIn('a delivery record', record.text);
    expect(record.json.request.headers.Authorization).toBe('***XYZ9');
    const retried = await service.request('POST', `/api/deliveries/${deliveryId}/retry`);
    noSecretIn('a manual retry answer', retried.text);
    expect(target.requests[2].headers).toMatchObject({ authorization: TOKEN, cookie: COOKIE });
    noSecretIn('the delivery list', (await service.request('GET', `/api/webhooks/${id}/deliveries`)).text);
  });

  it('refuses a masked value that matches nothing stored, and takes a new real value', async () => {
    const id = (await service.request('GET', '/api/webhooks')).json[0].id;
    const refused = await service.request('PUT', `/api/webhooks/${id}`, { headers: { Authorization: '***', 'x-source': 'shop' } });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'invalid_request', details: { field: 'headers' } });
    expect(refused.json.error).toContain("'Authorization' is masked");
    const created = await service.request('POST', '/api/webhooks', {
      name: 'copied',
      target_url: `${target.url}/copy`,
      method: 'POST',
      headers: { 'x-api-key': '***' },
      payload_template: {},
    });
    expect(created.status).toBe(400);

    const replaced = await service.request('PUT', `/api/webhooks/${id}`, { headers: { Authorization: 'Bearer new-one' } });
    expect(replaced.json.headers).toEqual({ Authorization: '***' });
    await service.request('POST', `/api/webhooks/${id}/test`);
    expect(target.requests.at(-1)!.headers.authorization).toBe('Bearer new-one');
  });

  it('masks credentials in the target URL in every answer, and still sends to the real URL', async () => {
    const real = target.url.replace('http://', `http://hook-user:${URL_PASSWORD}@`) + `/by-url?token=${URL_TOKEN}&x=1`;
    const shown = target.url.replace('http://', 'http://***:***@') + '/by-url?token=***&x=1';
    const created = await service.request('POST', '/api/webhooks', {
      name: 'by-url',
      target_url: real,
      method: 'POST',
      payload_template: {},
      events: ['url.sync'],
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.target_url).toBe(shown);
    const id = created.json.id;
    noSecretIn('the created webhook', created.text);
    noSecretIn('the webhook', (await service.request('GET', `/api/webhooks/${id}`)).text);
    noSecretIn('the webhook list', (await service.request('GET', '/api/webhooks')).text);

    const test = await service.request('POST', `/api/webhooks/${id}/test`);
    expect(test.json.status).toBe('succeeded');
    expect(target.requests.at(-1)!.url).toBe(`/by-url?token=${URL_TOKEN}&x=1`);
    expect(test.json.request.url).toBe(shown);
    noSecretIn('the test-fire answer', test.text);

    const published = await service.request('POST', '/api/events', { event: 'url.sync', data: {} });
    const [deliveryId] = published.json.deliveries;
    await until(async () => (await service.request('GET', `/api/deliveries/${deliveryId}`)).json.status === 'succeeded', 'the URL delivery');
    noSecretIn('its delivery record', (await service.request('GET', `/api/deliveries/${deliveryId}`)).text);
    noSecretIn('its delivery list', (await service.request('GET', `/api/webhooks/${id}/deliveries`)).text);

    // Read, edit, send back as shown: the stored URL stays; a masked URL that matches nothing is refused.
    const kept = await service.request('PUT', `/api/webhooks/${id}`, { target_url: shown, timeout_ms: 5000 });
    expect(kept.status, kept.text).toBe(200);
    await service.request('POST', `/api/webhooks/${id}/test`);
    expect(target.requests.at(-1)!.url).toBe(`/by-url?token=${URL_TOKEN}&x=1`);
    const refused = await service.request('PUT', `/api/webhooks/${id}`, { target_url: shown.replace('/by-url', '/elsewhere') });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'invalid_request', details: { field: 'target_url' } });
    const copied = await service.request('POST', '/api/webhooks', { name: 'copied-url', target_url: shown, method: 'POST', payload_template: {} });
    expect(copied.status).toBe(400);
  });

  it('never prints them in the logs', async () => {
    const output = await flushedOutput(service);
    noSecretIn('the service log', output);
    expect(output).not.toContain('new-one');
  });
});
