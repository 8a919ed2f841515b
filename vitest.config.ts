// Tests run in forked processes: isolated-vm (loaded only by runtime workers, which
// the runtime spawns itself) needs --no-node-snapshot on Node 20+.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/resilience restarts the shared PostgreSQL: run alone, after everything else (npm test).
    exclude: process.env.SWITCHYARD_RESILIENCE ? ['node_modules/**'] : ['test/resilience/**', 'node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
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
