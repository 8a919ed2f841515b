// The smallest useful function: the benchmark (bench/run.js) measures the
// gateway against bare node:http with exactly this handler.
exports.handler = async () => ({ statusCode: 200, body: { hello: 'world' } });
