// A flood of /metrics scrapes on one node with two server processes and 400
// routes that have served a request each: 150 scrapes at once while /healthz
// is asked one at a time. Prints the flood's wall time, what the scrapes got
// and the slowest health check. `--cli <path>` runs another build's cli.js
// (an A/B against a build from before a change).
//   node bench/metrics-flood.mjs [--scrapes 150] [--cli ../old/dist/cli.js]
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startHelloGateway } from './hello-gateway.mjs';
import { call } from './nodes.js';

const { values: opt } = parseArgs({ options: { scrapes: { type: 'string', default: '150' }, cli: { type: 'string' } } });
const gateway = await startHelloGateway({ processes: 2, ...(opt.cli ? { cli: path.resolve(opt.cli) } : {}) });
try {
  const code = 'exports.handler = async () => ({ statusCode: 200, body: {} });';
  await call(gateway.base, 'POST', '/api/functions', { name: 'flood', code }, [201]);
  const urls = [];
  for (let a = 0; a < 4; a++) {
    const routes = Array.from({ length: 100 }, (_, i) => ({ method: 'GET', path: `/r${i}`, function: 'flood' }));
    const api = await call(gateway.base, 'POST', '/api/apis', { name: `flood${a}`, basePath: `/f${a}`, routes }, [201]);
    for (let i = 0; i < 100; i++) urls.push(`${gateway.base}/api/invoke/fn/${api.id}/f${a}/r${i}`);
  }
  // One request per route gives each its series (the scrape's size grows with them).
  for (let k = 0; k < urls.length; k += 50) await Promise.all(urls.slice(k, k + 50).map((u) => fetch(u).then((r) => r.text())));
  const size = (await fetch(`${gateway.base}/metrics`).then((r) => r.text())).length;
  await new Promise((r) => setTimeout(r, 1100));

  let polling = true;
  let worst = 0;
  let checks = 0;
  const poller = (async () => {
    while (polling) {
      const t = performance.now();
      await fetch(`${gateway.base}/healthz`).then((r) => r.text());
      worst = Math.max(worst, performance.now() - t);
      checks++;
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const started = performance.now();
  const statuses = await Promise.all(
    Array.from({ length: Number(opt.scrapes) }, () => fetch(`${gateway.base}/metrics`).then(async (r) => (await r.text(), r.status))),
  );
  const wall = performance.now() - started;
  await new Promise((r) => setTimeout(r, 200));
  polling = false;
  await poller;
  const count = (s) => statuses.filter((x) => x === s).length;
  console.log(
    `${statuses.length} scrapes of ${Math.round(size / 1024)} KiB at once: ${wall.toFixed(0)} ms, ${count(200)} answered 200, ` +
      `${count(503)} answered 503; slowest of ${checks} health checks meanwhile: ${worst.toFixed(1)} ms`,
  );
} finally {
  await gateway.stop();
}
