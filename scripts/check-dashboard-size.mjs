// Fails the build when the dashboard's JavaScript (every file of dist/dashboard/assets/*.js,
// the editor's lazily loaded chunk included) is over 200 KB gzipped, and prints the figure.
// `node scripts/check-dashboard-size.mjs portal-ui` checks the consumer portal's (dist/portal-ui/) against
// the same limit: each bundle has a budget of its own.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const LIMIT = 200 * 1024;
const bundle = process.argv[2] ?? 'dashboard';
if (!['dashboard', 'portal-ui'].includes(bundle)) throw new Error(`unknown bundle ${bundle}: dashboard or portal-ui`);
const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', `dist/${bundle}/assets`);
const files = readdirSync(dir).filter((name) => name.endsWith('.js'));
let total = 0;
for (const name of files) {
  const size = gzipSync(readFileSync(path.join(dir, name)), { level: 9 }).length;
  total += size;
  console.log(`  ${name}: ${(size / 1024).toFixed(1)} KB gzipped`);
}
const summary = `${bundle} JavaScript: ${(total / 1024).toFixed(1)} KB gzipped in ${files.length} files (limit ${LIMIT / 1024} KB)`;
if (files.length === 0) {
  console.error(`dist/${bundle}/assets holds no JavaScript: the ${bundle} build wrote nothing`);
  process.exit(1);
}
if (total > LIMIT) {
  console.error(`${summary}: over the limit`);
  process.exit(1);
}
console.log(summary);
