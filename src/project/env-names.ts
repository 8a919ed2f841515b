/**
 * The environment variables a project file may name: the `${env:NAME}`
 * syntax, and the one family no project ever reads, `SWITCHYARD_` (the
 * server's own settings, its admin key among them). Shared by the loader,
 * which refuses them, and by import and export, which never write them.
 */

/** `${env:NAME}` anywhere in a text (the name as written, checked by the caller). */
export const ENV_REF = /\$\{env:([^}]*)\}/g;

/** Matched whatever the case: Windows reads environment names without it. */
export const isServerVariable = (name: string): boolean => /^SWITCHYARD_/i.test(name);

export const SERVER_VARIABLE_REFUSAL = 'SWITCHYARD_ variables configure the server (its admin key among them) and a project never reads them';

/** The names of the `${env:NAME}` a text holds. */
export function envNames(text: string): string[] {
  return [...text.matchAll(ENV_REF)].map((m) => m[1]);
}
