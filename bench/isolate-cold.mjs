// Micro-benchmark of one isolate's cold start, as a worker pays it: new isolate,
// sandbox, dispatcher, the user's code, first call, dispose. Reports the median
// and p90 over N isolates (the first, which fills the code caches, is left out).
// Not a test. Needs `npm run build` first; run with --no-node-snapshot:
//   node --no-node-snapshot bench/isolate-cold.mjs [n=200] [code=hello|path|buffer|crypto|web]
// SWITCHYARD_DIST=<folder>[,<folder>...] runs other builds' dist folders (a copy of
// main's beside this one, to compare), one isolate of each in turn, so a busy
// machine slows them alike; each is reported on its own line.
import ivm from 'isolated-vm';
const dists = (process.env.SWITCHYARD_DIST ?? new URL('../dist', import.meta.url).pathname).split(',');
const builds = await Promise.all(dists.map(async (dist) => ({ dist, prepare: (await import(`${dist}/runtime/prepare.js`)).prepare })));

const n = Number(process.argv[2] ?? 200);
const which = process.argv[3] ?? 'hello';
const CODES = {
  hello: `exports.handler = async () => ({ statusCode: 200, body: 'hi' });`,
  crypto: `const crypto = require('crypto');
exports.handler = async () => ({ statusCode: 200, body: crypto.createHmac('sha256', 'k').update('x').digest('hex') });`,
  path: `const p = require('path');
exports.handler = async () => ({ statusCode: 200, body: p.join('a', 'b') });`,
  // The lazy web globals built on first use: what a function that touches them pays once per isolate.
  web: `exports.handler = async () => {
  const c = new AbortController();
  const text = await new Response(new Blob(['hi']).stream()).text();
  return { statusCode: 200, body: text + c.signal.aborted };
};`,
  buffer: `exports.handler = async () => ({ statusCode: 200, body: Buffer.from('aGk=', 'base64').toString() });`,
};
const code = CODES[which];
if (!code) throw new Error(`unknown code ${which}`);

const head = JSON.stringify({ ids: [1], rids: ['r1'], dl: Date.now() + 60_000 });
const payload = head + '\n[{}]';

async function once(prepare) {
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

for (const b of builds) await once(b.prepare);
const runs = builds.map(() => ({ times: [], heap: 0 }));
for (let i = 0; i < n; i++) {
  for (let j = 0; j < builds.length; j++) {
    const r = await once(builds[j].prepare);
    runs[j].times.push(r.ms);
    runs[j].heap = r.heap;
  }
}
for (let j = 0; j < builds.length; j++) {
  const times = runs[j].times.sort((a, b) => a - b);
  const q = (p) => times[Math.min(times.length - 1, Math.floor(times.length * p))].toFixed(2);
  const from = builds.length > 1 ? ` (${builds[j].dist})` : '';
  console.log(`${which}${from}: ${n} isolates, cold start median ${q(0.5)} ms, p90 ${q(0.9)} ms; heap used after first call ${(runs[j].heap / 1024).toFixed(0)} KiB`);
}
