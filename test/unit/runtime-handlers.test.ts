// Lambda handler idioms through the real runtime (worker processes, isolates):
// which export is called, the calling conventions of Lambda's Node.js runtime
// (callback, context.succeed/fail/done, first completion wins) and the context.
// Needs dist/runtime/worker.js (npm test builds first).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSource } from '../../src/runtime/compile.js';
import { createRuntime, type Runtime } from '../../src/runtime/pool.js';
import type { DeployedFunction, InvokeOutcome } from '../../src/runtime/types.js';

let rt: Runtime;
beforeAll(() => {
  rt = createRuntime({ workers: 1, allowPrivateTargets: false });
});
afterAll(async () => {
  await rt.close(1000);
});

let seq = 0;
async function fn(code: string, extra: Partial<DeployedFunction> = {}): Promise<DeployedFunction> {
  return {
    name: `handlers${++seq}`,
    version: 1,
    compiled: (await compileSource(code, 'typescript')).compiled,
    env: {},
    timeoutMs: 5000,
    memoryMb: 64,
    handler: null,
    ...extra,
  };
}

const call = (f: DeployedFunction, event: unknown = {}, rid = `req_${seq}`) => rt.invoke(f, JSON.stringify(event), rid);

function okResult(out: InvokeOutcome): unknown {
  if (!out.ok) throw new Error(`expected ok, got ${out.error.code}: ${out.error.message}`);
  return out.result;
}

function failure(out: InvokeOutcome): { code: string; message: string } {
  if (out.ok) throw new Error(`expected a failure, got ${JSON.stringify(out.result)}`);
  return out.error;
}

/** Validates as a deploy does, then runs it once: the export chosen must be the same both times. */
async function deployAndCall(code: string, handler: string | null = null, event: unknown = {}): Promise<unknown> {
  const f = await fn(code, { handler });
  expect(await rt.validate(f.compiled, { timeoutMs: 1000, memoryMb: 32, env: {}, handler })).toEqual({ ok: true });
  return okResult(await call(f, event));
}

const refusal = async (code: string, handler: string | null = null) =>
  rt.validate((await compileSource(code, 'typescript')).compiled, { timeoutMs: 1000, memoryMb: 32, env: {}, handler });

describe('the export called', () => {
  it.each([
    ['module.exports.endpoint, handler "handler.endpoint"', `module.exports.endpoint = async () => 'endpoint';`, 'handler.endpoint', 'endpoint'],
    ['exports.hello, the only exported function', `exports.hello = async () => 'hello';\nexports.greeting = 'hi';`, null, 'hello'],
    ['export const lambdaHandler, handler "app.lambdaHandler"', `export const lambdaHandler = async () => 'lambdaHandler';`, 'app.lambdaHandler', 'lambdaHandler'],
    ['export const lambdaHandler, handler "lambdaHandler"', `export const lambdaHandler = async () => 'plain name';`, 'lambdaHandler', 'plain name'],
    ['export default async function', `export default async function (event) { return 'default'; }\nexport const helper = () => 1;`, null, 'default'],
    ['module.exports = function (the module is the default)', `module.exports = async () => 'module';`, null, 'module'],
    ['module.exports = function, handler "index.default"', `module.exports = async () => 'module default';`, 'index.default', 'module default'],
    ['export { x as y }, handler "src/app.y"', `const x = async () => 'renamed';\nexport { x as y };`, 'src/app.y', 'renamed'],
    ['a nested path, handler "app.api.get"', `exports.api = { get: async () => 'nested' };`, 'app.api.get', 'nested'],
    ['the setting before an export named handler', `export const handler = async () => 'handler';\nexport const main = async () => 'main';`, 'main', 'main'],
    ['TypeScript with types', `type Ev = { who: string };\nexport const lambdaHandler = async (event: Ev): Promise<string> => 'ts ' + event.who;`, 'app.lambdaHandler', 'ts world'],
  ])('%s', async (_what, code, handler, expected) => {
    expect(await deployAndCall(code, handler, { who: 'world' })).toBe(expected);
  });

  it('prefers an export named handler, then the default export', async () => {
    expect(await deployAndCall(`export default async () => 'default';\nexport const other = async () => 'other';`)).toBe('default');
    expect(await deployAndCall(`export default async () => 'default';\nexport const handler = async () => 'handler';`)).toBe('handler');
  });

  it('refuses a named export that is missing, listing the exports found', async () => {
    const code = `exports.handler = async () => 1;\nexports.helper = () => 2;`;
    expect(await refusal(code, 'main')).toEqual({ ok: false, message: "no export named 'main'; exports found: handler, helper" });
    expect(await refusal(code, 'app.main')).toEqual({
      ok: false,
      message: "no export named 'main' (handler 'app.main'); exports found: handler, helper",
    });
  });

  it('refuses a named export that is not a function', async () => {
    expect(await refusal(`exports.handler = async () => 1;\nexports.config = { a: 1 };`, 'config')).toEqual({
      ok: false,
      message: "export 'config' is an object, not a function; exports found: handler, config",
    });
    expect(await refusal(`exports.handler = 'nope';\nexports.helper = () => 2;`)).toEqual({
      ok: false,
      message: "export 'handler' is a string, not a function; exports found: handler, helper",
    });
  });

  it('refuses code with no callable export, or several and none named handler or default', async () => {
    expect(await refusal(`const x = 1;`)).toEqual({
      ok: false,
      message: "no function to call: export one named 'handler' or a default export; exports found: none",
    });
    expect(await refusal(`export const a = () => 1;\nexport const b = () => 2;\nexport const c = 3;`)).toEqual({
      ok: false,
      message: "no export named 'handler' or 'default' and 2 exported functions: set the handler field to the one to call; exports found: a, b, c",
    });
    expect(await refusal(`module.exports = () => 1;`, 'app.main')).toEqual({
      ok: false,
      message: "no export named 'main' (handler 'app.main'); exports found: default (module.exports)",
    });
  });

  it('a warm isolate whose export went missing fails its calls with the same message', async () => {
    const f = await fn(`exports.handler = async () => 1;`, { handler: 'gone' });
    expect(failure(await call(f))).toEqual({ code: 'function_error', message: "no export named 'gone'; exports found: handler" });
  });
});

describe('calling conventions', () => {
  it('callback(null, result), synchronously and later', async () => {
    expect(await deployAndCall(`exports.handler = (event, context, callback) => { callback(null, { statusCode: 200, body: 'now' }); };`)).toEqual({
      statusCode: 200,
      body: 'now',
    });
    expect(await deployAndCall(`exports.handler = (event, context, callback) => { setTimeout(() => callback(null, 'later'), 20); };`)).toBe('later');
  });

  it('the declared parameters decide whether a plain return value answers', async () => {
    // Declaring the callback: the return value is ignored, as on Lambda; the callback answers.
    expect(await deployAndCall(`exports.handler = (e, c, callback) => setTimeout(() => callback(null, 'callback'), 20);`)).toBe('callback');
    // Fewer parameters: Switchyard's synchronous form, the value (or nothing) answers at once.
    expect(await deployAndCall(`exports.handler = (event) => ({ statusCode: 200, body: 'sync' });`)).toEqual({ statusCode: 200, body: 'sync' });
    const none = await call(await fn(`exports.handler = (event, context) => { setTimeout(() => context.succeed('too late'), 20); };`));
    expect(okResult(none)).toBeUndefined();
  });

  it('callback(err) is a function_error keeping the name and message', async () => {
    const out = await call(await fn(`exports.handler = (e, c, callback) => { setTimeout(() => callback(new TypeError('bad input')), 10); };`));
    expect(failure(out).code).toBe('function_error');
    expect(failure(out).message).toMatch(/^TypeError: bad input/);
  });

  it.each([
    ['a string', `'boom'`, 'boom'],
    ['an object', `{ code: 42 }`, '[object Object]'],
    ['a number', `42`, '42'],
    ['an object with its own toString', `{ toString() { return 'custom reason'; } }`, 'custom reason'],
    ['an object whose toString throws', `{ toString() { throw new Error('no'); } }`, 'the callback was given an error whose message, name or string form cannot be read'],
  ])('callback(%s) is stringified as Lambda does', async (_what, value, message) => {
    expect(failure(await call(await fn(`exports.handler = (e, c, callback) => { callback(${value}); };`)))).toEqual({ code: 'function_error', message });
  });

  it('context.succeed, context.fail and context.done', async () => {
    expect(await deployAndCall(`exports.handler = function (event, context) { context.succeed({ via: 'succeed' }); };`)).toEqual({ via: 'succeed' });
    expect(await deployAndCall(`exports.handler = (e, context, cb) => { setTimeout(() => context.done(null, 'done later'), 10); };`)).toBe('done later');
    expect(failure(await call(await fn(`exports.handler = (e, context) => { context.fail(new RangeError('out of range')); };`))).message).toMatch(
      /^RangeError: out of range/,
    );
    expect(failure(await call(await fn(`exports.handler = (e, context) => { context.fail(); };`)))).toEqual({ code: 'function_error', message: 'handled' });
    expect(failure(await call(await fn(`exports.handler = (e, context, cb) => { context.done('no luck', 'ignored'); };`)))).toEqual({
      code: 'function_error',
      message: 'no luck',
    });
  });

  it('the first completion wins: callback then throw, callback then a different return', async () => {
    const thenThrow = await fn(`exports.handler = (e, c, callback) => { callback(null, 'first'); throw new Error('second'); };`);
    expect(okResult(await call(thenThrow))).toBe('first');
    const thenReturn = await fn(`exports.handler = async (e, c, callback) => { callback(null, 'callback'); return 'promise'; };`);
    expect(okResult(await call(thenReturn))).toBe('callback');
    const succeedThenFail = await fn(`exports.handler = (e, context) => { context.succeed('succeeded'); context.fail('failed'); context.done(null, 'done'); };`);
    expect(okResult(await call(succeedThenFail))).toBe('succeeded');
  });

  it('the first completion wins: a settled promise before a later callback, which is a no-op', async () => {
    // 'first' answers with its promise at once and calls its callback later, while 'witness'
    // (same isolate, same batch) keeps timers alive and then reports what that call did.
    const f = await fn(`const seen = [];
      exports.handler = async (event, context, callback) => {
        if (event.witness) { await new Promise((r) => setTimeout(r, 300)); return seen; }
        setTimeout(() => {
          try { callback(null, 'callback'); context.succeed('succeed'); seen.push('ignored'); }
          catch (e) { seen.push('threw ' + e); }
        }, 20);
        if (event.reject) throw new Error('rejected');
        return 'promise';
      };`);
    const [first, witness] = await Promise.all([call(f, {}, 'req_first'), call(f, { witness: true }, 'req_witness')]);
    expect(okResult(first)).toBe('promise');
    expect(okResult(witness)).toEqual(['ignored']);
    const [rejected, witness2] = await Promise.all([call(f, { reject: true }), call(f, { witness: true })]);
    expect(failure(rejected).message).toMatch(/^Error: rejected/);
    expect(okResult(witness2)).toEqual(['ignored', 'ignored']);
  });

  it('a callback-style handler that never completes times out', async () => {
    const out = await call(await fn(`exports.handler = (event, context, callback) => {};`, { timeoutMs: 300 }));
    expect(failure(out).code).toBe('function_timeout');
  });

  it("keeps the console lines printed after a synchronous callback with the invocation's answer", async () => {
    const out = await call(await fn(`exports.handler = (e, c, callback) => { console.log('before'); callback(null, 1); console.log('after'); };`), {}, 'req_lines');
    expect(okResult(out)).toBe(1);
    expect(out.logs.map((l) => [l.message, l.requestId])).toEqual([
      ['before', 'req_lines'],
      ['after', 'req_lines'],
    ]);
  });

  it('serves concurrent callback-style invocations each with its own answer', async () => {
    const f = await fn(`exports.handler = (event, context, callback) => { setTimeout(() => callback(null, event.n * 10), 30 - event.n); };`);
    const outs = await Promise.all([1, 2, 3, 4, 5].map((n) => call(f, { n }, `req_c${n}`)));
    expect(outs.map(okResult)).toEqual([10, 20, 30, 40, 50]);
  });

  it('keeps working when user code replaces the builtins the callback path uses', async () => {
    const f = await fn(`
      Function.prototype.apply = function () { throw new Error('apply'); };
      Function.prototype.call = function () { throw new Error('call'); };
      Reflect.apply = function () { throw new Error('Reflect.apply'); };
      Object.keys = function () { throw new Error('keys'); };
      Array.prototype.join = function () { return 'joined'; };
      String = function () { return 'forged'; };
      JSON.stringify = function () { return '{"forged":true}'; };
      exports.lambdaHandler = (event, context, callback) => {
        if (event.fail) setTimeout(() => context.fail('plain reason'), 5);
        else setTimeout(() => callback(null, { statusCode: 200, body: 'intact' }), 5);
      };`, { handler: 'app.lambdaHandler' });
    expect(okResult(await call(f))).toEqual({ statusCode: 200, body: 'intact' });
    expect(failure(await call(f, { fail: true }))).toEqual({ code: 'function_error', message: 'plain reason' });
  });
});

describe('the context', () => {
  it('has the fields of the Lambda context, with the documented synthetic values', async () => {
    const f = await fn(
      `exports.handler = async (event, context) => {
        const { getRemainingTimeInMillis, succeed, fail, done, ...fields } = context;
        return {
          fields,
          has: ['clientContext', 'identity'].map((k) => k in context),
          left: getRemainingTimeInMillis(),
          methods: [typeof succeed, typeof fail, typeof done],
        };
      };`,
      { version: 3, memoryMb: 96, timeoutMs: 4000 },
    );
    const out = okResult(await call(f, {}, 'req_ctx')) as {
      fields: Record<string, unknown>;
      has: boolean[];
      left: number;
      methods: string[];
    };
    expect(out.fields).toEqual({
      functionName: f.name,
      functionVersion: '3',
      invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${f.name}`,
      memoryLimitInMB: '96',
      awsRequestId: 'req_ctx',
      requestId: 'req_ctx',
      logGroupName: `/aws/lambda/${f.name}`,
      logStreamName: expect.stringMatching(/^\d{4}\/\d\d\/\d\d\/\[3\][0-9a-f]{32}$/),
      callbackWaitsForEmptyEventLoop: true,
    });
    expect(out.has).toEqual([true, true]);
    expect(out.left).toBeGreaterThan(0);
    expect(out.left).toBeLessThanOrEqual(4000);
    expect(out.methods).toEqual(['function', 'function', 'function']);
  });

  it('keeps one log stream per isolate, and callbackWaitsForEmptyEventLoop settable per invocation', async () => {
    const f = await fn(`exports.handler = (e, context, callback) => {
      const before = context.callbackWaitsForEmptyEventLoop;
      context.callbackWaitsForEmptyEventLoop = false;
      callback(null, { before, after: context.callbackWaitsForEmptyEventLoop, stream: context.logStreamName });
    };`);
    const [a, b] = [okResult(await call(f)), okResult(await call(f))] as Array<{ before: boolean; after: boolean; stream: string }>;
    expect(a).toMatchObject({ before: true, after: false });
    expect(b).toMatchObject({ before: true, after: false });
    expect(b.stream).toBe(a.stream);
  });
});
