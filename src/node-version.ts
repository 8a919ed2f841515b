/**
 * Whether this Node.js can run Switchyard, judged against package.json's
 * `engines.node` (the one place the minimum is written; `engine-strict` in
 * .npmrc makes npm refuse to install on an older one from the same line).
 *
 * The executable (cli.ts) asks before it loads anything else: on an older
 * Node the native modules built for a newer one crash the process (exit 139,
 * or exit 1 with nothing printed), so the question must come first and this
 * module imports nothing. It also keeps to syntax every Node that loads ES
 * modules can parse, so the answer is printed even on a very old one.
 */

type Version = [number, number, number];

function parse(text: string): Version | null {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)] : null;
}

/** The lowest version a `>=X[.Y[.Z]]` range admits; null for any other form of range. */
export function minimumOf(range: string): string | null {
  const m = /^>=\s*(\S+)$/.exec(range.trim());
  const v = m ? parse(m[1]) : null;
  return v ? v.join('.') : null;
}

function below(found: Version, needed: Version): boolean {
  for (let i = 0; i < 3; i++) if (found[i] !== needed[i]) return found[i] < needed[i];
  return false;
}

/**
 * The one line that says why this Node cannot run Switchyard (the version
 * found, the version needed, how to get it), or null when it can. A range
 * this cannot read refuses nothing: a check that guesses would refuse good
 * installs (test/unit/node-version.test.ts holds package.json to a form it reads).
 */
export function nodeVersionProblem(found: string, range: string): string | null {
  const minimum = minimumOf(range);
  const have = parse(found);
  const need = minimum === null ? null : parse(minimum);
  if (!have || !need || !below(have, need)) return null;
  return (
    `Node.js ${have.join('.')} is too old: Switchyard needs Node.js ${range.trim()}; ` +
    'install the current LTS release from https://nodejs.org/ or with nvm (nvm install --lts) and run switchyard with it'
  );
}
