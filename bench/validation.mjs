// `node bench/validation.mjs`: what request validation of a 2 KB JSON body
// costs. One gateway (--processes 1, temp SQLite) serves the example hello
// function at POST /hello of two APIs: one without a request model, one whose
// route has a body schema (an order: customer, address, 20 items, each with
// formats, patterns and bounds) the body passes. Rows alternate for --rounds,
// each POSTing the same 2 KB body. Then, in this process, the check alone
// (dist/gateway/policy/validation.js, the same model) timed over many calls.
// A benchmark, not a test: compare the rows of one run.
//
// Options: --duration <s> (5)  --connections <n> (50)  --rounds <n> (2)
import { readFile } from 'node:fs/promises';
import { startHelloGateway } from './hello-gateway.mjs';
import { call } from './nodes.js';
import { meanOf, measure, ORDER_BODY as BODY, ORDER_SCHEMA as SCHEMA, readOptions, warm } from './policy-common.mjs';

const opt = readOptions({ duration: 5, connections: 50, rounds: 2 });
const post = (name, url) => ({ name, url, method: 'POST', body: BODY, headers: { 'content-type': 'application/json' } });

/** The check alone, in this process: µs per call with the body above. */
async function checkAlone() {
  const { compileRequestValidation } = await import('../dist/gateway/policy/validation.js');
  const guard = compileRequestValidation({}, { id: 'rt', method: 'POST', path: '/hello', function: 'hello', request: { body: SCHEMA } });
  const request = { req: { rawQuery: '', rawHeaders: ['content-type', 'application/json'], body: Buffer.from(BODY) } };
  for (let i = 0; i < 2000; i++) guard.check(request);
  const n = 20_000;
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) guard.check(request);
  return Number(process.hrtime.bigint() - started) / 1000 / n;
}

const gw = await startHelloGateway({ processes: 1 });
try {
  const code = await readFile(new URL('../examples/functions/hello.js', import.meta.url), 'utf8');
  await call(gw.base, 'POST', '/api/functions', { name: 'hello-post', code }, [201]);
  const plain = await call(gw.base, 'POST', '/api/apis', { name: 'plain', basePath: '/p', routes: [{ method: 'POST', path: '/hello', function: 'hello-post' }] }, [201]);
  const checked = await call(
    gw.base,
    'POST',
    '/api/apis',
    { name: 'checked', basePath: '/v', routes: [{ method: 'POST', path: '/hello', function: 'hello-post', request: { body: SCHEMA } }] },
    [201],
  );
  const rows = [
    post('no request model', `${gw.base}/api/invoke/fn/${plain.id}/p/hello`),
    post('body schema (2 KB body, 20 items)', `${gw.base}/api/invoke/fn/${checked.id}/v/hello`),
  ];
  await warm(rows);
  const results = rows.map(() => []);
  for (let round = 0; round < opt.rounds; round++) {
    for (const [i, row] of rows.entries()) results[i].push(await measure(row, opt));
  }
  console.log(`\nPOST of a ${Buffer.byteLength(BODY)} B JSON body to hello, autocannon ${opt.connections} connections, ${opt.duration} s x ${opt.rounds} rounds per row\n`);
  console.log('| | req/s | p50 ms | p99 ms |');
  console.log('|---|---|---|---|');
  for (const [i, { name }] of rows.entries()) {
    const m = meanOf(name, results[i]);
    console.log(`| ${name} | ${Math.round(m.rps)} | ${m.p50.toFixed(1)} | ${m.p99.toFixed(1)} |`);
  }
} finally {
  await gw.stop();
}
console.log(`\nThe check alone (parse and validate the body, one process): ${(await checkAlone()).toFixed(1)} µs per request`);
