// Webhook receiver for bench/webhooks.js and bench/nodes.js: a keep-alive
// node:http server in its own process that reads each request body and answers
// 200 at once. Started with fork(); reports its port over IPC once listening,
// and answers {type: 'count'} messages with the number of requests it has answered.
//
// With the argument `--track-ids` it also counts deliveries the way a consumer
// deduplicates them, by `webhook-id` header, so a multi-node run can prove that
// nothing was lost or sent twice: {type: 'mark'} starts a timed phase,
// {type: 'stats'} reports totals and the phase's first and last new id
// (Date.now(), the same clock the orchestrator reads), {type: 'ids'} lists every id seen.
// Off by default so the raw/engine figures keep their old, leaner receiver.
//
// With `--delay-ms N` it answers each request N ms after reading it: a target
// that takes time, as real ones do, so throughput is bound by how many
// deliveries are in flight rather than by CPU.
//
// `--port N` listens on that port (a target that was down comes up where the
// webhook points); `--times` keeps each request's arrival time (Date.now()),
// listed by {type: 'times'}, for rate limits measured at the receiver.
import http from 'node:http';

const trackIds = process.argv.includes('--track-ids');
const keepTimes = process.argv.includes('--times');
const portArg = process.argv.indexOf('--port');
const port = portArg === -1 ? 0 : Number(process.argv[portArg + 1]);
const times = [];
const delayArg = process.argv.indexOf('--delay-ms');
const delayMs = delayArg === -1 ? 0 : Number(process.argv[delayArg + 1]);
if (!Number.isInteger(delayMs) || delayMs < 0) throw new Error(`--delay-ms must be a whole number >= 0`);
let received = 0;
const seen = new Set();
let duplicates = 0;
let phase = newPhase();

function newPhase() {
  return { received: 0, unique: 0, duplicates: 0, first: null, last: null };
}

function track(id) {
  const now = Date.now();
  phase.received++;
  if (seen.has(id)) {
    duplicates++;
    phase.duplicates++;
    return;
  }
  seen.add(id);
  phase.unique++;
  phase.first ??= now;
  phase.last = now;
}

function answer(res) {
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 });
  res.end('ok');
}

const server = http.createServer((req, res) => {
  // Read the body to the end, as a real receiver does, so the connection stays reusable.
  req.resume();
  req.on('end', () => {
    received++;
    if (keepTimes) times.push(Date.now());
    if (trackIds) track(req.headers['webhook-id'] ?? '(none)');
    if (delayMs > 0) setTimeout(answer, delayMs, res);
    else answer(res);
  });
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.maxRequestsPerSocket = 0;
server.listen(port, '127.0.0.1', () => {
  process.send?.({ type: 'listening', port: server.address().port });
});
process.on('message', (m) => {
  if (m?.type === 'count') process.send?.({ type: 'count', received });
  else if (m?.type === 'mark') {
    phase = newPhase();
    process.send?.({ type: 'marked' });
  } else if (m?.type === 'stats') process.send?.({ type: 'stats', received, unique: seen.size, duplicates, phase });
  else if (m?.type === 'ids') process.send?.({ type: 'ids', ids: [...seen] });
  else if (m?.type === 'times') process.send?.({ type: 'times', times });
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
