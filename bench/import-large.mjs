/**
 * A very large project through the CLI's project code: a generated
 * serverless.yml with N functions (60,000 by default), all sharing one
 * handler file, the first 1000 with an HTTP API route (an API holds at most
 * 1000), the others subscribed to an event, is imported with the real
 * `switchyard import` (a child process), then the project file it wrote is
 * loaded (parse, schema, `${env:}`, each function's file checked and read)
 * and planned against an empty server. Each step runs in its own process and
 * reports its wall time, its CPU time (user + system: steadier than the wall
 * time on a shared machine) and its peak resident memory.
 *
 *   node bench/import-large.mjs [--functions 60000] [--dist dist]
 *
 * `--dist` names another build to compare with (a checkout of an older
 * commit, built). Nothing here is a pass/fail test; figures go to
 * bench/README.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';

const { values } = parseArgs({ options: { functions: { type: 'string', default: '60000' }, dist: { type: 'string', default: 'dist' } } });
const n = Number(values.functions);
const dist = resolve(values.dist);

/** Prints the process's peak memory when it ends: read back from stderr. */
const REPORT_RSS =
  "data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nmaxrss_kb='+u.maxRSS+' cpu_us='+(u.userCPUTime+u.systemCPUTime)+'\\n')})";

function run(label, args, cwd) {
  const started = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ['--import', REPORT_RSS, ...args], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const [, rss, cpu] = /maxrss_kb=(\d+) cpu_us=(\d+)/.exec(child.stderr) ?? [];
  if (child.status !== 0) throw new Error(`${label} failed (${child.status}):\n${child.stderr.slice(-2000)}`);
  const cells = [`${seconds.toFixed(1)} s`, `${(Number(cpu) / 1e6).toFixed(1)} s CPU`, `${(Number(rss) / 1024).toFixed(0)} MB`];
  console.log(`${label.padEnd(28)} ${cells.map((c) => c.padStart(12)).join(' ')}`);
}

const dir = mkdtempSync(join(tmpdir(), 'switchyard-import-bench-'));
try {
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'h.js'), 'exports.handler = async () => ({ statusCode: 200 });\n');
  let text = 'service: big\nprovider:\n  name: aws\n  runtime: nodejs20.x\n  environment:\n    STAGE: test\nfunctions:\n';
  for (let i = 0; i < n; i++) {
    const event = i < 1000 ? `httpApi: 'GET /r${i}/{id}'` : `eventBridge: { pattern: { detail-type: [evt.${i}] } }`;
    text += `  fn${i}:\n    handler: src/h.handler\n    events:\n      - ${event}\n`;
  }
  writeFileSync(join(dir, 'serverless.yml'), text);
  console.log(`${n} functions, serverless.yml ${(text.length / 1024 / 1024).toFixed(1)} MB, build ${dist}`);

  run('switchyard import', [join(dist, 'cli.js'), 'import', 'serverless.yml'], dir);

  const project = pathToFileURL(join(dist, 'project', 'index.js')).href;
  const loadAndPlan = `
    const { loadProject, planProject } = await import(${JSON.stringify(project)});
    const { project } = await loadProject(${JSON.stringify(join(dir, 'switchyard.yaml'))});
    const plan = planProject(project, { functions: [], apis: [], webhooks: [], env_differs: [], write_only_differs: {} });
    if (plan.changes.length < ${n}) throw new Error('short plan');
  `;
  run('load + plan (empty server)', ['--input-type=module', '-e', loadAndPlan], dir);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
