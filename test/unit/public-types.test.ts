/**
 * The package's public types (src/index.ts, built to dist/index.d.ts and
 * published through package.json `exports`/`types`): a consumer project that
 * installs `switchyard-gateway` and `@types/aws-lambda` type-checks its
 * handlers with `tsc`, and a type error in such a handler is reported. The
 * consumer lives in a temporary folder whose node_modules links to this
 * repository, so resolution goes through the real `exports` map.
 *
 * The type-level checks at the top keep the public types true to the
 * internal ones they mirror: `npm run typecheck:tests` fails when they drift.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { InvocationEvent } from '../../src/gateway/event.js';
import type { SwitchyardContext, SwitchyardEvent, SwitchyardProxyResult, SwitchyardResult } from '../../src/index.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assignable<From, To> = [From] extends [To] ? true : false;
/** The event the gateway builds is exactly the public SwitchyardEvent. */
const eventMirrorsGateway: Same<InvocationEvent, SwitchyardEvent> = true;
/** A helper typed with aws-lambda's Context accepts Switchyard's context. */
const contextIsLambdaContext: Assignable<SwitchyardContext, Context> = true;
const proxyResultIsResult: Assignable<SwitchyardProxyResult, SwitchyardResult> = true;

const HANDLER = `import type { SwitchyardContext, SwitchyardEvent, SwitchyardHandler, SwitchyardResult } from 'switchyard-gateway';
import type { Context } from 'aws-lambda';

function logFor(context: Context): string {
  return context.functionName + ' ' + context.awsRequestId;
}

export async function handler(event: SwitchyardEvent, context: SwitchyardContext): Promise<SwitchyardResult> {
  const id = event.pathParameters?.id ?? 'none';
  const left: number = context.getRemainingTimeInMillis();
  return { statusCode: 200, headers: { 'x-log': logFor(context) }, body: { id, left, ip: event.requestContext.sourceIp } };
}

export const callbackStyle: SwitchyardHandler = (event, context, callback) => {
  if (event.httpMethod !== 'GET') return callback(new Error('GET only'));
  callback(null, { ok: true, method: event.httpMethod });
};
`;

const AWS_HANDLER = `import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { APIGatewayProxyHandler } from 'aws-lambda';

export const v2 = async (event: APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyResultV2> => ({
  statusCode: 200,
  cookies: ['a=1'],
  body: JSON.stringify({ path: event.rawPath, fn: context.functionName }),
});

export const v1: APIGatewayProxyHandler = async (event) => ({ statusCode: 200, body: event.body ?? '' });
`;

const BROKEN = `import type { SwitchyardEvent, SwitchyardContext } from 'switchyard-gateway';

export async function handler(event: SwitchyardEvent, context: SwitchyardContext) {
  const method: number = event.httpMethod;
  return { statusCode: 200, body: { method, left: context.getRemainingTimeInMillis().toUpperCase() } };
}
`;

/** A consumer project: the given files, `switchyard-gateway`, `@types/aws-lambda` and `@types/node` linked into its node_modules. */
function consumer(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-consumer-'));
  mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules', 'switchyard-gateway'), 'dir');
  // @types/aws-lambda needs Node's types (node:stream), as in any project that uses it.
  for (const types of ['aws-lambda', 'node']) symlinkSync(join(ROOT, 'node_modules', '@types', types), join(dir, 'node_modules', '@types', types), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'ES2022', lib: ['ES2022'], module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'] },
      files: Object.keys(files),
    }),
  );
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** Runs tsc on the project: its exit status and what it printed. */
function tsc(dir: string): { status: number; output: string } {
  try {
    return { status: 0, output: execFileSync(process.execPath, [TSC, '-p', dir], { encoding: 'utf8' }) };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { status: e.status, output: `${e.stdout}${e.stderr}` };
  }
}

describe('the public types', () => {
  it('mirror the gateway event and fit the aws-lambda Context (checked by the type checker)', () => {
    expect([eventMirrorsGateway, contextIsLambdaContext, proxyResultIsResult]).toEqual([true, true, true]);
  });

  it('are built where package.json points', () => {
    expect(existsSync(join(ROOT, 'dist', 'index.d.ts')), 'run npm run build first').toBe(true);
  });

  it("type-check a consumer's Switchyard handler and its aws-lambda typed handlers through the package's exports", () => {
    const result = tsc(consumer({ 'handler.ts': HANDLER, 'aws-handler.ts': AWS_HANDLER }));
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  });

  it('report a type error in a handler, naming its file and line', () => {
    const result = tsc(consumer({ 'broken.ts': BROKEN }));
    expect(result.status).not.toBe(0);
    expect(result.output).toContain("broken.ts(4,9): error TS2322: Type 'string' is not assignable to type 'number'.");
    expect(result.output).toContain("broken.ts(5,86): error TS2339: Property 'toUpperCase' does not exist on type 'number'.");
  });
});
