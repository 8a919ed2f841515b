// Tests run in forked processes: isolated-vm (loaded only by runtime workers, which
// the runtime spawns itself) needs --no-node-snapshot on Node 20+.
import { defineConfig } from 'vitest/config';
import { findPostgresBinaries } from './test/helpers/postgres-server.js';

/**
 * `TEST_STORE=postgres` runs every HTTP suite on PostgreSQL: on a machine with
 * none to run (no TEST_DATABASE_URL, no binaries to start one) that run is
 * skipped as a whole, saying why; under CI it goes ahead and fails.
 */
function postgresRunSkipped(): string | null {
  if (process.env.TEST_STORE !== 'postgres' || process.env.TEST_DATABASE_URL || process.env.CI) return null;
  const binaries = findPostgresBinaries();
  return typeof binaries === 'string' ? binaries : null;
}

const skipped = postgresRunSkipped();
if (skipped) console.warn(`TEST_STORE=postgres: every test skipped: ${skipped}; or set TEST_DATABASE_URL`);

export default defineConfig({
  test: {
    include: skipped ? [] : ['test/**/*.test.ts'],
    passWithNoTests: Boolean(skipped),
    // test/resilience restarts a PostgreSQL of its own: run alone, after everything else (npm test).
    exclude: process.env.SWITCHYARD_RESILIENCE ? ['node_modules/**'] : ['test/resilience/**', 'node_modules/**'],
    // The run's temporary folder and PostgreSQL, and each file's cleanup of its schemas.
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-file.ts'],
    pool: 'forks',
    poolOptions: {
      forks: {
        execArgv: ['--no-node-snapshot'],
        maxForks: 2,
      },
    },
    fileParallelism: true,
    testTimeout: 30000,
    hookTimeout: 30000,
  },
});
