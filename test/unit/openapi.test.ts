/**
 * The OpenAPI document as the build writes it (built here the same way: the
 * real route modules, no server, no database) passes a real OpenAPI 3.1
 * validator, its schemas compile under JSON Schema 2020-12 in strict mode, and
 * it says what generated clients need: a readable operationId and a documented
 * success answer for every operation, named components, and security as the
 * server enforces it.
 */
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { buildOpenApiDocument } from '../../src/http/management.js';

/** The codes docs/errors.md documents for HTTP answers: its tables before "At start-up" (start-up and CLI codes come after). */
function documentedAnswerCodes(): string[] {
  const text = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const http = text.slice(0, text.indexOf('\n## At start-up'));
  return [...new Set([...http.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]))];
}

let doc: Record<string, any>;
const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(method))
      .map(([method, op]) => ({ path, method, op })),
  );

beforeAll(async () => {
  doc = await buildOpenApiDocument({ secured: true });
});

describe('OpenAPI document', () => {
  it('passes the OpenAPI 3.1 validator with no errors', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has schemas that compile as JSON Schema 2020-12 in strict mode', () => {
    const ajv = new Ajv2020({ strict: true, validateFormats: false, allErrors: true });
    ajv.addKeyword('example');
    for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, object>)) {
      ajv.addSchema(schema, `#/components/schemas/${name}`);
    }
    for (const { path, method, op } of operations()) {
      for (const [status, answer] of Object.entries(op.responses as Record<string, any>)) {
        for (const media of Object.values((answer.content ?? {}) as Record<string, { schema: object }>)) {
          expect(() => ajv.compile(media.schema), `${method} ${path} ${status}`).not.toThrow();
        }
      }
    }
  });

  it('gives every operation a unique readable operationId and a documented success answer with a schema', () => {
    const ids = new Set<string>();
    for (const { path, method, op } of operations()) {
      expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
      expect(ids.has(op.operationId), `duplicate ${op.operationId}`).toBe(false);
      ids.add(op.operationId);
      const statuses = Object.keys(op.responses);
      const success = statuses.find((s) => /^2\d\d$/.test(s) || s === 'default');
      expect(success, `${op.operationId} documents no 2xx`).toBeDefined();
      for (const status of statuses) {
        const content = op.responses[status].content;
        expect(content, `${op.operationId} ${status} has no content`).toBeDefined();
        for (const media of Object.values(content as Record<string, { schema?: object }>)) expect(media.schema).toBeDefined();
      }
    }
    for (const id of [
      'listFunctions',
      'createFunction',
      'getFunction',
      'updateFunction',
      'deleteFunction',
      'invokeFunction',
      'listFunctionLogs',
      'streamFunctionLogs',
      'streamLogs',
      'listApis',
      'createApi',
      'createWebhook',
      'testWebhook',
      'testWebhookFilter',
      'listDeliveries',
      'retryDelivery',
      'publishEvent',
      'healthz',
      'readyz',
      'metrics',
      'invokeGet',
      'invokePost',
    ]) {
      expect(ids.has(id), id).toBe(true);
    }
  });

  it('names its shapes and answers with them', () => {
    const names = Object.keys(doc.components.schemas);
    for (const name of ['Function', 'Api', 'Route', 'Webhook', 'Delivery', 'Attempt', 'LogEntry', 'Error', 'Invocation']) {
      expect(names).toContain(name);
    }
    expect(names.filter((n) => n.startsWith('def-'))).toEqual([]);
    const answer = (path: string, method: string, status: string) =>
      doc.paths[path][method].responses[status].content['application/json'].schema;
    expect(answer('/api/functions/{name}', 'get', '200')).toEqual({ $ref: '#/components/schemas/Function' });
    expect(answer('/api/functions/{name}', 'get', '404')).toEqual({ $ref: '#/components/schemas/Error' });
    expect(answer('/api/webhooks', 'post', '201')).toEqual({ $ref: '#/components/schemas/Webhook' });
    expect(answer('/api/events', 'post', '202')).toEqual({ $ref: '#/components/schemas/PublishedEvent' });
    expect(doc.paths['/api/events'].post.responses['200']).toBeUndefined();
    // Any JSON object, not an empty one.
    expect(doc.components.schemas.Webhook.properties.payload_template.additionalProperties).toBe(true);
    expect(doc.paths['/api/webhooks'].post.requestBody.content['application/json'].schema.properties.payload_template)
      .toMatchObject({ type: 'object', additionalProperties: true });
  });

  it("types the Error answer's code as the enum of every code docs/errors.md documents, and no other", () => {
    const codes: string[] = doc.components.schemas.Error.properties.code.enum;
    expect(doc.components.schemas.Error.properties.code.type).toBe('string');
    const documented = documentedAnswerCodes();
    expect(documented.length).toBeGreaterThan(40);
    expect(documented.filter((c) => !codes.includes(c)), 'documented in docs/errors.md, missing from the enum').toEqual([]);
    expect(codes.filter((c) => !documented.includes(c)), 'in the enum, not documented in docs/errors.md').toEqual([]);
    expect(codes).toEqual([...ERROR_CODES]);
  });

  it('types every numeric query and path parameter as an integer, so clients send and type numbers', () => {
    const numeric = new Map<string, unknown>();
    for (const { op } of operations()) {
      for (const p of (op.parameters ?? []) as Array<{ name: string; in: string; schema: { type?: string; pattern?: string } }>) {
        if (['limit', 'since', 'ping_ms', 'minutes', 'version'].includes(p.name)) numeric.set(`${op.operationId} ${p.in} ${p.name}`, p.schema.type);
        // A string parameter that only takes digits is a number typed as a string.
        if (p.schema.type === 'string') expect(p.schema.pattern ?? '', `${op.operationId} ${p.name}`).not.toMatch(/^\^\[[01]-9\]/);
      }
    }
    expect(numeric.size).toBeGreaterThanOrEqual(14);
    for (const [where, type] of numeric) expect(type, where).toBe('integer');
  });

  it('documents the streams as server-sent events and the invocation endpoint', () => {
    for (const path of ['/api/functions/{name}/logs/stream', '/api/logs/stream']) {
      expect(Object.keys(doc.paths[path].get.responses['200'].content)).toEqual(['text/event-stream']);
    }
    expect(doc.paths['/api/logs/stream'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['since', 'ping_ms', 'function']),
    );
    expect(doc.paths['/api/invoke/fn/{apiId}/{path}'].post.operationId).toBe('invokePost');
  });

  it('says where the server is and which operations need the admin key, as enforced', async () => {
    expect(doc.servers.length).toBeGreaterThan(0);
    expect(doc.security).toEqual([{ adminKey: [] }]);
    expect(doc.components.securitySchemes.adminKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const { path, method, op } of operations()) {
      const isPublic = ['/', '/healthz', '/readyz', '/metrics', '/portal/{application}'].includes(path) || path.startsWith('/api/invoke/');
      if (isPublic) expect(op.security, `${method} ${path}`).toEqual([]);
      // The consumer API takes a portal token, never the admin key (src/http/portal.ts).
      else if (path.startsWith('/api/portal/')) expect(op.security, `${method} ${path}`).toEqual([{ portalToken: [] }]);
      else expect(op.security, `${method} ${path}`).toBeUndefined();
    }
    const open = await buildOpenApiDocument({ secured: false });
    expect(open.security).toEqual([]);
  });
});
