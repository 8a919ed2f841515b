// Baseline for bench/run.js: the least a Node HTTP server can do to answer the
// same JSON the hello function returns. Started with fork(); reports its port
// over IPC once listening.
import http from 'node:http';

const body = JSON.stringify({ hello: 'world' });
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: server.address().port });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
