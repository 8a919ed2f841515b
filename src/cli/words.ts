/**
 * Text the CLI writes for people to read or to paste: counts with the right
 * plural (`1 function`, `2 APIs`) and command lines whose arguments are
 * quoted for a POSIX shell, so a suggested `switchyard deliveries 'Demo: a
 * user sign-up'` runs as pasted.
 *
 * Quoting is written here rather than taken from a package (shell-quote and
 * the like also parse, and quote more than needed): the rule is one line,
 * single quotes around anything but a plain word, `'\''` for a quote inside.
 */

const IRREGULAR: Record<string, string> = { API: 'APIs', api: 'APIs' };

/** `1 function`, `0 functions`, `3 APIs`: `many` when the plural is not `one` + s. */
export function counted(n: number, one: string, many?: string): string {
  return `${n} ${n === 1 ? one : (many ?? IRREGULAR[one] ?? `${one}s`)}`;
}

/** A word a POSIX shell reads as itself: letters, digits and `@%+=:,./_-`, not empty. */
const PLAIN = /^[A-Za-z0-9@%+=:,./_-]+$/;

/** One argument as a shell reads it back: as is when plain, else in single quotes. */
export function shellArg(value: string): string {
  if (PLAIN.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** `switchyard <args...>`, each argument quoted as needed. */
export function commandLine(...args: string[]): string {
  return ['switchyard', ...args.map(shellArg)].join(' ');
}
