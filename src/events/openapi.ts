/**
 * The catalogue as an OpenAPI 3.1 `webhooks` section, and back. Each type is
 * one `post` operation keyed by its name: the request body is what a webhook
 * receives for it by default (an object whose `data` is the event's data,
 * described by the latest version's schema), with the version's examples;
 * `deprecated` maps to the operation's flag. Import reads the same shape
 * (and plain `requestBody` schemas: the whole body is then the data),
 * bringing along the `#/components/schemas` a schema references as `$defs`.
 */
import { InvalidRequestError } from '../errors.js';
import type { EventType } from './types.js';

const COMPONENT_REF = /^#\/components\/schemas\/([^/]+)$/;

/** The data schema as a resource of its own, so its internal `#/$defs/...` references resolve inside it. */
function dataSchema(type: EventType, version: number, schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return { $id: `urn:switchyard:event-type:${encodeURIComponent(type.name)}:${version}`, ...rest };
}

/** The `webhooks` section of the served document: one entry per type with a schema. */
export function webhooksSection(types: readonly EventType[]): Record<string, unknown> {
  const section: Record<string, unknown> = {};
  for (const type of types) {
    const latest = type.versions.at(-1);
    if (!latest) continue;
    const examples = Object.fromEntries(latest.examples.map((value, i) => [`example${i + 1}`, { value: { event: type.name, data: value } }]));
    section[type.name] = {
      post: {
        operationId: `event_${type.name.replace(/[^A-Za-z0-9_]/g, '_')}`,
        summary: type.description.split('\n')[0].slice(0, 200) || `The ${type.name} event`,
        ...(type.description ? { description: type.description } : {}),
        tags: ['event-types'],
        ...(type.deprecated ? { deprecated: true } : {}),
        'x-switchyard-version': latest.version,
        'x-switchyard-validation': type.mode,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                description: "The default payload (a webhook's payload_template may shape it otherwise); `data` is the event's data",
                required: ['data'],
                properties: { event: { type: 'string', const: type.name }, data: dataSchema(type, latest.version, latest.schema) },
              },
              ...(latest.examples.length > 0 ? { examples } : {}),
            },
          },
        },
        responses: { '2XX': { description: 'Received: any 2xx answer ends the delivery' } },
        security: [],
      },
    };
  }
  return section;
}

/** One type read from a document's `webhooks`. */
export interface ImportedType {
  name: string;
  description?: string;
  deprecated?: boolean;
  schema: Record<string, unknown>;
  examples: unknown[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Rewrites `#/components/schemas/X` to `#/$defs/X`, collecting each X (and what it references) from the document. */
function inlineComponents(schema: unknown, components: Record<string, unknown>, defs: Record<string, unknown>, field: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inlineComponents(s, components, defs, field));
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$ref' && typeof v === 'string') {
      const m = COMPONENT_REF.exec(v);
      if (m) {
        const name = decodeURIComponent(m[1]);
        if (!(name in defs)) {
          if (!isObject(components[name])) throw new InvalidRequestError(`${field}: $ref ${v} is not in the document's components.schemas`, { field });
          defs[name] = true;
          defs[name] = inlineComponents(components[name], components, defs, field);
        }
        out[k] = `#/$defs/${encodeURIComponent(name)}`;
        continue;
      }
    }
    out[k] = inlineComponents(v, components, defs, field);
  }
  return out;
}

/** The types an OpenAPI 3.x document's `webhooks` describe; throws InvalidRequestError naming the first entry it cannot read. */
export function typesFromDocument(doc: unknown): ImportedType[] {
  if (!isObject(doc)) throw new InvalidRequestError('document: must be an OpenAPI document (a JSON object)', { field: 'document' });
  const webhooks = doc.webhooks;
  if (!isObject(webhooks)) throw new InvalidRequestError('document.webhooks: the document has no webhooks section', { field: 'document.webhooks' });
  const components = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  const types: ImportedType[] = [];
  for (const [name, item] of Object.entries(webhooks)) {
    const field = `document.webhooks.${name}`;
    const op = isObject(item) ? item.post : undefined;
    const content = isObject(op) && isObject(op.requestBody) && isObject(op.requestBody.content) ? op.requestBody.content : undefined;
    const media = content && (content['application/json'] ?? Object.values(content)[0]);
    if (!isObject(op) || !isObject(media) || !isObject(media.schema)) {
      throw new InvalidRequestError(`${field}: needs a post operation with a JSON requestBody schema`, { field });
    }
    const defs: Record<string, unknown> = {};
    let body = inlineComponents(media.schema, components, defs, field) as Record<string, unknown>;
    // Our own export (and the common envelope): the event's data is the body's `data` property.
    let wrapped = false;
    if (isObject(body.properties) && isObject(body.properties.data)) {
      body = body.properties.data;
      wrapped = true;
    }
    const { $id: _id, ...schema } = body;
    if (Object.keys(defs).length > 0) schema.$defs = { ...(isObject(schema.$defs) ? schema.$defs : {}), ...defs };
    const examples: unknown[] = [];
    const unwrap = (v: unknown) => (wrapped && isObject(v) && 'data' in v ? v.data : v);
    if (isObject(media.examples)) for (const ex of Object.values(media.examples)) if (isObject(ex) && 'value' in ex) examples.push(unwrap(ex.value));
    if (media.example !== undefined) examples.push(unwrap(media.example));
    types.push({
      name,
      description: typeof op.description === 'string' ? op.description : typeof op.summary === 'string' ? op.summary : undefined,
      deprecated: op.deprecated === true ? true : undefined,
      schema,
      examples,
    });
  }
  return types;
}
