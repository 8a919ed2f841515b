/**
 * `npm run check:cycles`: dependency-cruiser's module rules
 * (.dependency-cruiser.cjs), then the same graph read one level up: every
 * folder of src/ (and every file directly in src/) is one part, and the parts
 * must form no cycle either, so dependencies between them point one way
 * (docs/architecture.md draws the order). Imports of the bottom layer do not
 * count between parts: it imports nothing above it. dependency-cruiser has no
 * folder-level cycle rule, hence these lines.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const bottom = new RegExp(require('./bottom-layer.cjs'));

let out;
try {
  out = execFileSync('npx', ['depcruise', 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
} catch (err) {
  // depcruise exits non-zero when a rule is broken; its JSON is still on stdout.
  out = err.stdout;
  if (!out) throw err;
}
const result = JSON.parse(out);

let failed = false;
for (const v of result.summary.violations) {
  failed = true;
  const path = v.cycle ? [v.from, ...v.cycle.map((c) => (typeof c === 'string' ? c : c.name))].join(' -> ') : `${v.from} -> ${v.to}`;
  console.error(`${v.rule.name}: ${path}`);
}

/** `src/http/functions/crud.ts` -> `src/http`; `src/server.ts` stays itself. */
const partOf = (file) => file.split('/').slice(0, 2).join('/');

const edges = new Map(); // part -> Map(part -> an example import)
for (const m of result.modules) {
  if (!m.source.startsWith('src/')) continue;
  const from = partOf(m.source);
  for (const dep of m.dependencies) {
    if (!dep.resolved.startsWith('src/') || bottom.test(dep.resolved)) continue;
    const to = partOf(dep.resolved);
    if (to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    if (!edges.get(from).has(to)) edges.get(from).set(to, `${m.source} -> ${dep.resolved}`);
  }
}

// Tarjan's strongly connected components: any with more than one part is a cycle.
let index = 0;
const stack = [];
const state = new Map();
const cycles = [];
function visit(v) {
  state.set(v, { index, low: index, onStack: true });
  index++;
  stack.push(v);
  for (const w of edges.get(v)?.keys() ?? []) {
    if (!state.has(w)) {
      visit(w);
      state.get(v).low = Math.min(state.get(v).low, state.get(w).low);
    } else if (state.get(w).onStack) {
      state.get(v).low = Math.min(state.get(v).low, state.get(w).index);
    }
  }
  if (state.get(v).low === state.get(v).index) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      state.get(w).onStack = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1) cycles.push(component);
  }
}
for (const part of edges.keys()) if (!state.has(part)) visit(part);

for (const component of cycles) {
  failed = true;
  const members = new Set(component);
  console.error(`parts that depend on each other: ${component.sort().join(', ')}`);
  for (const from of component) {
    for (const [to, example] of edges.get(from) ?? []) if (members.has(to)) console.error(`  ${from} -> ${to} (${example})`);
  }
}

if (failed) process.exit(1);
console.log(`no import cycles: ${result.modules.filter((m) => m.source.startsWith('src/')).length} modules, ${edges.size} parts in one order`);
