/**
 * The verification code docs/webhooks.md shows receivers, run as written
 * against real signed deliveries of a real server: the Node by-hand `v1`
 * (Web Crypto) and `v1a` (node:crypto) functions, and the Python ones (`v1`
 * on the standard library, `v1a` on the `cryptography` package) where
 * python3 is installed, and the Go ones (`v1` on crypto/hmac, `v1a` on
 * crypto/ed25519) where a Go toolchain is. Each must accept the delivery and
 * refuse it with one byte of the body changed. Under CI=true (.ci/run
 * installs python3-cryptography and golang-go) a missing interpreter fails
 * instead of skipping.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type ReceivedRequest, type Receiver } from '../helpers/receiver.js';
import { startService, type RunningService } from '../helpers/service.js';

const DOC = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');

/** The first fenced block of `lang` after the line `marker` in the doc. */
function blockAfter(marker: string, lang: string): string {
  const at = DOC.indexOf(marker);
  if (at < 0) throw new Error(`docs/webhooks.md has no ${JSON.stringify(marker)}`);
  const open = DOC.indexOf('```' + lang + '\n', at);
  const close = DOC.indexOf('\n```', open + 4);
  return DOC.slice(open + lang.length + 4, close + 1);
}

const CI = process.env.CI === 'true';
const python = CI || spawnSync('python3', ['--version']).status === 0;
const pythonCryptography = CI || (python && spawnSync('python3', ['-c', 'import cryptography']).status === 0);
const go = CI || spawnSync('go', ['version']).status === 0;

let svc: RunningService;
let rx: Receiver;

beforeAll(async () => {
  rx = await startReceiver();
  svc = await startService({ env: { SWITCHYARD_ALLOW_PRIVATE_TARGETS: '1' } });
});

afterAll(async () => {
  await svc?.stop();
  await rx?.close();
});

interface Signed {
  req: ReceivedRequest;
  headers: Record<string, string>;
  /** The `whsec_` secret or the `whpk_` public key a receiver holds. */
  key: string;
}

async function delivery(name: string, secret: string): Promise<Signed> {
  const made = await svc.request('POST', '/api/webhooks', {
    name,
    target_url: `${rx.url}/${name}`,
    method: 'POST',
    payload_template: { hello: '{{delivery.id}}', text: 'naïve ✓' },
    secret,
  });
  expect(made.status, made.text).toBe(201);
  const before = rx.requests.length;
  expect((await svc.request('POST', `/api/webhooks/${made.json.id}/test`)).status).toBe(200);
  const req = rx.requests.slice(before).find((r) => r.url === `/${name}`)!;
  const headers = {
    'webhook-id': String(req.headers['webhook-id']),
    'webhook-timestamp': String(req.headers['webhook-timestamp']),
    'webhook-signature': String(req.headers['webhook-signature']),
  };
  return { req, headers, key: made.json.public_key ?? secret };
}

const forged = (body: string) => body.replace('hello', 'jello');

function runNode(code: string, input: object, env: Record<string, string> = {}): boolean {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], {
    input: JSON.stringify(input),
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

function runPython(code: string, input: object): boolean {
  const out = execFileSync('python3', ['-c', code], { input: JSON.stringify(input), encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

const HMAC_SECRET = 'whsec_' + Buffer.from('docs-verification-secret-32-byte').toString('base64');

describe('docs/webhooks.md verification examples, run as written', () => {
  it('Node by hand (Web Crypto) accepts a v1 delivery and refuses a changed body', async () => {
    const d = await delivery('docs-node-v1', HMAC_SECRET);
    const code =
      blockAfter('By hand (any runtime with Web Crypto', 'js') +
      "\nconst inp = JSON.parse(require_('fs').readFileSync(0, 'utf8'));\nconsole.log(JSON.stringify(await verify(inp.secret, inp.headers, inp.body)));";
    const harness = "import { createRequire } from 'node:module';\nconst require_ = createRequire(import.meta.url);\n" + code;
    expect(runNode(harness, { secret: HMAC_SECRET, headers: d.headers, body: d.req.body })).toBe(true);
    expect(runNode(harness, { secret: HMAC_SECRET, headers: d.headers, body: forged(d.req.body) })).toBe(false);
  });

  it('Node node:crypto accepts a v1a (ed25519) delivery and refuses a changed body', async () => {
    const d = await delivery('docs-node-v1a', 'generate_ed25519');
    expect(d.key).toMatch(/^whpk_/);
    const harness =
      blockAfter('Node (node:crypto; the stock packages skip `v1a`)', 'js') +
      "\nimport { readFileSync } from 'node:fs';\nconst inp = JSON.parse(readFileSync(0, 'utf8'));\nconsole.log(JSON.stringify(verifyV1a(inp.headers, Buffer.from(inp.body))));";
    const env = { SWITCHYARD_WEBHOOK_PUBLIC_KEY: d.key };
    expect(runNode(harness, { headers: d.headers, body: d.req.body }, env)).toBe(true);
    expect(runNode(harness, { headers: d.headers, body: forged(d.req.body) }, env)).toBe(false);
  });

  it.skipIf(!python)('Python (standard library) accepts a v1 delivery and refuses a changed body', async () => {
    const d = await delivery('docs-python-v1', HMAC_SECRET);
    const harness =
      blockAfter('### Verifying in Python', 'python') +
      "\nimport json, sys\ninp = json.load(sys.stdin)\nprint(json.dumps(verify(inp['secret'], inp['headers'], inp['body'].encode())))\n";
    expect(runPython(harness, { secret: HMAC_SECRET, headers: d.headers, body: d.req.body })).toBe(true);
    expect(runPython(harness, { secret: HMAC_SECRET, headers: d.headers, body: forged(d.req.body) })).toBe(false);
  });

  it.skipIf(!pythonCryptography)('Python (cryptography) accepts a v1a delivery and refuses a changed body', async () => {
    const d = await delivery('docs-python-v1a', 'generate_ed25519');
    const harness =
      "import json, sys\ninp = json.load(sys.stdin)\nPUBLIC_KEY = inp['public_key']\n" +
      blockAfter('Python (the `cryptography` package)', 'python') +
      "\nprint(json.dumps(verify_v1a(inp['headers'], inp['body'].encode())))\n";
    expect(runPython(harness, { public_key: d.key, headers: d.headers, body: d.req.body })).toBe(true);
    expect(runPython(harness, { public_key: d.key, headers: d.headers, body: forged(d.req.body) })).toBe(false);
  });

  it.skipIf(!go)('Go (crypto/hmac and crypto/ed25519) accepts v1 and v1a deliveries and refuses changed bodies', async () => {
    const v1 = await delivery('docs-go-v1', HMAC_SECRET);
    const v1a = await delivery('docs-go-v1a', 'generate_ed25519');
    const dir = mkdtempSync(join(tmpdir(), 'sy-docs-go-'));
    const imports = ['crypto/ed25519', 'crypto/hmac', 'crypto/sha256', 'encoding/base64', 'encoding/json', 'fmt', 'math', 'net/http', 'os', 'strconv', 'strings', 'time'];
    writeFileSync(
      join(dir, 'main.go'),
      `package main\n\nimport (\n${imports.map((i) => `\t"${i}"\n`).join('')})\n\n` +
        blockAfter('### Verifying in Go', 'go') +
        '\n' +
        blockAfter('Go (crypto/ed25519)', 'go') +
        `
func main() {
\tvar inp struct {
\t\tKind    string            \`json:"kind"\`
\t\tKey     string            \`json:"key"\`
\t\tHeaders map[string]string \`json:"headers"\`
\t\tBody    string            \`json:"body"\`
\t}
\tif err := json.NewDecoder(os.Stdin).Decode(&inp); err != nil {
\t\tpanic(err)
\t}
\th := http.Header{}
\tfor k, v := range inp.Headers {
\t\th.Set(k, v)
\t}
\tif inp.Kind == "v1a" {
\t\tfmt.Println(verifyV1a(inp.Key, h, []byte(inp.Body)))
\t} else {
\t\tfmt.Println(verify(inp.Key, h, []byte(inp.Body)))
\t}
}
`,
    );
    const bin = join(dir, 'verify');
    execFileSync('go', ['build', '-o', bin, join(dir, 'main.go')], { cwd: dir, env: { ...process.env, GOCACHE: join(dir, 'cache'), GO111MODULE: 'off' } });
    const run = (input: object) => JSON.parse(execFileSync(bin, { input: JSON.stringify(input), encoding: 'utf8' }).trim()) as boolean;
    expect(run({ kind: 'v1', key: HMAC_SECRET, headers: v1.headers, body: v1.req.body })).toBe(true);
    expect(run({ kind: 'v1', key: HMAC_SECRET, headers: v1.headers, body: forged(v1.req.body) })).toBe(false);
    expect(run({ kind: 'v1a', key: v1a.key, headers: v1a.headers, body: v1a.req.body })).toBe(true);
    expect(run({ kind: 'v1a', key: v1a.key, headers: v1a.headers, body: forged(v1a.req.body) })).toBe(false);
  }, 120_000);
});
