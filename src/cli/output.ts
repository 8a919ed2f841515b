/**
 * How commands speak: results on stdout (aligned tables and short lines for
 * people, or exactly one JSON document with --json for scripts), progress and
 * warnings on stderr so they never mix into what a script reads. Colour only
 * when the stream is a terminal and neither --no-color, NO_COLOR nor
 * TERM=dumb says otherwise.
 */
import { styleText } from 'node:util';

export type Style = Parameters<typeof styleText>[0];

export interface Stream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface Output {
  readonly json: boolean;
  /** A JSON document (or one JSON line when following) on stdout. */
  data(value: unknown, opts?: { compact?: boolean }): void;
  /** A line of the result on stdout. */
  line(text?: string): void;
  /** A progress or context line on stderr. */
  info(text: string): void;
  /** A line of progress on stderr, only when stderr is a terminal: a pipe or a log file gets the result alone. */
  progress(text: string): void;
  /** `text` styled when stdout has colour. */
  paint(style: Style, text: string): string;
  /** `text` styled when stderr has colour. */
  paintErr(style: Style, text: string): string;
  /** An aligned table on stdout; the last column is not padded. */
  table(headers: string[], rows: string[][]): void;
}

export interface OutputOptions {
  stdout: Stream;
  stderr: Stream;
  env: Record<string, string | undefined>;
  json: boolean;
  /** false with --no-color. */
  color: boolean;
}

export function wantsColor(stream: Stream, env: Record<string, string | undefined>, flag: boolean): boolean {
  if (!flag || stream.isTTY !== true) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return env.TERM !== 'dumb';
}

/** Visible width: styles add escape sequences that take no room. */
const width = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '').length;

export function formatTable(headers: string[], rows: string[][], paintHeader: (h: string) => string = (h) => h): string {
  const widths = headers.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const fmt = (cells: string[], paint = (c: string) => c) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? paint(c) : paint(c) + ' '.repeat(widths[i] - width(c))))
      .join('  ')
      .trimEnd();
  return [fmt(headers, paintHeader), ...rows.map((r) => fmt(r))].join('\n') + '\n';
}

export function createOutput(opts: OutputOptions): Output {
  const outColor = wantsColor(opts.stdout, opts.env, opts.color);
  const errColor = wantsColor(opts.stderr, opts.env, opts.color);
  const paint = (on: boolean) => (style: Style, text: string) => (on ? styleText(style, text, { validateStream: false }) : text);
  const out: Output = {
    json: opts.json,
    data(value, { compact = false } = {}) {
      opts.stdout.write(`${JSON.stringify(value, null, compact ? undefined : 2)}\n`);
    },
    line(text = '') {
      opts.stdout.write(`${text}\n`);
    },
    info(text) {
      opts.stderr.write(`${text}\n`);
    },
    progress(text) {
      if (opts.stderr.isTTY === true) opts.stderr.write(`${text}\n`);
    },
    paint: paint(outColor),
    paintErr: paint(errColor),
    table(headers, rows) {
      opts.stdout.write(formatTable(headers, rows, (h) => out.paint('bold', h)));
    },
  };
  return out;
}
