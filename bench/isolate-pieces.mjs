// Where a warm isolate's RSS goes, piece by piece, and whether an ivm snapshot
// holding the sandbox bootstrap is cheaper than compiling it (it is not: see
// bench/README.md "Warm isolate density"). Each stage in its own process, N
// isolates kept alive, RSS delta / N. Not a test; needs `npm run build`:
//   for s in isolate context bootstrap-compiled bootstrap-snapshot; do node --no-node-snapshot bench/isolate-pieces.mjs $s; done
import ivm from 'isolated-vm';
import { readFileSync } from 'node:fs';
const { bootstrapSource } = await import('../dist/runtime/sandbox/bootstrap.js');
const src = `globalThis.__boot = ${bootstrapSource()};`;
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
const N = Number(process.argv[3] ?? 150);
const stage = process.argv[2] ?? 'context';
const keep = [];
const snapshot = stage === 'bootstrap-snapshot' ? ivm.Isolate.createSnapshot([{ code: src, filename: 'switchyard:bootstrap' }]) : undefined;
async function one() {
  const isolate = new ivm.Isolate({ memoryLimit: 128, snapshot });
  keep.push(isolate);
  if (stage === 'isolate') return;
  const context = await isolate.createContext();
  keep.push(context);
  if (stage === 'bootstrap-compiled') await (await isolate.compileScript(src)).run(context);
  if (stage === 'bootstrap-snapshot') await context.eval('typeof globalThis.__boot');
}
await one();
await new Promise((r) => setTimeout(r, 300));
const before = rss();
for (let i = 0; i < N; i++) await one();
await new Promise((r) => setTimeout(r, 500));
console.log(`${stage}: ${Math.round((rss() - before) / N)} KB RSS an isolate (${N})`);
process.exit(0);
