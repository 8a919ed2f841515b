// Fails the build when the dashboard's JavaScript (every file of dist/dashboard/assets/*.js,
// the editor's lazily loaded chunk included) is over 200 KB gzipped, and prints the figure.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const LIMIT = 200 * 1024;
const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist/dashboard/assets');
const files = readdirSync(dir).filter((name) => name.endsWith('.js'));
let total = 0;
for (const name of files) {
  const size = gzipSync(readFileSync(path.join(dir, name)), { level: 9 }).length;
  total += size;
  console.log(`  ${name}: ${(size / 1024).toFixed(1)} KB gzipped`);
}
const summary = `dashboard JavaScript: ${(total / 1024).toFixed(1)} KB gzipped in ${files.length} files (limit ${LIMIT / 1024} KB)`;
if (files.length === 0) {
  console.error('dist/dashboard/assets holds no JavaScript: the dashboard build wrote nothing');
  process.exit(1);
}
if (total > LIMIT) {
  console.error(`${summary}: over the limit`);
  process.exit(1);
}
console.log(summary);
