/**
 * The event-type catalogue over real HTTP: CRUD and its refusals, validation
 * of publishes and of functions' emit() in each mode (off, warn, reject), the
 * served OpenAPI document's webhooks section (checked by a real OpenAPI 3.1
 * validator), import from a document's webhooks, and test-fires that send a
 * subscribed type's example; the CLI's list and import; `event_types:` of
 * switchyard.yaml (apply, export, prune); and read-your-writes
 * of a change between the two server processes of one node.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliToEnd } from '../helpers/cli.js';
import { connectTo, type Connection } from '../helpers/cluster-connections.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

let svc: RunningService;
let receiver: Receiver;

const ORDER_SCHEMA = {
  type: 'object',
  required: ['id', 'total'],
  properties: { id: { type: 'string' }, total: { type: 'number', minimum: 0 }, lines: { type: 'array', items: { $ref: '#/$defs/line' } } },
  $defs: { line: { type: 'object', required: ['sku'], properties: { sku: { type: 'string' } } } },
};

beforeAll(async () => {
  svc = await startService({ env: { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
  receiver = await startReceiver();
});

afterAll(async () => {
  await svc?.stop();
  await receiver?.close();
});

describe('event types: CRUD', () => {
  it('creates, reads, lists, versions and deletes a type', async () => {
    const created = await svc.request('POST', '/api/event-types', {
      name: 'order.created',
      description: 'An order was placed',
      schema: ORDER_SCHEMA,
      examples: [{ id: 'o1', total: 12.5 }],
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ name: 'order.created', mode: 'off', deprecated: false, latestVersion: 1, project: null });
    expect(created.json.versions).toHaveLength(1);
    expect(created.json.versions[0]).toMatchObject({ version: 1, schema: ORDER_SCHEMA, examples: [{ id: 'o1', total: 12.5 }] });

    // The same schema again adds no version; a different one adds version 2 with its own examples.
    const same = await svc.request('PUT', '/api/event-types/order.created', { schema: ORDER_SCHEMA, deprecated: true });
    expect(same.status, same.text).toBe(200);
    expect(same.json).toMatchObject({ latestVersion: 1, deprecated: true });
    const v2 = await svc.request('PUT', '/api/event-types/order.created', {
      schema: { ...ORDER_SCHEMA, required: ['id', 'total', 'currency'], properties: { ...ORDER_SCHEMA.properties, currency: { type: 'string' } } },
      examples: [{ id: 'o2', total: 3, currency: 'EUR' }],
    });
    expect(v2.status, v2.text).toBe(200);
    expect(v2.json.latestVersion).toBe(2);
    expect(v2.json.versions.map((v: { version: number }) => v.version)).toEqual([1, 2]);

    const got = await svc.request('GET', '/api/event-types/order.created');
    expect(got.json.versions[1].examples).toEqual([{ id: 'o2', total: 3, currency: 'EUR' }]);
    const list = await svc.request('GET', '/api/event-types');
    expect(list.status).toBe(200);
    expect(list.json.map((t: { name: string }) => t.name)).toContain('order.created');

    expect((await svc.request('POST', '/api/event-types', { name: 'tmp.type' })).status).toBe(201);
    expect((await svc.request('DELETE', '/api/event-types/tmp.type')).json).toEqual({ deleted: true, id: 'tmp.type' });
    expect((await svc.request('GET', '/api/event-types/tmp.type')).json.code).toBe('event_type_not_found');
  });

  it('refuses bad names, taken names, schemas ajv cannot compile, remote references and examples that fail the schema', async () => {
    const refuse = async (body: unknown, code: string, field?: string) => {
      const res = await svc.request('POST', '/api/event-types', body);
      expect(res.json.code, res.text).toBe(code);
      if (field) expect(res.json.details.field).toBe(field);
      return res;
    };
    await refuse({ name: 'switchyard.delivery.failed' }, 'invalid_request', 'name');
    await refuse({ name: 'has space' }, 'invalid_request', 'name');
    await refuse({ name: 'order.created' }, 'event_type_exists');
    await refuse({ name: 'bad.schema', schema: { type: 'nonsense' } }, 'invalid_request', 'schema');
    await refuse({ name: 'bad.keyword', schema: { type: 'object', propertiez: {} } }, 'invalid_request', 'schema');
    const remote = await refuse({ name: 'bad.ref', schema: { $ref: 'https://example.com/schema.json' } }, 'invalid_request', 'schema');
    expect(remote.json.error).toMatch(/nothing is fetched/);
    let deep: Record<string, unknown> = { type: 'object' };
    for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { a: deep } };
    await refuse({ name: 'bad.deep', schema: deep }, 'invalid_request', 'schema');
    const ex = await refuse({ name: 'bad.example', schema: ORDER_SCHEMA, examples: [{ id: 'x', total: 1 }, { id: 'y' }] }, 'invalid_request', 'examples[1]');
    expect(ex.json.error).toMatch(/total/);
    await refuse({ name: 'bad.mode', mode: 'strict' }, 'invalid_request');
    expect((await svc.request('GET', '/api/event-types/bad.example')).status).toBe(404);
    expect((await svc.request('PUT', '/api/event-types/nope', { mode: 'warn' })).json.code).toBe('event_type_not_found');
  });
});

describe('event types: validation at publish', () => {
  beforeAll(async () => {
    expect((await svc.request('POST', '/api/event-types', { name: 'pay.done', schema: ORDER_SCHEMA })).status).toBe(201);
  });

  it('mode off publishes anything, unchecked', async () => {
    const res = await svc.request('POST', '/api/events', { event: 'pay.done', data: { id: 1 } });
    expect(res.status).toBe(202);
    expect(res.json.validation).toBeUndefined();
  });

  it('mode warn publishes, says so in the answer and records the violation', async () => {
    expect((await svc.request('PUT', '/api/event-types/pay.done', { mode: 'warn' })).status).toBe(200);
    const bad = await svc.request('POST', '/api/events', { event: 'pay.done', data: { id: 'p1', total: -3 } });
    expect(bad.status, bad.text).toBe(202);
    expect(bad.json.validation).toMatchObject({ type: 'pay.done', version: 1, mode: 'warn', valid: false, path: '/total' });
    const good = await svc.request('POST', '/api/events', { event: 'pay.done', data: { id: 'p1', total: 3 } });
    expect(good.json.validation).toEqual({ type: 'pay.done', version: 1, mode: 'warn', valid: true });
    const violations = await svc.request('GET', '/api/event-types/pay.done/violations');
    expect(violations.status).toBe(200);
    expect(violations.json[0]).toMatchObject({ version: 1, path: '/total', source: 'publish' });
    expect(violations.json[0].message).toMatch(/>= 0/);
  });

  it('mode reject answers 400 event_invalid naming the failing path and publishes nothing', async () => {
    const hook = await svc.request('POST', '/api/webhooks', { name: 'pay-hook', target_url: receiver.url + '/pay', method: 'POST', payload_template: {}, events: ['pay.done'] });
    expect(hook.status, hook.text).toBe(201);
    expect((await svc.request('PUT', '/api/event-types/pay.done', { mode: 'reject' })).status).toBe(200);
    const bad = await svc.request('POST', '/api/events', { event: 'pay.done', data: { id: 'p2', total: 1, lines: [{ sku: 5 }] } });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('event_invalid');
    expect(bad.json.details).toMatchObject({ path: '/lines/0/sku', version: 1, field: 'data/lines/0/sku' });
    expect(bad.json.error).toMatch(/^data\/lines\/0\/sku: must be string/);
    const deliveries = await svc.request('GET', `/api/webhooks/${hook.json.id}/deliveries`);
    expect(deliveries.json).toHaveLength(0);
    const good = await svc.request('POST', '/api/events', { event: 'pay.done', data: { id: 'p2', total: 1 } });
    expect(good.status).toBe(202);
    expect(good.json.deliveries).toHaveLength(1);
  });

  it('a publish may name an older version; a version the type lacks is 400 naming version', async () => {
    await svc.request('PUT', '/api/event-types/pay.done', { schema: { ...ORDER_SCHEMA, required: ['id', 'total', 'currency'] } });
    const latest = await svc.request('POST', '/api/events', { event: 'pay.done', data: { id: 'p3', total: 1 } });
    expect(latest.json.code).toBe('event_invalid');
    expect(latest.json.details.version).toBe(2);
    const older = await svc.request('POST', '/api/events', { event: 'pay.done', data: { id: 'p3', total: 1 }, version: 1 });
    expect(older.status, older.text).toBe(202);
    expect(older.json.validation).toMatchObject({ version: 1, valid: true });
    const missing = await svc.request('POST', '/api/events', { event: 'pay.done', data: {}, version: 9 });
    expect(missing.status).toBe(400);
    expect(missing.json.details.field).toBe('version');
  });

  it('events with no catalogue entry publish as before', async () => {
    const res = await svc.request('POST', '/api/events', { event: 'not.catalogued', data: { anything: true } });
    expect(res.status).toBe(202);
    expect(res.json.validation).toBeUndefined();
  });
});

describe('event types: emit() from functions', () => {
  it('warn publishes the emit and records it; reject throws in the function, naming the path, and publishes nothing', async () => {
    expect((await svc.request('POST', '/api/event-types', { name: 'emit.check', schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } }, mode: 'warn' })).status).toBe(201);
    const sink = await svc.request('POST', '/api/functions', { name: 'emit-sink', code: 'export const handler = async (e) => e.detail;', events: ['emit.check'] });
    expect(sink.status, sink.text).toBe(201);
    const emitter = await svc.request('POST', '/api/functions', {
      name: 'emit-source',
      code: "export const handler = async (e) => { emit('emit.check', { n: e.n }); return 'ok'; };",
    });
    expect(emitter.status, emitter.text).toBe(201);
    const sinkRuns = async () => (await svc.request('GET', '/api/functions/emit-sink/invocations?limit=100')).json as Array<{ event: any }>;

    expect((await svc.request('POST', '/api/functions/emit-source/invoke', { n: 'x' })).status).toBe(200);
    await until(async () => (await sinkRuns()).length === 1, 'the warned emit to arrive');
    const warned = await until(async () => {
      const v = (await svc.request('GET', '/api/event-types/emit.check/violations')).json;
      return v.length === 1 ? v : null;
    }, 'the emit violation');
    expect(warned[0]).toMatchObject({ path: '/n', source: 'emit' });

    // Reject: the emit throws in the function (as a publish answers 400), naming the path; nothing is published.
    expect((await svc.request('PUT', '/api/event-types/emit.check', { mode: 'reject' })).status).toBe(200);
    const catcher = await svc.request('POST', '/api/functions', {
      name: 'emit-catcher',
      code: "export const handler = async (e) => { try { emit('emit.check', { n: e.n }); return { sent: true }; } catch (err) { return { name: err.name, code: err.code, message: err.message }; } };",
    });
    expect(catcher.status, catcher.text).toBe(201);
    const refused = await svc.request('POST', '/api/functions/emit-catcher/invoke', { n: 'y' });
    expect(refused.status, refused.text).toBe(200);
    expect(refused.json.result).toEqual({
      name: 'EventInvalidError',
      code: 'event_invalid',
      message: "emit: data/n: must be integer (event type 'emit.check' version 1)",
    });
    expect((await svc.request('POST', '/api/functions/emit-catcher/invoke', { n: 7 })).json.result).toEqual({ sent: true });
    // Uncaught, the refusal fails the invocation like any throw.
    const failed = await svc.request('POST', '/api/functions/emit-source/invoke', { n: 'z' });
    expect(failed.json.error).toMatchObject({ code: 'function_error', message: expect.stringContaining("EventInvalidError: emit: data/n: must be integer (event type 'emit.check'") });
    // The valid emit arrives; the refused ones never did, and were not recorded as violations at fan-out.
    await until(async () => (await sinkRuns()).length === 2, 'the valid emit to arrive');
    const runs = await sinkRuns();
    expect(runs.map((r) => JSON.stringify(r.event)).join()).not.toMatch(/"[yz]"/);
    expect((await svc.request('GET', '/api/event-types/emit.check/violations')).json).toHaveLength(1);

    // Back to warn: the same emit is published again (the workers' rules follow every change).
    expect((await svc.request('PUT', '/api/event-types/emit.check', { mode: 'warn' })).status).toBe(200);
    expect((await svc.request('POST', '/api/functions/emit-catcher/invoke', { n: 'w' })).json.result).toEqual({ sent: true });
    await until(async () => (await sinkRuns()).length === 3, 'the warned emit to arrive');
  });

});

describe('event types: the OpenAPI webhooks section and import', () => {
  it('serves the catalogue as webhooks in /api/openapi.json, valid OpenAPI 3.1', async () => {
    const doc = (await svc.request('GET', '/api/openapi.json')).json;
    const op = doc.webhooks['order.created'].post;
    expect(op.deprecated).toBe(true);
    expect(op.requestBody.content['application/json'].schema.properties.data).toMatchObject({ required: ['id', 'total', 'currency'] });
    expect(op.requestBody.content['application/json'].examples.example1.value).toEqual({ event: 'order.created', data: { id: 'o2', total: 3, currency: 'EUR' } });
    expect(doc.webhooks['tmp.type']).toBeUndefined();
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('imports the webhooks of a document (its own export included), resolving component references', async () => {
    const doc = {
      openapi: '3.1.0',
      info: { title: 'shop', version: '1' },
      components: { schemas: { Money: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } } } },
      webhooks: {
        'refund.issued': {
          post: {
            summary: 'A refund was issued',
            deprecated: true,
            requestBody: {
              content: {
                'application/json': {
                  schema: { type: 'object', required: ['refund'], properties: { refund: { $ref: '#/components/schemas/Money' } } },
                  examples: { small: { value: { refund: { amount: 2 } } } },
                },
              },
            },
          },
        },
      },
    };
    const res = await svc.request('POST', '/api/event-type-imports', { document: doc, mode: 'reject' });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ created: ['refund.issued'], updated: [] });
    const t = (await svc.request('GET', '/api/event-types/refund.issued')).json;
    expect(t).toMatchObject({ mode: 'reject', deprecated: true, description: 'A refund was issued' });
    expect(t.versions[0].examples).toEqual([{ refund: { amount: 2 } }]);
    const bad = await svc.request('POST', '/api/events', { event: 'refund.issued', data: { refund: { amount: 'two' } } });
    expect(bad.json.details?.path).toBe('/refund/amount');

    // Our own document back in: every type there exists and is unchanged (same schemas: no new version).
    const served = (await svc.request('GET', '/api/openapi.json')).json;
    const again = await svc.request('POST', '/api/event-type-imports', { document: served });
    expect(again.status, again.text).toBe(200);
    expect(again.json.created).toEqual([]);
    expect(again.json.updated).toContain('order.created');
    expect((await svc.request('GET', '/api/event-types/order.created')).json.latestVersion).toBe(2);

    const broken = await svc.request('POST', '/api/event-type-imports', { document: { openapi: '3.1.0', webhooks: { 'x.y': { post: {} } } } });
    expect(broken.status).toBe(400);
    expect(broken.json.details.field).toBe('document.webhooks.x.y');
  });
});

describe('event types: test-fire', () => {
  it("sends the first example of the latest version of the webhook's first catalogued type", async () => {
    const hook = await svc.request('POST', '/api/webhooks', {
      name: 'orders-test',
      target_url: receiver.url + '/orders-test',
      method: 'POST',
      payload_template: { kind: '{{event}}' },
      events: ['*', 'not.catalogued', 'order.created'],
    });
    expect(hook.status, hook.text).toBe(201);
    const res = await svc.request('POST', `/api/webhooks/${hook.json.id}/test`);
    expect(res.status, res.text).toBe(200);
    const got = receiver.requests.filter((r) => r.url === '/orders-test');
    expect(got).toHaveLength(1);
    expect(JSON.parse(got[0].body)).toEqual({ kind: 'order.created', data: { id: 'o2', total: 3, currency: 'EUR' } });

    const plain = await svc.request('POST', '/api/webhooks', { name: 'plain-test', target_url: receiver.url + '/plain', method: 'POST', payload_template: { kind: '{{event}}' }, events: ['not.catalogued'] });
    expect((await svc.request('POST', `/api/webhooks/${plain.json.id}/test`)).status).toBe(200);
    expect(JSON.parse(receiver.requests.find((r) => r.url === '/plain')!.body)).toEqual({ kind: null });
  });
});

describe('event types: the CLI', () => {
  it('imports a YAML OpenAPI document and lists the catalogue', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'event-types-cli-'));
    const file = join(dir, 'shop.yaml');
    writeFileSync(
      file,
      [
        'openapi: 3.1.0',
        'info: { title: shop, version: "1" }',
        'webhooks:',
        '  cart.abandoned:',
        '    post:',
        '      summary: A cart was left',
        '      requestBody:',
        '        content:',
        '          application/json:',
        '            schema: { type: object, required: [cart], properties: { cart: { type: string } } }',
        '',
      ].join('\n'),
    );
    const env = { SWITCHYARD_URL: svc.url };
    const imported = await runCliToEnd(['event-types', 'import', file, '--mode', 'warn'], env, 30_000);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('created  cart.abandoned');
    const listed = await runCliToEnd(['event-types', 'list'], env, 30_000);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/cart\.abandoned\s+warn\s+1\s+/);
    const bad = await runCliToEnd(['event-types', 'import', file, '--mode', 'loud'], env, 30_000);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--mode must be off, warn or reject');
  });
});

describe('event types: switchyard.yaml', () => {
  it('applies event_types with schemas from files, plans nothing the second time, versions a changed schema, exports and prunes its own', async () => {
    expect((await svc.request('POST', '/api/event-types', { name: 'hand.made' })).status).toBe(201);
    const dir = mkdtempSync(join(tmpdir(), 'event-types-project-'));
    mkdirSync(join(dir, 'schemas'));
    const schemaV1 = { type: 'object', required: ['sku'], properties: { sku: { type: 'string' } } };
    writeFileSync(join(dir, 'schemas', 'stock.json'), JSON.stringify(schemaV1));
    const yaml = (extra = '') =>
      [
        'project: shopfront',
        'event_types:',
        '  stock.low:',
        '    description: Stock ran low',
        '    mode: reject',
        '    schema: schemas/stock.json',
        '    examples: [{ sku: A-1 }]',
        '  stock.inline:',
        '    schema: { type: object }',
        extra,
        '',
      ].join('\n');
    writeFileSync(join(dir, 'switchyard.yaml'), yaml());
    const env = { SWITCHYARD_URL: svc.url };
    const first = await runCliToEnd(['apply', '-f', dir], env, 60_000);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('+ event_type stock.low');
    const t = (await svc.request('GET', '/api/event-types/stock.low')).json;
    expect(t).toMatchObject({ description: 'Stock ran low', mode: 'reject', project: 'shopfront', latestVersion: 1 });
    expect(t.versions[0]).toMatchObject({ schema: schemaV1, examples: [{ sku: 'A-1' }] });
    expect((await svc.request('POST', '/api/events', { event: 'stock.low', data: { sku: 5 } })).json.code).toBe('event_invalid');

    const again = await runCliToEnd(['apply', '-f', dir], env, 60_000);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes');

    writeFileSync(join(dir, 'schemas', 'stock.json'), JSON.stringify({ ...schemaV1, required: ['sku', 'left'] }));
    writeFileSync(join(dir, 'switchyard.yaml'), yaml().replace('examples: [{ sku: A-1 }]', 'examples: [{ sku: A-1, left: 2 }]'));
    const changed = await runCliToEnd(['apply', '-f', dir], env, 60_000);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toContain('~ event_type stock.low (schema)');
    expect((await svc.request('GET', '/api/event-types/stock.low')).json.latestVersion).toBe(2);

    const exported = await runCliToEnd(['export', '-o', join(dir, 'exported.yaml')], env, 60_000);
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(join(dir, 'exported.yaml'), 'utf8');
    expect(text).toContain('stock.low:');
    expect(text).toContain('mode: reject');

    // A schema file outside the project folder is refused, naming the key; nothing changes.
    writeFileSync(join(dir, 'switchyard.yaml'), yaml().replace('schema: schemas/stock.json', 'schema: ../outside.json'));
    const outside = await runCliToEnd(['apply', '-f', dir], env, 60_000);
    expect(outside.code).not.toBe(0);
    expect(outside.stderr).toContain('event_types.stock.low.schema');
    // So is an example the schema refuses.
    writeFileSync(join(dir, 'switchyard.yaml'), yaml().replace('examples: [{ sku: A-1 }]', 'examples: [{ sku: 7 }]'));
    const badExample = await runCliToEnd(['apply', '-f', dir], env, 60_000);
    expect(badExample.code).not.toBe(0);
    expect(badExample.stderr).toContain('event_types.stock.low.examples.0');

    // Prune deletes the project's own types the file no longer names, never the others'.
    writeFileSync(join(dir, 'switchyard.yaml'), ['project: shopfront', 'event_types:', '  stock.inline:', '    schema: { type: object }', ''].join('\n'));
    const pruned = await runCliToEnd(['apply', '-f', dir, '--prune'], env, 60_000);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toContain('- event_type stock.low');
    expect((await svc.request('GET', '/api/event-types/stock.low')).status).toBe(404);
    expect((await svc.request('GET', '/api/event-types/hand.made')).status).toBe(200);
  }, 120_000);
});

describe.skipIf(process.platform !== 'linux')('event types: read-your-writes on one node with two server processes', () => {
  let two: RunningService;
  let writer: Connection;
  let other: Connection;

  beforeAll(async () => {
    // Two processes on a machine shared with other suites may take longer than one to say they listen.
    two = await startService({ env: { SWITCHYARD_PROCESSES: '2', SWITCHYARD_WORKERS: '1' }, startTimeoutMs: 60_000 });
    writer = await connectTo(two.url, {});
    other = await connectTo(two.url, { not: writer.pid });
  }, 90_000);
  afterAll(async () => {
    writer?.close();
    other?.close();
    await two?.stop('SIGKILL');
  });

  it('a mode or schema change applies in the other process as soon as the write answers: 0 stale of 20', async () => {
    const schema = (min: number) => ({ type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: min } } });
    expect((await writer.request('POST', '/api/event-types', { name: 'ryw.check', schema: schema(0), mode: 'reject' })).status).toBe(201);
    // The other process has compiled version 1: the case that goes stale.
    expect((await other.request('POST', '/api/events', { event: 'ryw.check', data: { n: 1 } })).status).toBe(202);
    let stale = 0;
    for (let round = 1; round <= 20; round++) {
      // Each round raises the minimum past the last value: only the new version refuses n = round.
      expect((await writer.request('PUT', '/api/event-types/ryw.check', { schema: schema(round + 1) })).status).toBe(200);
      if ((await other.request('POST', '/api/events', { event: 'ryw.check', data: { n: round } })).status !== 400) stale++;
      expect((await writer.request('PUT', '/api/event-types/ryw.check', { mode: 'off' })).status).toBe(200);
      if ((await other.request('POST', '/api/events', { event: 'ryw.check', data: { n: round } })).status !== 202) stale++;
      expect((await writer.request('PUT', '/api/event-types/ryw.check', { mode: 'reject' })).status).toBe(200);
    }
    expect(stale).toBe(0);
  }, 120_000);
});
