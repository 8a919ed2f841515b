/**
 * Values given on the command line: `--data '{"a":1}'` or `--data @event.json`
 * (`@-` reads standard input), and `--env KEY=VALUE` lists. A value that does
 * not parse is a usage error naming the flag and, for files, the file.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from './errors.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The JSON value of `--data`: inline text, `@file`, or `@-` for stdin. */
export async function readJsonArgument(flag: string, value: string, cwd: string): Promise<unknown> {
  let text = value;
  let where = `${flag}`;
  if (value.startsWith('@')) {
    const file = value.slice(1);
    where = file === '-' ? `${flag} @- (standard input)` : `${flag} file ${file}`;
    try {
      text = file === '-' ? await readStdin() : await readFile(resolve(cwd, file), 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read ${where}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`${where} is not valid JSON: ${(err as Error).message}`);
  }
}

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

/** Commander collector for a repeated `--header 'name: value'` (an event's headers, which webhook filters match). */
export function collectHeader(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const colon = value.indexOf(':');
  const name = colon < 0 ? value : value.slice(0, colon).trim();
  if (colon < 0 || !HEADER_NAME.test(name)) throw new UsageError(`--header takes 'name: value' with name a header name, got "${value}"`);
  return { ...previous, [name.toLowerCase()]: value.slice(colon + 1).trim() };
}

/** Commander collector for a repeated `--env KEY=VALUE`. */
export function collectEnv(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  const key = eq < 0 ? value : value.slice(0, eq);
  if (eq < 0 || !ENV_KEY.test(key)) {
    throw new UsageError(`--env takes KEY=VALUE with KEY a letter or _ then letters, digits or _, got "${value}"`);
  }
  return { ...previous, [key]: value.slice(eq + 1) };
}
