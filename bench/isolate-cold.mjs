// Micro-benchmark of one isolate's cold start, as a worker pays it: new isolate,
// sandbox, dispatcher, the user's code, first call, dispose. Reports the median
// and p90 over N isolates (the first, which fills the code caches, is left out).
// Not a test. Needs `npm run build` first; run with --no-node-snapshot:
//   node --no-node-snapshot bench/isolate-cold.mjs [n=200] [code=hello|path|buffer|crypto|web]
// SWITCHYARD_DIST=<folder> runs another build's dist (a copy of main's, to compare).
import ivm from 'isolated-vm';
const { prepare } = await import(process.env.SWITCHYARD_DIST ? `${process.env.SWITCHYARD_DIST}/runtime/prepare.js` : '../dist/runtime/prepare.js');

const n = Number(process.argv[2] ?? 200);
const which = process.argv[3] ?? 'hello';
const CODES = {
  hello: `exports.handler = async () => ({ statusCode: 200, body: 'hi' });`,
  crypto: `const crypto = require('crypto');
exports.handler = async () => ({ statusCode: 200, body: crypto.createHmac('sha256', 'k').update('x').digest('hex') });`,
  path: `const p = require('path');
exports.handler = async () => ({ statusCode: 200, body: p.join('a', 'b') });`,
  buffer: `exports.handler = async () => ({ statusCode: 200, body: Buffer.from('aGk=', 'base64').toString() });`,
};
const code = CODES[which];
if (!code) throw new Error(`unknown code ${which}`);

const head = JSON.stringify({ ids: [1], rids: ['r1'], dl: Date.now() + 60_000 });
const payload = head + '\n[{}]';

async function once() {
  const t = performance.now();
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  const { dispatch, sandbox } = await prepare(isolate, code, {}, 10_000, false, {
    name: 'bench',
    setup: { handler: null, path: null, version: 1, memoryMb: 128 },
    deliver: () => undefined,
  });
  const out = await dispatch.apply(undefined, [payload], { result: { promise: true } });
  const ms = performance.now() - t;
  if (!String(out).includes('"ok":1')) throw new Error(`call failed: ${out}`);
  const heap = await isolate.getHeapStatistics();
  sandbox.dispose();
  dispatch.release();
  isolate.dispose();
  return { ms, heap: heap.used_heap_size };
}

await once();
const times = [];
let heap = 0;
for (let i = 0; i < n; i++) {
  const r = await once();
  times.push(r.ms);
  heap = r.heap;
}
times.sort((a, b) => a - b);
const q = (p) => times[Math.min(times.length - 1, Math.floor(times.length * p))].toFixed(2);
console.log(`${which}: ${n} isolates, cold start median ${q(0.5)} ms, p90 ${q(0.9)} ms; heap used after first call ${(heap / 1024).toFixed(0)} KiB`);
