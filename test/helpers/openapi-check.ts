/**
 * Checks an answer of the management API against the OpenAPI document the build
 * wrote (dist/openapi.json): the operation is found by method and path
 * template, the status must be documented, a body must come with one of the
 * media types documented for that status (a generated client picks its parser
 * by it), and a JSON body must match the schema documented for that status. Schemas compile once per test file (Ajv,
 * JSON Schema 2020-12 as OpenAPI 3.1 uses), on first use of each answer.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

const DOCUMENT = join(resolve(import.meta.dirname, '..', '..'), 'dist', 'openapi.json');

interface Operation {
  template: string;
  pattern: RegExp;
  responses: Record<string, { content?: Record<string, { schema?: object }> }>;
}

let byMethod: Map<string, Operation[]> | null = null;
let ajv: Ajv2020;
const compiled = new Map<string, ValidateFunction>();

function load(): Map<string, Operation[]> {
  const doc = JSON.parse(readFileSync(DOCUMENT, 'utf8')) as {
    paths: Record<string, Record<string, { responses?: Operation['responses'] }>>;
    components: object;
  };
  ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  const map = new Map<string, Operation[]>();
  for (const [template, item] of Object.entries(doc.paths)) {
    // The invocation endpoint answers what functions return: nothing to check.
    if (template.startsWith('/api/invoke/')) continue;
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, op] of Object.entries(item)) {
      if (!op.responses) continue;
      const list = map.get(method.toUpperCase()) ?? [];
      list.push({ template, pattern, responses: op.responses });
      map.set(method.toUpperCase(), list);
    }
  }
  return map;
}

function validatorFor(key: string, schema: object): ValidateFunction {
  const known = compiled.get(key);
  if (known) return known;
  const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')));
  compiled.set(key, validate);
  return validate;
}

/** Throws when the answer is not what the document says; answers of undocumented paths pass. */
export function checkAnswer(method: string, url: string, status: number, contentType: string | null, text: string): void {
  byMethod ??= load();
  const path = url.split('?', 1)[0];
  const op = byMethod.get(method.toUpperCase())?.find((o) => o.pattern.test(path));
  if (!op) return;
  const where = `${method} ${path} (${op.template})`;
  const documented = op.responses[String(status)] ?? op.responses.default;
  if (!documented) {
    throw new Error(`${where} answered ${status}, which its OpenAPI operation does not document: ${text.slice(0, 300)}`);
  }
  const media = Object.keys(documented.content ?? {});
  const type = contentType?.split(';', 1)[0].trim().toLowerCase();
  if (text !== '' && media.length > 0 && !media.some((m) => m === type || m === '*/*')) {
    throw new Error(`${where} answered ${status} with Content-Type ${contentType ?? '(none)'}; its OpenAPI operation documents ${media.join(', ')}`);
  }
  const schema = documented.content?.['application/json']?.schema;
  if (!schema || !contentType?.startsWith('application/json') || text === '') return;
  const validate = validatorFor(`${method} ${op.template} ${status}`, schema);
  if (!validate(JSON.parse(text))) {
    throw new Error(
      `${where} answered ${status} with a body that does not match its documented schema: ` +
        `${ajv.errorsText(validate.errors, { separator: '; ' })}\n${text.slice(0, 500)}`,
    );
  }
}
