/**
 * `switchyard import <serverless.yml | template.yaml> [-o switchyard.yaml]`:
 * turns a Serverless Framework file or a SAM template into a project file
 * beside it (function files stay where they are: the project names them).
 * Which of the two it is comes from the content (SAM has `Resources` or the
 * `AWS::Serverless` transform; Serverless has `service` and `functions`).
 * What could not be carried over is printed and kept as comments in the file;
 * so are the environment values left unset (only AWS can resolve them) and
 * the variables the project reads, which apply then reads only once allowed.
 * A function file outside the folder of the imported file (symlinks
 * resolved) refuses the import, unless an `--allow-outside` folder holds it.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, extname, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  importSamValue,
  importServerlessValue,
  isUnder,
  parseCfnYaml,
  OutsideProjectError,
  realOrResolved,
  formatProblem,
  notCarriedNames,
  projectPrefix,
  type ImportResult,
} from '../project/index.js';
import { outputFor, type CliIO } from './context.js';
import { CommandFailedError, UsageError } from './errors.js';
import { writeProjectFiles } from './export.js';
import { allowedFolders, withAllowOutsideOption } from './project-flags.js';
import { terminalLine } from './terminal-text.js';
import { shownPath } from './project-run.js';
import { commandLine, counted } from './words.js';

interface ImportFlags {
  output?: string;
  project?: string;
  bareNames?: boolean;
  force?: boolean;
  json?: boolean;
  color?: boolean;
  allowOutside?: string[];
}

/**
 * The import's judge of function files: where one really lies when that is
 * outside `dir` and every allowed folder, else null. Each path is judged once
 * (many functions share a file).
 */
function outsideJudge(roots: string[], dir: string): (relativePath: string) => string | null {
  const seen = new Map<string, string | null>();
  return (rel) => {
    let verdict = seen.get(rel);
    if (verdict === undefined) {
      const abs = resolve(dir, rel);
      let real = abs;
      try {
        real = realpathSync(abs);
      } catch {
        // Not there (yet): judged by the text of the path.
      }
      verdict = roots.some((r) => isUnder(real, r)) ? null : real;
      seen.set(rel, verdict);
    }
    return verdict;
  };
}

/** `exists`, asked once per path: a handler file is looked up with each extension, and shared by many functions. */
function cachedExists(dir: string): (relativePath: string) => boolean {
  const seen = new Map<string, boolean>();
  return (rel) => {
    let found = seen.get(rel);
    if (found === undefined) seen.set(rel, (found = existsSync(resolve(dir, rel))));
    return found;
  };
}

/** Files the service refers to (`${file(./secrets.json):KEY}`): read only inside the folder (or an allowed one), up to 1 MiB. */
function projectFileReader(dir: string, outside: (relativePath: string) => string | null): (relativePath: string) => string | null {
  return (rel) => {
    if (outside(rel) !== null) return null;
    try {
      const abs = resolve(dir, rel);
      if (statSync(abs).size > 1024 * 1024) return null;
      return readFileSync(abs, 'utf8');
    } catch {
      return null;
    }
  };
}

/**
 * A service file written as code (`serverless.ts`, `serverless.js`) builds
 * its configuration when run, which an import must never do (it may come
 * from anyone): it asks for the rendered YAML instead.
 */
function refuseCodeServiceFile(input: string): void {
  const ext = extname(input).toLowerCase();
  if (!['.ts', '.js', '.mjs', '.cjs', '.mts', '.cts'].includes(ext)) return;
  throw new CommandFailedError(
    'invalid_input',
    `${input} is a service file written as code, which import does not run: convert it to serverless.yml, ` +
      `or render it with \`serverless print > serverless.yml\` in its folder and import that`,
  );
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
  const command = program
    .command('import')
    .description('Turn a serverless.yml or a SAM template into a switchyard.yaml beside it')
    .argument('<file>', 'serverless.yml or a SAM template.yaml')
    .option('-o, --output <file>', 'the project file to write (default: switchyard.yaml beside the input)')
    .option('--force', 'replace the project file if it exists')
    .option('--project <name>', "the project's name, before every function, API and usage plan name (default: the Serverless service, or the SAM template's folder)")
    .option('--bare-names', 'keep the names as the file writes them (no project prefix)')
    .option('--json', 'print {file, format, project, notes, not_carried, missing, unresolved, reads} as JSON')
    .option('--no-color', 'no colours');
  withAllowOutsideOption(command).action(async (input: string, flags: ImportFlags) => {
    const out = outputFor(io, flags);
    const source = resolve(io.cwd, input);
    refuseCodeServiceFile(input);
    let text: string;
    try {
      text = await readFile(source, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read ${input} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
    let doc: unknown;
    const json = extname(source).toLowerCase() === '.json';
    try {
      doc = json ? JSON.parse(text) : parseCfnYaml(text);
    } catch (err) {
      throw new CommandFailedError('invalid_input', `${input} is not valid ${json ? 'JSON' : 'YAML'}: ${(err as Error).message}`);
    }
    const format = detectFormat(doc);
    if (!format) throw new CommandFailedError('invalid_input', `${input} is neither a serverless.yml (service, functions) nor a SAM template (Resources)`);
    const dir = dirname(source);
    const roots = await Promise.all([dir, ...(await allowedFolders(io.cwd, flags.allowOutside))].map(realOrResolved));
    if (flags.project !== undefined && !projectPrefix(flags.project)) throw new UsageError(`--project ${JSON.stringify(flags.project)} has no letter or digit to name things by`);
    // SAM's stack is named at deploy (`sam deploy --stack-name`); the folder `sam init` made is the name people know it by.
    const project = flags.project ?? (format === 'sam' ? basename(dir) : undefined);
    const outside = outsideJudge(roots, dir);
    const options = { exists: cachedExists(dir), outside, readFile: projectFileReader(dir, outside), file: input, prefixNames: flags.bareNames !== true, project };
    let result: ImportResult;
    try {
      result = format === 'sam' ? importSamValue(doc, options) : importServerlessValue(doc, options);
    } catch (err) {
      if (err instanceof OutsideProjectError) {
        throw new CommandFailedError('outside_project', `cannot import ${input}; nothing was written:\n  ${err.problems.map(formatProblem).join('\n  ')}`);
      }
      throw new CommandFailedError('invalid_input', `cannot import ${input}: ${(err as Error).message}`);
    }
    const yamlFile = flags.output ? resolve(io.cwd, flags.output) : resolve(dir, 'switchyard.yaml');
    if (dirname(yamlFile) !== dir) {
      throw new UsageError('-o must name a file in the folder of the imported file: the project names the function files relative to itself');
    }
    const [written] = await writeProjectFiles(dir, { [relative(dir, yamlFile)]: result.yaml }, flags.force === true, io.cwd);
    const notCarried = notCarriedNames(result.notes);
    if (out.json) {
      out.data({
        file: written,
        format,
        project: result.project,
        notes: result.notes,
        not_carried: notCarried,
        missing: result.missing,
        unresolved: result.unresolved,
        reads: result.reads,
      });
      return;
    }
    const doc2 = result.document;
    const count = (o: object | undefined) => Object.keys(o ?? {}).length;
    const made = [counted(count(doc2.functions), 'function'), counted(count(doc2.apis), 'API'), counted(count(doc2.webhooks), 'webhook')];
    out.line(`Wrote ${terminalLine(written)} from ${format === 'sam' ? 'the SAM template' : basename(source)}: ${made.join(', ')}.`);
    if (flags.bareNames !== true) out.line(`Names start with the project's, ${terminalLine(result.project)} (--bare-names keeps them as written; --project names it).`);
    if (result.notes.length) {
      out.line('Not carried over (also listed at the top of the file):');
      for (const note of result.notes) out.line(`  - ${terminalLine(note)}`);
    }
    if (notCarried.length) out.line(`not carried: ${terminalLine(notCarried.join(', '))}`);
    if (result.missing.length) {
      out.line('Handler files not found (apply fails until they exist):');
      for (const m of result.missing) out.line(`  - ${terminalLine(`${m.file} (${m.where})`)}`);
    }
    if (result.unresolved.length) {
      out.line('Left unset: only AWS resolves these values; set them under env yourself (also listed at the top of the file):');
      for (const u of result.unresolved) out.line(`  - ${terminalLine(`${u.where}: ${u.value}`)}`);
    }
    const allow = result.reads.length ? ['--env-from', result.reads.join(',')] : [];
    if (result.reads.length) {
      out.line(`The project reads the environment variables ${terminalLine(result.reads.join(','))}: apply reads them only once you allow them (--env-from, or env_from in the file).`);
    }
    // dev first: it needs no server running (it starts its own); apply is for one that runs already.
    const folder = basename(yamlFile) === 'switchyard.yaml' ? shownPath(io.cwd, dir) : written;
    out.line(`Next: ${terminalLine(commandLine('dev', folder, ...allow))}`);
    out.line(`  (a local server that re-applies on every save; against a server that runs already: ${terminalLine(commandLine('apply', '-f', written, ...allow))})`);
  });
}
