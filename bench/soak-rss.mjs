// `node bench/soak-rss.mjs`: memory of one node under a steady load (issue 27's
// goal: at most 800 MB, flat after its first minute). The hello gateway of
// hello-gateway.mjs at default settings (`--processes 2` unless told), loaded
// for --minutes with autocannon (50 connections on the hello route) while
// this process publishes --events-per-second events that one webhook delivers
// to a receiver here. Every 5 s it sums VmRSS and PSS (/proc/<pid>/smaps_rollup:
// shared pages split between the processes that map them) over the node's
// process tree. Prints the samples, the peak in the first minute and after it,
// and the growth from the end of the first minute to the end. Needs `npm run build`.
//
// Options: --minutes <n> (3)  --connections <n> (50)  --events-per-second <n> (200)  --processes <n> (2)
import autocannon from 'autocannon';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startHelloGateway } from './hello-gateway.mjs';
import { processTree } from './proc-cpu.mjs';

const { values: opt } = parseArgs({
  options: {
    minutes: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    'events-per-second': { type: 'string', default: '200' },
    processes: { type: 'string', default: '2' },
  },
});
const MINUTES = Number(opt.minutes);
const EVENTS_PER_SECOND = Number(opt['events-per-second']);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function memoryMb(pids) {
  let rss = 0;
  let pss = 0;
  for (const p of pids) {
    try {
      const roll = readFileSync(`/proc/${p}/smaps_rollup`, 'utf8');
      rss += Number(/^Rss:\s+(\d+)/m.exec(roll)[1]);
      pss += Number(/^Pss:\s+(\d+)/m.exec(roll)[1]);
    } catch {
      /* gone */
    }
  }
  return { rss: Math.round(rss / 1024), pss: Math.round(pss / 1024), processes: pids.length };
}

let received = 0;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.writeHead(204);
    res.end();
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));

const gw = await startHelloGateway({ processes: Number(opt.processes), env: { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
let stop = false;
try {
  const post = (path, body) =>
    fetch(`${gw.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const hook = await post('/api/webhooks', {
    name: 'soak',
    target_url: `http://127.0.0.1:${receiver.address().port}/soak`,
    method: 'POST',
    payload_template: { n: '{{data.n}}' },
    events: ['soak.tick'],
  });
  if (hook.status !== 201) throw new Error(`creating the webhook: ${hook.status} ${await hook.text()}`);

  let published = 0;
  const publisher = (async () => {
    const started = performance.now();
    while (!stop) {
      const due = Math.floor(((performance.now() - started) / 1000) * EVENTS_PER_SECOND);
      const batch = [];
      for (; published < due; published++) batch.push(post('/api/events', { event: 'soak.tick', data: { n: published } }).then((r) => r.arrayBuffer()));
      await Promise.all(batch);
      await sleep(20);
    }
  })();

  const samples = [];
  const t0 = performance.now();
  const load = autocannon({ url: gw.url, connections: Number(opt.connections), duration: MINUTES * 60 });
  let done = false;
  load.then(() => (done = true));
  while (!done) {
    await sleep(5000);
    const s = { at: Math.round((performance.now() - t0) / 1000), ...memoryMb(processTree(gw.child.pid)) };
    samples.push(s);
    process.stderr.write(`${s.at} s: RSS ${s.rss} MB, PSS ${s.pss} MB (${s.processes} processes), ${received} delivered\n`);
  }
  const r = await load;
  stop = true;
  await publisher;

  const first = samples.filter((s) => s.at <= 60);
  const after = samples.filter((s) => s.at > 60);
  const peak = (xs, k) => Math.max(...xs.map((s) => s[k]));
  const atMinute = first.at(-1);
  const last = samples.at(-1);
  console.log(`\nsoak: ${MINUTES} min, hello at ${opt.connections} connections (${Math.round(r.requests.average)} req/s, non-2xx ${r.non2xx}), ${EVENTS_PER_SECOND} events/s to one webhook (${published} published, ${received} delivered), ${opt.processes} server processes\n`);
  console.log('| | RSS summed MB | PSS summed MB |');
  console.log('|---|---|---|');
  console.log(`| peak in the first minute | ${peak(first, 'rss')} | ${peak(first, 'pss')} |`);
  if (after.length) console.log(`| peak after it | ${peak(after, 'rss')} | ${peak(after, 'pss')} |`);
  console.log(`| at 1 min -> at the end | ${atMinute.rss} -> ${last.rss} (${(((last.rss - atMinute.rss) / atMinute.rss) * 100).toFixed(1)} %) | ${atMinute.pss} -> ${last.pss} (${(((last.pss - atMinute.pss) / atMinute.pss) * 100).toFixed(1)} %) |`);
} finally {
  stop = true;
  await gw.stop();
  receiver.close();
}
