// Webhook receiver for bench/webhooks.js: a keep-alive node:http server in its
// own process that reads each request body and answers 200 at once. Started
// with fork(); reports its port over IPC once listening, and answers
// {type: 'count'} messages with the number of requests it has answered.
import http from 'node:http';

let received = 0;
const server = http.createServer((req, res) => {
  // Read the body to the end, as a real receiver does, so the connection stays reusable.
  req.resume();
  req.on('end', () => {
    received++;
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 });
    res.end('ok');
  });
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.maxRequestsPerSocket = 0;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'listening', port: server.address().port });
});
process.on('message', (m) => {
  if (m?.type === 'count') process.send?.({ type: 'count', received });
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
