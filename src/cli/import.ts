/**
 * `switchyard import <serverless.yml | template.yaml> [-o switchyard.yaml]`:
 * turns a Serverless Framework file or a SAM template into a project file
 * beside it (function files stay where they are: the project names them).
 * Which of the two it is comes from the content (SAM has `Resources` or the
 * `AWS::Serverless` transform; Serverless has `service` and `functions`).
 * What could not be carried over is printed and kept as comments in the file.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { importSam, importServerless, parseCfnYaml, type ImportResult } from '../project/index.js';
import { outputFor, type CliIO } from './context.js';
import { CommandFailedError, UsageError } from './errors.js';
import { writeProjectFiles } from './export.js';

interface ImportFlags {
  output?: string;
  force?: boolean;
  json?: boolean;
  color?: boolean;
}

export function detectFormat(doc: unknown): 'sam' | 'serverless' | null {
  if (!doc || typeof doc !== 'object') return null;
  const d = doc as Record<string, unknown>;
  const transform = JSON.stringify(d.Transform ?? '');
  if (d.Resources !== undefined || d.AWSTemplateFormatVersion !== undefined || transform.includes('AWS::Serverless')) return 'sam';
  if (d.service !== undefined || d.functions !== undefined) return 'serverless';
  return null;
}

export function registerImport(program: Command, io: CliIO): void {
  program
    .command('import')
    .description('Turn a serverless.yml or a SAM template into a switchyard.yaml beside it')
    .argument('<file>', 'serverless.yml or a SAM template.yaml')
    .option('-o, --output <file>', 'the project file to write (default: switchyard.yaml beside the input)')
    .option('--force', 'replace the project file if it exists')
    .option('--json', 'print {file, notes} as JSON')
    .option('--no-color', 'no colours')
    .action(async (input: string, flags: ImportFlags) => {
      const out = outputFor(io, flags);
      const source = resolve(io.cwd, input);
      let text: string;
      try {
        text = await readFile(source, 'utf8');
      } catch (err) {
        throw new UsageError(`cannot read ${input} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      }
      let doc: unknown;
      try {
        doc = parseCfnYaml(text);
      } catch (err) {
        throw new CommandFailedError('invalid_input', `${input} is not valid YAML: ${(err as Error).message}`);
      }
      const format = detectFormat(doc);
      if (!format) throw new CommandFailedError('invalid_input', `${input} is neither a serverless.yml (service, functions) nor a SAM template (Resources)`);
      const dir = dirname(source);
      const options = { exists: (rel: string) => existsSync(resolve(dir, rel)) };
      let result: ImportResult;
      try {
        result = format === 'sam' ? importSam(text, options) : importServerless(text, options);
      } catch (err) {
        throw new CommandFailedError('invalid_input', `cannot import ${input}: ${(err as Error).message}`);
      }
      const target = flags.output ? resolve(io.cwd, flags.output) : resolve(dir, 'switchyard.yaml');
      if (dirname(target) !== dir) {
        throw new UsageError('-o must name a file in the folder of the imported file: the project names the function files relative to itself');
      }
      const [written] = await writeProjectFiles(dir, { [relative(dir, target)]: result.yaml }, flags.force === true, io.cwd);
      if (out.json) {
        out.data({ file: written, format, notes: result.notes });
        return;
      }
      const doc2 = result.document;
      const count = (o: object | undefined) => Object.keys(o ?? {}).length;
      out.line(`Wrote ${written} from ${format === 'sam' ? 'the SAM template' : 'serverless.yml'}: ${count(doc2.functions)} functions, ${count(doc2.apis)} APIs, ${count(doc2.webhooks)} webhooks.`);
      if (result.notes.length) {
        out.line('Not carried over (also listed at the top of the file):');
        for (const note of result.notes) out.line(`  - ${note}`);
      }
      out.line(`Next: switchyard apply -f ${written}`);
    });
}
