/**
 * `switchyard event-types list` (the catalogue: name, mode, latest version,
 * deprecated) and `switchyard event-types import <file> [--mode m]` (the
 * `webhooks` of an OpenAPI document, JSON or YAML, through
 * POST /api/event-type-imports).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { readYaml } from '../project/yaml-read.js';
import { clientContext, withClientOptions, type CliIO, type ClientFlags } from './context.js';
import { UsageError } from './errors.js';
import type { ValidationMode } from './server-api.js';
import { terminalLine } from './terminal-text.js';
import { counted } from './words.js';

const MODES: readonly ValidationMode[] = ['off', 'warn', 'reject'];

interface ImportFlags extends ClientFlags {
  mode?: string;
}

export function registerEventTypes(program: Command, io: CliIO): void {
  const types = program.command('event-types').description('The event-type catalogue: schemas, examples and validation modes');
  withClientOptions(types.command('list').description('List the catalogued event types')).action(async (flags: ClientFlags) => {
    const { api, out } = clientContext(io, flags);
    const list = await api.listEventTypes();
    if (out.json) {
      out.data(list);
      return;
    }
    if (list.length === 0) {
      out.info('no event types (create one with POST /api/event-types or `switchyard event-types import <file>`)');
      return;
    }
    out.table(
      ['NAME', 'MODE', 'VERSION', 'DEPRECATED', 'DESCRIPTION'],
      list.map((t) => [terminalLine(t.name), t.mode, t.latestVersion === null ? '-' : String(t.latestVersion), t.deprecated ? 'yes' : '', terminalLine(t.description.split('\n')[0])]),
    );
  });
  withClientOptions(
    types
      .command('import')
      .description("Create or update one event type per entry of an OpenAPI document's webhooks (JSON or YAML)")
      .argument('<file>', 'the OpenAPI document')
      .option('--mode <mode>', 'the validation mode of the types it touches: off, warn or reject (default: new types off, others unchanged)'),
  ).action(async (file: string, flags: ImportFlags) => {
    if (flags.mode !== undefined && !MODES.includes(flags.mode as ValidationMode)) throw new UsageError(`--mode must be off, warn or reject, not '${flags.mode}'`);
    let text: string;
    try {
      text = await readFile(resolve(io.cwd, file), 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    let document: unknown;
    try {
      document = readYaml(text);
    } catch (err) {
      throw new UsageError(`${file} is not JSON or YAML: ${(err as Error).message}`);
    }
    if (typeof document !== 'object' || document === null || Array.isArray(document)) throw new UsageError(`${file} is not an OpenAPI document (an object)`);
    const { api, out } = clientContext(io, flags);
    const result = await api.importEventTypes(document as Record<string, unknown>, flags.mode as ValidationMode | undefined);
    if (out.json) {
      out.data(result);
      return;
    }
    for (const name of result.created) out.line(`created  ${terminalLine(name)}`);
    for (const name of result.updated) out.line(`updated  ${terminalLine(name)}`);
    out.info(out.paintErr('dim', `${counted(result.created.length, 'type')} created, ${counted(result.updated.length, 'type')} updated`));
  });
}
