// Runs real public Lambda handlers the way docs/functions.md tells a Lambda user
// to (`switchyard import` + `apply`, or `switchyard deploy` and an API), calls
// each over HTTP with the request its README or sample event shows, and checks
// the answer against what the code and its docs say API Gateway would send.
// Not a test: the handlers live outside the repository (their code is not ours
// to commit), fetched into one folder per manifest entry, npm packages installed.
//
//   node bench/real-handlers/run.mjs <handlers-folder> [--manifest <file>] [--only <id,...>] [--json <out>]
//
// One server (dist/cli.js, a temporary SQLite file) runs every handler, one
// after another, to keep the machine's CPU for others. Needs `npm run build`.
import { spawn, execFileSync } from 'node:child_process';
import { createHmac, createSign } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args.splice(i, 2)[1];
};
const manifestFile = opt('--manifest') ?? join(import.meta.dirname, 'manifest.json');
const only = opt('--only')?.split(',');
const jsonOut = opt('--json');
const folder = args[0];
if (!folder) {
  console.error('usage: node bench/real-handlers/run.mjs <handlers-folder> [--manifest <file>] [--only <id,...>] [--json <out>]');
  process.exit(2);
}
if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
const entries = manifest.handlers.filter((h) => !only || only.includes(h.id));

function startServer() {
  const db = join(mkdtempSync(join(tmpdir(), 'switchyard-real-')), 'switchyard.db');
  const proc = spawn(process.execPath, [CLI], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: `sqlite:${db}`, LOG_LEVEL: 'info', SWITCHYARD_WORKERS: '1', SWITCHYARD_PROCESSES: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`server did not start:\n${out}`)), 30_000);
    proc.stdout.on('data', (c) => {
      out += c;
      const m = /"url":"(http:\/\/[^"]+)"[^\n]*listening on/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok({ url: m[1], stop: () => proc.kill('SIGTERM') });
      }
    });
    proc.stderr.on('data', (c) => (out += c));
    proc.once('exit', (code) => fail(new Error(`server exited with ${code}:\n${out}`)));
  });
}

/** Runs the switchyard command in `cwd`; answers its output, or throws with it. */
function cli(cwd, argv, url) {
  try {
    return execFileSync(process.execPath, [CLI, ...argv, ...(url ? ['--url', url] : [])], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    throw new Error(`switchyard ${argv.join(' ')} failed:\n${(err.stdout ?? '') + (err.stderr ?? '')}`.trim());
  }
}

const b64url = (b) => Buffer.from(b).toString('base64url');
function signJwt(dir, { key, claims }) {
  const head = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const body = b64url(JSON.stringify({ iat: Math.floor(Date.now() / 1000), ...claims }));
  const sig = createSign('RSA-SHA256').update(`${head}.${body}`).sign(readFileSync(join(dir, key)));
  return `${head}.${body}.${b64url(sig)}`;
}

function buildRequest(dir, req) {
  const headers = { ...(req.headers ?? {}) };
  let body = req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
  if (req.json !== undefined) {
    body = JSON.stringify(req.json);
    // Spelt as curl sends it: an aws-v1 event keeps the client's spelling, and some middleware (middy 0.x) reads only this one.
    if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  }
  if (req.hmac) headers[req.hmac.header] = req.hmac.prefix + createHmac(req.hmac.alg, req.hmac.secret).update(body ?? '').digest('hex');
  if (req.jwt) headers.authorization = `Bearer ${signJwt(dir, req.jwt)}`;
  return { method: req.method ?? 'GET', headers, body };
}

/**
 * One HTTP request with node:http rather than fetch: header names go out as
 * written (GitHub sends `X-Hub-Signature`, and an aws-v1 handler reads it so),
 * and compressed answers are decoded as a browser would.
 */
function send(url, { method, headers, body }) {
  return new Promise((ok, fail) => {
    // A connection of its own each time: the server closes idle ones, and a reused one can be gone by the next call.
    const req = httpRequest(url, { method, agent: false, headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        let raw = Buffer.concat(chunks);
        const enc = res.headers['content-encoding'];
        if (enc === 'gzip') raw = gunzipSync(raw);
        else if (enc === 'br') raw = brotliDecompressSync(raw);
        else if (enc === 'deflate') raw = inflateSync(raw);
        const cookies = res.headers['set-cookie'] ?? [];
        const get = (name) => {
          const v = res.headers[name.toLowerCase()];
          return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
        };
        ok({ status: res.statusCode, headers: { get, getSetCookie: () => cookies }, text: raw.toString('utf8') });
      });
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(body);
  });
}

function pathGet(obj, path) {
  return path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);
}

/** Every way the answer differs from the expected one, as sentences. */
function compare(expect, res, text) {
  const diffs = [];
  if (expect.status !== undefined && res.status !== expect.status) diffs.push(`status ${res.status}, expected ${expect.status}`);
  for (const [name, want] of Object.entries(expect.headers ?? {})) {
    const got = name.toLowerCase() === 'set-cookie' ? res.headers.getSetCookie().join(' | ') || null : res.headers.get(name);
    const ok = want === null ? got === null : want && typeof want === 'object' ? got !== null && new RegExp(want.re).test(got) : got === want;
    if (!ok) diffs.push(`header ${name}: ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  }
  if (expect.body !== undefined && text !== expect.body) diffs.push(`body ${JSON.stringify(text.slice(0, 300))}, expected ${JSON.stringify(expect.body)}`);
  if (expect.bodyRe !== undefined && !new RegExp(expect.bodyRe).test(text)) diffs.push(`body ${JSON.stringify(text.slice(0, 300))} does not match /${expect.bodyRe}/`);
  if (expect.json !== undefined || expect.jsonHas !== undefined) {
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      diffs.push(`body is not JSON: ${JSON.stringify(text.slice(0, 300))}`);
      return diffs;
    }
    if (expect.json !== undefined && !isDeepStrictEqual(json, expect.json)) diffs.push(`body ${JSON.stringify(json).slice(0, 300)}, expected ${JSON.stringify(expect.json)}`);
    for (const [path, want] of Object.entries(expect.jsonHas ?? {})) {
      const got = pathGet(json, path);
      const ok = want && typeof want === 'object' && 're' in want ? typeof got === 'string' && new RegExp(want.re).test(got) : isDeepStrictEqual(got, want);
      if (!ok) diffs.push(`body.${path} ${JSON.stringify(got)?.slice(0, 200)}, expected ${JSON.stringify(want)}`);
    }
  }
  return diffs;
}

async function apiUrls(url, project, created) {
  const apis = JSON.parse((await send(`${url}/api/apis`, { method: 'GET', headers: {} })).text);
  const mine = apis.filter((a) => (project ? a.project === project : created.includes(a.name)));
  return Object.fromEntries(mine.map((a) => [a.name, a.invokeUrl]));
}

async function runOne(server, h) {
  const dir = join(folder, h.id);
  const result = { id: h.id, pass: false, stage: 'setup', problems: [] };
  if (!existsSync(dir)) {
    result.problems.push(`${dir} is missing: fetch the handler first`);
    return result;
  }
  for (const step of h.setup ?? []) {
    if (!existsSync(join(dir, step.creates))) execFileSync('sh', ['-c', step.run], { cwd: dir, stdio: 'ignore' });
  }
  let urls;
  try {
    if (h.run.how === 'import') {
      result.stage = 'import';
      const file = join(dir, h.run.file);
      cli(dirname(file), ['import', file, '--force', ...(h.run.importArgs ?? [])], null);
      const project = /^project: (.+)$/m.exec(readFileSync(join(dirname(file), 'switchyard.yaml'), 'utf8'))?.[1];
      result.stage = 'apply';
      cli(dirname(file), ['apply', '-f', '.', ...(h.run.applyArgs ?? [])], server.url);
      urls = await apiUrls(server.url, project, []);
    } else {
      result.stage = 'deploy';
      const { file, name, handler, eventFormat, env = {}, routes, api = {} } = h.run;
      const argv = ['deploy', file, '--name', name, ...(handler ? ['--handler', handler] : []), ...(eventFormat ? ['--event-format', eventFormat] : [])];
      for (const [k, v] of Object.entries(env)) argv.push('--env', `${k}=${v}`);
      argv.push(...(h.run.deployArgs ?? []));
      cli(dir, argv, server.url);
      const res = await send(`${server.url}/api/apis`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // Base path `/`: on API Gateway's own URL the stage is not part of the event's path.
        body: JSON.stringify({ name: `${name}-api`, basePath: '/', ...api, routes: routes.map((r) => ({ ...r, function: name })) }),
      });
      if (res.status !== 201) throw new Error(`creating the API answered ${res.status}: ${res.text}`);
      urls = await apiUrls(server.url, null, [`${name}-api`]);
    }
  } catch (err) {
    result.problems.push(err.message);
    return result;
  }
  result.stage = 'requests';
  for (const req of h.requests) {
    const names = Object.keys(urls);
    const api = req.api ? names.find((n) => n === req.api || n.endsWith(`-${req.api}`) || n.endsWith(req.api)) : names[0];
    if (!api) {
      result.problems.push(`${req.name}: no API ${req.api ?? ''} (APIs: ${names.join(', ') || 'none'})`);
      continue;
    }
    const { method, headers, body } = buildRequest(dir, req);
    let res, text;
    try {
      res = await send(urls[api] + req.path, { method, headers, body });
      text = res.text;
    } catch (err) {
      result.problems.push(`${req.name}: ${err.message}`);
      continue;
    }
    for (const d of compare(req.expect, res, text)) result.problems.push(`${req.name}: ${d}`);
  }
  result.pass = result.problems.length === 0;
  return result;
}

const server = await startServer();
const results = [];
try {
  for (const h of entries) {
    const r = await runOne(server, h);
    results.push(r);
    console.log(`${r.pass ? 'ok  ' : 'FAIL'} ${h.id}${r.pass ? '' : ` (${r.stage})`}`);
    for (const p of r.problems) console.log(`       ${p.replace(/\n/g, '\n       ')}`);
  }
} finally {
  server.stop();
}
const passed = results.filter((r) => r.pass).length;
console.log(`\n${passed} of ${results.length} answer as on AWS (${new Date().toISOString().slice(0, 10)})`);
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ date: new Date().toISOString(), passed, total: results.length, results }, null, 2));
