/**
 * An API's `cors` as the project file writes it (snake_case, like every key
 * of the file) and as the API takes it (camelCase, src/schema/apis.ts
 * `Cors`): the project holds the API's form with every field filled, so a
 * plan compares it with the server's answer as is.
 */
import { CORS_INPUT_DEFAULTS } from '../schema/apis.js';
import type { CorsConfig, CorsMethod } from '../types.js';
import type { FileCors } from './types.js';

const unique = <T extends string>(values: readonly T[]): T[] => [...new Set(values)];

/** The file's `cors` in the API's form, defaults filled; null for none. */
export function corsFromFile(raw: FileCors | null | undefined): CorsConfig | null {
  if (raw === null || raw === undefined) return null;
  return {
    allowOrigins: unique(raw.allow_origins),
    allowMethods: unique((raw.allow_methods ?? CORS_INPUT_DEFAULTS.allowMethods).map((m) => m.toUpperCase() as CorsMethod)),
    allowHeaders: unique(raw.allow_headers ?? CORS_INPUT_DEFAULTS.allowHeaders),
    exposeHeaders: unique(raw.expose_headers ?? CORS_INPUT_DEFAULTS.exposeHeaders),
    maxAge: raw.max_age ?? CORS_INPUT_DEFAULTS.maxAge,
    allowCredentials: raw.allow_credentials ?? CORS_INPUT_DEFAULTS.allowCredentials,
  };
}

/** The API's `cors` as the file writes it: what equals its default left out. */
export function corsToFile(cors: CorsConfig): FileCors {
  const out: FileCors = { allow_origins: [...cors.allowOrigins] };
  if (cors.allowMethods.length > 0) out.allow_methods = [...cors.allowMethods];
  if (cors.allowHeaders.length > 0) out.allow_headers = [...cors.allowHeaders];
  if (cors.exposeHeaders.length > 0) out.expose_headers = [...cors.exposeHeaders];
  if (cors.maxAge !== null) out.max_age = cors.maxAge;
  if (cors.allowCredentials) out.allow_credentials = true;
  return out;
}

/** What browsers refuse and the server would answer with a 400: null when fine. */
export function corsProblem(cors: CorsConfig): { key: string; message: string } | null {
  if (cors.allowCredentials && cors.allowOrigins.includes('*')) {
    return { key: 'allow_credentials', message: "true cannot go with the origin '*' (browsers refuse credentials from a wildcard answer); list the origins" };
  }
  return null;
}
