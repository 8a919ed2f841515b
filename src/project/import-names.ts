/**
 * The names an import gives what it carries: each function, API and usage
 * plan prefixed by its project (the Serverless service, the SAM stack), so
 * two `sam init` projects that both hold `HelloWorldFunction` and
 * `ServerlessRestApi` land side by side on one server instead of one
 * replacing the other. The rename runs once over the finished document, so
 * every reference (routes, authorizers, destinations, usage plans) follows.
 */
import type { ProjectDocument } from './types.js';

/** A function's name rule (src/schema/functions.ts): a letter, then letters, digits, _ and -, 64 at most. */
const FUNCTION_NAME_MAX = 64;

/**
 * A project name as a prefix that keeps every name it starts valid: what is
 * not a letter, digit, _ or - becomes -, and one that does not start with a
 * letter gets `app-` before it. Null when nothing is left.
 */
export function projectPrefix(raw: string): string | null {
  const cleaned = raw.trim().replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
  if (cleaned === '') return null;
  const prefix = /^[A-Za-z]/.test(cleaned) ? cleaned : `app-${cleaned}`;
  return prefix.slice(0, 40);
}

/**
 * `<project>-<name>` within a function name's 64 characters: the prefix is
 * shortened, never the name (the part people recognise). A name that is
 * already the project's (`users-service-rest`) stays as it is.
 */
export function prefixed(prefix: string, name: string): string {
  if (name === prefix || name.startsWith(`${prefix}-`)) return name;
  const room = FUNCTION_NAME_MAX - name.length - 1;
  if (room < 1) return name;
  return `${prefix.slice(0, room).replace(/-+$/, '')}-${name}`;
}

/** Renames every function, API and usage plan of the document, and every reference to them. */
export function prefixNames(doc: ProjectDocument, prefix: string): void {
  const fn = (name: string) => prefixed(prefix, name);
  if (doc.functions) {
    const renamed: NonNullable<ProjectDocument['functions']> = {};
    for (const [name, spec] of Object.entries(doc.functions)) {
      for (const key of ['on_success', 'on_failure'] as const) {
        const d = spec.async?.[key];
        if (d && 'function' in d) spec.async![key] = { function: fn(d.function) };
      }
      renamed[fn(name)] = spec;
    }
    doc.functions = renamed;
  }
  if (doc.apis) {
    const renamed: NonNullable<ProjectDocument['apis']> = {};
    for (const [name, api] of Object.entries(doc.apis)) {
      for (const route of api.routes ?? []) route.function = fn(route.function);
      for (const authorizer of api.authorizers ?? []) if (authorizer.function) authorizer.function = fn(authorizer.function);
      renamed[prefixed(prefix, name)] = api;
    }
    doc.apis = renamed;
  }
  if (doc.usage_plans) {
    const renamed: NonNullable<ProjectDocument['usage_plans']> = {};
    for (const [name, plan] of Object.entries(doc.usage_plans)) {
      plan.apis = plan.apis.map((a) => prefixed(prefix, a));
      renamed[prefixed(prefix, name)] = plan;
    }
    doc.usage_plans = renamed;
  }
}
