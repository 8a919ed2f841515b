/**
 * A function's console lines cannot drive the operator's terminal: with the
 * real CLI (colours off, so no escape sequence of its own is expected), a
 * function logs a window title (OSC), a screen clear and a cursor move
 * (CSI), an 8-bit CSI (C1), a bell, a carriage return and backspaces over
 * text, and a line break followed by a forged log line. `switchyard logs`,
 * `switchyard invoke` and `switchyard dev` print none of those characters:
 * each is shown escaped, and the forged line starts with the continuation
 * mark, never as a line of its own.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTINUATION } from '../../src/cli/terminal-text.js';
import { killLeftoverClis, runCli, runCliToEnd } from '../helpers/cli.js';
import { startService, type RunningService } from '../helpers/service.js';

const FORGED = '2026-01-01T00:00:00.000Z error forged by the function';
const NOISY = `exports.handler = async () => {
  console.log('title \\x1b]0;pwned\\x07 set');
  console.log('clear \\x1b[2J\\x1b[H done');
  console.log('c1 \\x9b31m red');
  console.log('hidden\\r\\b\\bshown');
  console.log('first\\n${FORGED}');
  return { statusCode: 200, body: 'noisy' };
};
`;
/** What no line of the CLI's output may hold: ESC, BEL, CR, backspace, the C1 controls. */
const RAW_CONTROL = /[\x1b\x07\r\x08\x80-\x9f]/;

let svc: RunningService;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'switchyard-terminal-'));
  svc = await startService();
  const created = await svc.request('POST', '/api/functions', { name: 'noisy', code: NOISY });
  expect(created.status, created.text).toBe(201);
}, 60_000);

afterAll(async () => {
  killLeftoverClis();
  await svc?.stop();
  rmSync(root, { recursive: true, force: true });
});

const cli = (args: string[]) => runCliToEnd(args, { SWITCHYARD_URL: svc.url, NO_COLOR: '1' });

/** The function's lines as the CLI printed them: escaped, the forged one a continuation. */
function expectEscaped(output: string): void {
  expect(output).not.toMatch(RAW_CONTROL);
  expect(output).toContain('title \\x1b]0;pwned\\x07 set');
  expect(output).toContain('clear \\x1b[2J\\x1b[H done');
  expect(output).toContain('c1 \\x9b31m red');
  expect(output).toContain('hidden\\r\\b\\bshown');
  expect(output).toContain(`first\n${CONTINUATION}${FORGED}`);
  expect(output.split('\n').some((line) => line.startsWith(FORGED))).toBe(false);
}

describe('console lines on the terminal', () => {
  it('switchyard invoke and switchyard logs', async () => {
    const invoked = await cli(['invoke', 'noisy']);
    expect(invoked.code, invoked.stderr).toBe(0);
    expectEscaped(invoked.stderr);
    const logs = await cli(['logs', 'noisy']);
    expect(logs.code, logs.stderr).toBe(0);
    expectEscaped(logs.stdout);
  });

  it('switchyard dev', async () => {
    const dir = join(root, 'dev');
    mkdirSync(join(dir, 'functions'), { recursive: true });
    writeFileSync(join(dir, 'functions', 'noisy.js'), NOISY);
    writeFileSync(join(dir, 'switchyard.yaml'), 'functions:\n  dev-noisy: { file: functions/noisy.js }\napis:\n  t:\n    base_path: /t\n    routes: [{ method: GET, path: /noisy, function: dev-noisy }]\n');
    const run = runCli(['dev', dir, '--port', '0'], { NO_COLOR: '1' });
    try {
      const [route] = await run.waitForOutput(/http:\/\/127\.0\.0\.1:\d+\/api\/invoke\/fn\/api_[0-9a-z]+\/t\/noisy/, 30_000);
      expect((await fetch(route)).status).toBe(200);
      await run.waitForOutput(/forged by the function/, 15_000);
      await run.waitForOutput(/GET \/t\/noisy 200/, 15_000);
      expectEscaped(run.stderr());
    } finally {
      run.kill();
    }
  });
});
