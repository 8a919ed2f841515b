import { describe, expect, it } from 'vitest';
import { HEALTH_FIELDS } from '../helpers/webhook-fixture.js';
import { applyMockRule, buildRequest, renderPayload, templateMentions, type RenderVars } from '../../src/webhooks/render.js';
import type { Delivery } from '../../src/deliveries/types.js';
import type { Webhook } from '../../src/webhooks/types.js';

const vars: RenderVars = {
  timestamp: '2024-05-01T12:00:00.000Z',
  webhook: { id: 'wh_1', name: 'orders' },
  delivery: { id: 'dlv_9' },
  trigger: 'event',
  event: 'user.created',
  data: { user: { id: 42, name: 'Ada', tags: ['a', 'b'] }, ok: true, none: null },
};

describe('renderPayload', () => {
  it('replaces a whole-string placeholder with the JSON value', () => {
    const out = renderPayload(
      {
        ts: '{{timestamp}}',
        id: '{{ delivery.id }}',
        wh: '{{webhook.id}}',
        name: '{{webhook.name}}',
        trigger: '{{trigger}}',
        event: '{{event}}',
        all: '{{data}}',
        user: '{{data.user}}',
        uid: '{{data.user.id}}',
        tag: '{{data.user.tags.1}}',
        ok: '{{data.ok}}',
        none: '{{data.none}}',
      },
      vars,
    );
    expect(out).toEqual({
      ts: '2024-05-01T12:00:00.000Z',
      id: 'dlv_9',
      wh: 'wh_1',
      name: 'orders',
      trigger: 'event',
      event: 'user.created',
      all: vars.data,
      user: { id: 42, name: 'Ada', tags: ['a', 'b'] },
      uid: 42,
      tag: 'b',
      ok: true,
      none: null,
    });
  });

  it('interpolates inside longer strings, objects as JSON text', () => {
    const out = renderPayload({ text: 'user {{data.user.id}} ({{ data.user.name }}) at {{timestamp}}: {{data.user.tags}}' }, vars);
    expect(out).toEqual({ text: 'user 42 (Ada) at 2024-05-01T12:00:00.000Z: ["a","b"]' });
  });

  it('leaves unknown placeholders and missing paths as written', () => {
    const t = {
      a: '{{nope}}',
      b: '{{data.user.email}}',
      c: 'x {{webhook.secret}} y',
      d: '{{mock}}',
      e: '{{data.constructor}}',
      f: '{{}}',
    };
    expect(renderPayload(t, vars)).toEqual(t);
  });

  it('recurses through objects and arrays, never templating keys or non-strings', () => {
    const template = { '{{event}}': [1, { deep: ['{{data.user.id}}', false, null] }], n: 3 };
    expect(renderPayload(template, vars)).toEqual({ '{{event}}': [1, { deep: [42, false, null] }], n: 3 });
    expect(template['{{event}}'][1]).toEqual({ deep: ['{{data.user.id}}', false, null] }); // not modified
  });

  it('keeps a __proto__ key a plain key', () => {
    const template = JSON.parse('{"__proto__": {"polluted": "{{event}}"}}') as Record<string, unknown>;
    const out = renderPayload(template, vars) as Record<string, unknown>;
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":"user.created"}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('resolves mock paths when a mock body is given', () => {
    expect(renderPayload({ m: '{{mock.items.0.sku}}' }, { ...vars, mock: { items: [{ sku: 'X1' }] } })).toEqual({ m: 'X1' });
  });
});

describe('mock endpoint rule', () => {
  it('sets or replaces the top-level data when the template names neither data nor mock', () => {
    const template = { source: 'erp', event: 'stock.sync', data: {} };
    const out = applyMockRule(template, renderPayload(template, vars), [{ sku: 1 }]);
    expect(out).toEqual({ source: 'erp', event: 'stock.sync', data: [{ sku: 1 }] });
    expect(applyMockRule({ a: 1 }, { a: 1 }, { x: 1 })).toEqual({ a: 1, data: { x: 1 } });
  });

  it('leaves templates that place data or mock themselves alone', () => {
    const t1 = { data: 'fixed', items: '{{mock.items}}' };
    expect(applyMockRule(t1, { data: 'fixed', items: [] }, { items: [] })).toEqual({ data: 'fixed', items: [] });
    const t2 = { payload: { who: 'user {{data.user.id}}' } };
    expect(applyMockRule(t2, { payload: { who: 'user 1' } }, { x: 1 })).toEqual({ payload: { who: 'user 1' } });
  });

  it('templateMentions sees placeholders only, at any depth', () => {
    expect(templateMentions({ a: [{ b: 'x {{ data.y }}' }] }, 'data')).toBe(true);
    expect(templateMentions({ data: 'literal' }, 'data')).toBe(false);
    expect(templateMentions({ a: '{{database}}' }, 'data')).toBe(false);
    expect(templateMentions({ a: '{{mock}}' }, 'mock')).toBe(true);
  });
});

describe('buildRequest', () => {
  const webhook: Webhook = {
    id: 'wh_1',
    name: 'orders',
    targetUrl: 'https://example.com/hook',
    method: 'PUT',
    headers: { 'Webhook-Id': 'spoofed', 'X-Api-Key': 'k' },
    payloadTemplate: { e: '{{event}}', at: '{{timestamp}}' },
    cron: null,
    timezone: 'UTC',
    mockEndpoint: null,
    events: ['*'],
    enabled: true,
    secret: null,
    secretCreatedAt: null,
    previousSecrets: [],
    retry: { maxAttempts: 8, scheduleS: null },
    timeoutMs: 15000,
    nextFireAt: null,
    ...HEALTH_FIELDS,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  };
  const delivery: Delivery = {
    kind: 'webhook',
    id: 'dlv_1',
    target: 'wh_1',
    webhookId: 'wh_1',
    functionName: null,
    scheduleId: null,
    triggerDetail: null,
    result: null,
    trigger: 'schedule',
    status: 'pending',
    error: null,
    scheduledFor: '2024-02-01T09:00:00.000Z',
    event: null,
    eventData: null,
    attempts: [],
    request: null,
    response: null,
    nextAttemptAt: '2024-02-01T09:00:00.000Z',
    retryBase: 0,
    createdAt: '2024-02-01T09:00:00.400Z',
    completedAt: null,
  };

  it('renders the body once and sets the delivery headers, never the reserved ones from the webhook', () => {
    expect(buildRequest(webhook, delivery, undefined)).toEqual({
      method: 'PUT',
      url: 'https://example.com/hook',
      headers: {
        'X-Api-Key': 'k',
        'content-type': 'application/json',
        'user-agent': 'Switchyard-Webhooks/0.1',
        'webhook-id': 'dlv_1',
      },
      body: '{"e":null,"at":"2024-02-01T09:00:00.000Z"}',
    });
  });

  it('sends no body with GET', () => {
    const req = buildRequest({ ...webhook, method: 'GET' }, delivery, undefined);
    expect(req.body).toBeNull();
    expect(req.headers).not.toHaveProperty('content-type');
  });
});
