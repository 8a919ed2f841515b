// Baseline for bench/run.js: the least a Node HTTP server can do to answer the
// same JSON the hello function returns. Started with fork(); reports its port
// over IPC once listening. `--processes N` (N > 1) runs it as a node:cluster of
// N processes sharing the port, the most a machine's cores serve from Node: the
// ceiling for the gateway's default settings on a machine with many cores.
import cluster from 'node:cluster';
import http from 'node:http';

const flag = process.argv.indexOf('--processes');
const processes = flag === -1 ? 1 : Number(process.argv[flag + 1]);
const body = JSON.stringify({ hello: 'world' });

function serve(onListening) {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  // Port 0 in a cluster: the primary picks one port and every process shares it.
  server.listen(0, '127.0.0.1', () => onListening(server.address().port));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

if (processes > 1 && cluster.isPrimary) {
  let listening = 0;
  for (let i = 0; i < processes; i++) {
    cluster.fork().on('message', (m) => {
      if (++listening === processes) process.send?.({ port: m.port });
    });
  }
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    process.exit(0);
  });
} else {
  // A single process, or one of the cluster's: each reports to whoever forked it.
  serve((port) => process.send?.({ port }));
}
