// `node bench/streams-watched.mjs`: what an open log stream costs the gateway.
// While a stream is open anywhere, every other server process writes its
// finished invocations to the shared invocation_events table
// (src/streams/invocations.ts). One gateway with --processes 2 on a temp SQLite
// file is measured without a stream and with one open on
// /api/functions/hello/logs/stream, alternately (rounds), with bare node:http
// in the same run; the stream's invocation events are counted against the
// requests served. A benchmark, not a test: compare the rows of one run.
//
// Options: --duration <s> (5)  --connections <n> (50)  --rounds <n> (2)  --processes <n> (2)
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startHelloGateway } from './hello-gateway.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: opt } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '2' },
    processes: { type: 'string', default: '2' },
  },
});
const DURATION = Number(opt.duration);
const CONNECTIONS = Number(opt.connections);
const ROUNDS = Number(opt.rounds);
const PROCESSES = Number(opt.processes);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function measure(url) {
  const r = await autocannon({ url, connections: CONNECTIONS, pipelining: 1, duration: DURATION });
  return { rps: r.requests.mean, total: r.requests.total, p50: r.latency.p50, p99: r.latency.p99, bad: r.non2xx + r.errors };
}

/** Counts the `event: invocation` lines of a log stream until `stop()`. */
async function openStream(url) {
  const controller = new AbortController();
  const res = await fetch(url, { signal: controller.signal });
  if (res.status !== 200) throw new Error(`stream answered ${res.status}`);
  const counter = { events: 0 };
  const decoder = new TextDecoder();
  const reading = (async () => {
    try {
      for await (const chunk of res.body) counter.events += decoder.decode(chunk, { stream: true }).split('event: invocation\n').length - 1;
    } catch {
      /* aborted */
    }
  })();
  return { counter, stop: async () => (controller.abort(), await reading) };
}

const bareChild = fork(path.join(ROOT, 'bench', 'bare-server.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
const barePort = await new Promise((resolve) => bareChild.once('message', (m) => resolve(m.port)));
console.error(`bare node:http: ${DURATION} s at ${CONNECTIONS} connections`);
const bare = await measure(`http://127.0.0.1:${barePort}/`);
bareChild.kill('SIGTERM');

const g = await startHelloGateway({ processes: PROCESSES });
const rows = [];
try {
  console.error(`warm-up ${DURATION} s`);
  await measure(g.url);
  for (let round = 1; round <= ROUNDS; round++) {
    console.error(`round ${round}: without a stream, then with one`);
    rows.push({ label: `no stream (round ${round})`, ...(await measure(g.url)), events: null });
    const stream = await openStream(`${g.base}/api/functions/hello/logs/stream`);
    await sleep(2_500); // every process has heard that someone watches
    const before = stream.counter.events;
    const r = await measure(g.url);
    await sleep(1_000); // the last batches reach the stream
    rows.push({ label: `a log stream open (round ${round})`, ...r, events: stream.counter.events - before });
    await stream.stop();
    await sleep(7_000); // the word lapses: the processes stop sharing
  }
} finally {
  await g.stop();
}

const lines = [
  `${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ` +
    `Switchyard --processes ${PROCESSES} on SQLite, autocannon ${CONNECTIONS} connections, ${DURATION} s per row`,
  '',
  '| target | req/s | ratio to bare | p50 | p99 | non-2xx + errors | invocation events on the stream / requests |',
  '|---|---|---|---|---|---|---|',
  `| bare node:http, 1 process | ${Math.round(bare.rps)} | 1.00 | ${bare.p50} ms | ${bare.p99} ms | ${bare.bad} | |`,
  ...rows.map(
    (r) =>
      `| ${r.label} | ${Math.round(r.rps)} | ${(r.rps / bare.rps).toFixed(2)} | ${r.p50} ms | ${r.p99} ms | ${r.bad} | ` +
      `${r.events === null ? '' : `${r.events} / ${r.total} (${((100 * r.events) / Math.max(1, r.total)).toFixed(1)} %)`} |`,
  ),
];
console.log(lines.join('\n'));
process.exit(0);
