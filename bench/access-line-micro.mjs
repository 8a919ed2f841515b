// `node bench/access-line-micro.mjs`: CPU per access line (src/http/access-log.ts)
// written by the logger of src/logger.ts, without a server: one line per turn
// of the event loop (as one request per turn would write), into stdout to
// /dev/null, with process CPU (every thread: libuv's pool does the writes of
// an asynchronous destination) less a loop of the same turns with no line.
// Each variant runs in its own process (one stdout destination per process).
// `--before <dist dir>` adds another build's logger (an A/B of a change to it).
// Needs `npm run build`.
//
// Options: --lines <n> (50000)  --rounds <n> (3)  --before <path to a dist/ folder>
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const { values: opt } = parseArgs({
  options: { lines: { type: 'string', default: '50000' }, rounds: { type: 'string', default: '3' }, before: { type: 'string' }, child: { type: 'string' } },
});
const lines = Number(opt.lines);

if (opt.child) {
  const dist = opt.child;
  const { createLogger } = await import(pathToFileURL(`${dist}/logger.js`).href);
  const { AccessLog } = await import(pathToFileURL(`${DIST}/http/access-log.js`).href);
  const { DEFAULT_QUERY_REDACTION } = await import(pathToFileURL(`${DIST}/net/redact.js`).href);
  const access = new AccessLog({ log: createLogger({ logLevel: 'info', logFormat: 'json' }), enabled: true, redaction: DEFAULT_QUERY_REDACTION });
  const facts = { route: 'GET /bench/hello', function: 'hello' };
  const turn = () => new Promise((r) => setImmediate(r));
  const run = async (write) => {
    const start = process.cpuUsage();
    for (let i = 0; i < lines; i++) {
      if (write) {
        access.invocation(
          { method: 'GET', url: `/bench/hello?n=${i}`, status: 200, ms: 0.42, requestId: `d24d463a837d${String(i).padStart(12, '0')}`, traceparent: undefined, apiId: 'api_01a23a957ddd00003941d4bd70c0', errorCode: undefined },
          facts,
        );
      }
      await turn();
    }
    const used = process.cpuUsage(start);
    return used.user + used.system;
  };
  await run(true); // warm
  const idle = await run(false);
  const withLines = await run(true);
  process.stderr.write(JSON.stringify({ usPerLine: (withLines - idle) / lines }) + '\n');
  process.exit(0);
}

const variants = [['this', DIST], ...(opt.before ? [['before', opt.before]] : [])];
const rows = [];
for (let round = 0; round < Number(opt.rounds); round++) {
  for (const [build, dist] of variants) {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dist, '--lines', String(lines)], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    rows.push({ round, build, ...JSON.parse(r.stderr.trim().split('\n').at(-1)) });
  }
}
console.table(rows.map((r) => ({ ...r, usPerLine: r.usPerLine.toFixed(2) })));
