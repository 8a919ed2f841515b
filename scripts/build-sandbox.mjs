// Writes what runs inside every function isolate besides the Node built-ins:
// dist/sandbox/dispatcher.js and dist/sandbox/parts/*.js, the isolate source of
// src/runtime/isolate/ (between each file's two marker lines, the type-only lines
// dropped and the host's constants spliced in: DISPATCHER_PLACEHOLDERS of
// src/runtime/dispatcher.ts, SANDBOX_PLACEHOLDERS of src/runtime/sandbox/bootstrap.ts).
// Then bundles the isolate-side Node built-ins (src/runtime/sandbox/node/) with the
// npm polyfills they wrap (buffer, events, util, assert, path-browserify,
// string_decoder, unenv's url and querystring, readable-stream, browserify-zlib)
// into one script,
// dist/sandbox/node-builtins.js, which the sandbox bootstrap splices in
// (src/runtime/sandbox/bootstrap.ts). Runs after tsc in `npm run build`: it
// reads the module list and the refusal words from dist/runtime/node-builtins.js.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants as cryptoConstants } from 'node:crypto';
import { STATUS_CODES, METHODS } from 'node:http';
import { constants as osConstants } from 'node:os';
import { constants as zlibConstants } from 'node:zlib';
import { analyzeMetafile, build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = path.join(root, 'src/runtime/sandbox/node');
const outFile = path.join(root, 'dist/sandbox/node-builtins.js');
const { INERT_MODULES, MISSING_BUILTINS, REFUSALS, SANDBOX_MODULES } = await import(path.join(root, 'dist/runtime/node-builtins.js'));
const { DISPATCHER_PLACEHOLDERS } = await import(path.join(root, 'dist/runtime/dispatcher.js'));
const { SANDBOX_PARTS, SANDBOX_PLACEHOLDERS } = await import(path.join(root, 'dist/runtime/sandbox/bootstrap.js'));

/**
 * The text the host evaluates: from the end of the `isolate source begins` line
 * (its newline included) to the start of the `isolate source ends` line, without
 * the lines that only give tsc a type (a one-line comment opening with `/** @`
 * or `// @ts-`), so the text is the code as written and nothing else.
 */
function isolateText(relative, placeholders) {
  const file = readFileSync(path.join(root, relative), 'utf8');
  const begin = file.indexOf('// isolate source begins') + '// isolate source begins'.length;
  const end = file.indexOf('\n// isolate source ends\n') + 1;
  if (begin < 24 || end <= begin) throw new Error(`${relative}: marker lines not found`);
  const text = file
    .slice(begin, end)
    .split('\n')
    .filter((line) => !/^\s*(\/\*\* @.*\*\/|\/\/ @ts-.*)$/.test(line))
    .join('\n');
  return text.replace(/__([A-Z_]+)__/g, (_, name) => {
    if (!(name in placeholders)) throw new Error(`${relative}: no value for __${name}__`);
    return String(placeholders[name]);
  });
}
function writeIsolateText(relative, placeholders, out) {
  mkdirSync(path.dirname(path.join(root, out)), { recursive: true });
  writeFileSync(path.join(root, out), isolateText(relative, placeholders));
}
writeIsolateText('src/runtime/isolate/dispatcher.js', DISPATCHER_PLACEHOLDERS, 'dist/sandbox/dispatcher.js');
for (const part of SANDBOX_PARTS) {
  writeIsolateText(`src/runtime/isolate/sandbox/${part}.js`, SANDBOX_PLACEHOLDERS, `dist/sandbox/parts/${part}.js`);
}

// What the polyfills require by Node's names resolves to our modules (one Buffer class for all);
// the npm packages themselves are reached with a trailing slash (`require('buffer/')`).
const OURS = {
  assert: 'assert.cjs',
  buffer: 'buffer.cjs',
  crypto: 'crypto.cjs',
  events: 'events.cjs',
  path: 'path.cjs',
  querystring: 'querystring.cjs',
  string_decoder: 'string_decoder.cjs',
  url: 'url.cjs',
  util: 'util.cjs',
  // readable-stream and browserify-zlib ask for these; `stream` is readable-stream itself (stream.cjs).
  stream: 'stream.cjs',
  'process/': 'process.cjs',
  'abort-controller': 'abort-controller.cjs',
};

/**
 * The host's shape of each inert module (node-builtins.ts: INERT_MODULES): the names of its
 * functions (`f`; a capital first letter makes a class), its plain values (`v`: numbers,
 * strings, booleans and objects of them, such as `fs.constants`) and nested namespaces (`o`,
 * such as `fs.promises`). inert.cjs builds the module from it on first load.
 */
function shapeOf(value, depth = 0) {
  const shape = { f: [], v: {}, o: {} };
  for (const key of Object.keys(value)) {
    if (key === 'default' || key.startsWith('_')) continue;
    const v = value[key];
    if (typeof v === 'function') shape.f.push(key);
    else if (v === null || ['number', 'string', 'boolean'].includes(typeof v)) shape.v[key] = v;
    else if (typeof v === 'object' && depth < 1 && Object.values(v).every((x) => typeof x === 'function' || typeof x === 'object')) shape.o[key] = shapeOf(v, depth + 1);
    else if (typeof v === 'object') {
      // Constants, not bulk data (tls.rootCertificates) nor live handles.
      let text;
      try {
        text = JSON.stringify(v);
      } catch {
        text = undefined;
      }
      if (text !== undefined && text.length <= 12 * 1024) shape.v[key] = JSON.parse(text);
    }
  }
  return shape;
}
const inertShapes = {};
// Loading punycode, sys or wasi warns (deprecated, experimental); only their names are read here.
const emitWarning = process.emitWarning;
process.emitWarning = () => undefined;
for (const name of INERT_MODULES) {
  try {
    const mod = await import(`node:${name}`);
    inertShapes[name] = shapeOf(mod.default ?? mod);
  } catch {
    inertShapes[name] = { f: [], v: {}, o: {} };
  }
}
process.emitWarning = emitWarning;
const nodeNames = {
  name: 'sandbox-node-names',
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z_]+\/?$|^abort-controller$/ }, (args) => {
      const name = args.path.replace(/^node:/, '');
      if (OURS[name]) return { path: path.join(sourceDir, OURS[name]) };
      if (args.path.startsWith('node:')) return { errors: [{ text: `the sandbox has no ${args.path} (needed by ${args.importer})` }] };
      return undefined;
    });
  },
};

const result = await build({
  entryPoints: [path.join(sourceDir, 'index.cjs')],
  bundle: true,
  format: 'iife',
  globalName: 'SwitchyardNode',
  platform: 'browser',
  target: 'es2022',
  write: false,
  // Smaller text is less to copy into every isolate; names stay (Buffer.name, EventEmitter.name, inspect).
  minify: true,
  keepNames: true,
  legalComments: 'eof',
  logLevel: 'warning',
  define: {
    SWITCHYARD_REFUSALS: JSON.stringify(REFUSALS),
    SWITCHYARD_MISSING_BUILTINS: JSON.stringify(MISSING_BUILTINS),
    SWITCHYARD_INERT_MODULES: JSON.stringify(INERT_MODULES),
    SWITCHYARD_INERT_SHAPES: JSON.stringify(JSON.stringify(inertShapes)),
    SWITCHYARD_HTTP_STATUS_CODES: JSON.stringify(STATUS_CODES),
    SWITCHYARD_HTTP_METHODS: JSON.stringify(METHODS),
    SWITCHYARD_ZLIB_CONSTANTS: JSON.stringify(zlibConstants),
    SWITCHYARD_CRYPTO_CONSTANTS: JSON.stringify(cryptoConstants),
    SWITCHYARD_OS_CONSTANTS: JSON.stringify(osConstants),
    // util reads it at load; the sandbox's process has only env.
    'process.env.NODE_DEBUG': 'undefined',
  },
  inject: [path.join(sourceDir, 'process-inject.mjs')],
  plugins: [nodeNames],
  metafile: true,
});
// esbuild hoists a "use strict" to the top of the file; spliced into the bootstrap it would make
// every bundled package strict, while the CommonJS ones were written for sloppy mode (each module
// that asks for strict mode keeps its own directive inside its wrapper).
const text = result.outputFiles[0].text.replace(/^"use strict";/, '');
mkdirSync(path.dirname(outFile), { recursive: true });
writeFileSync(outFile, text);
if (process.env.SANDBOX_ANALYZE) console.log(await analyzeMetafile(result.metafile));
console.log(`sandbox Node built-ins (${SANDBOX_MODULES.length} modules): ${path.relative(root, outFile)}, ${(text.length / 1024).toFixed(1)} KiB`);
