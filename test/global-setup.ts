/**
 * Once per vitest run, before any test file: a temporary folder for the whole
 * run (os.tmpdir() of every test process points into it, so whatever the tests
 * make there goes with it), and the PostgreSQL the suites use: a private one
 * started in that folder, or the one TEST_DATABASE_URL names. Test files get it
 * through inject('testDatabase') (test/helpers/test-database.ts). At the end it
 * drops this run's leftover schemas from a TEST_DATABASE_URL server, and stops
 * the private server and removes the folder; a guard process does that too
 * when the run is interrupted (test/helpers/postgres-guard.mjs).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { findPostgresBinaries, guardFolders, hidePassword, startPrivatePostgres, type GuardedFolders } from './helpers/postgres-server.js';
import type { TestDatabase } from './helpers/test-database.js';

/** Drops the schemas of run `runId` that its test files left behind. */
async function dropRunSchemas(url: string, runId: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)`,
      [`sy_${runId}_`],
    );
    for (const { nspname } of rows) await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
  } finally {
    await client.end();
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runId = randomBytes(3).toString('hex');
  const given = process.env.TEST_DATABASE_URL || null;
  const binaries = given ? null : findPostgresBinaries();
  if (typeof binaries === 'string' && process.env.CI) {
    throw new Error(`${binaries}; CI is set, so the PostgreSQL suites cannot be skipped`);
  }

  const runDir = mkdtempSync(join(tmpdir(), 'switchyard-tests-'));
  // Traversable by the unprivileged user a root run starts PostgreSQL and nginx's workers as.
  chmodSync(runDir, 0o755);
  // Test processes are forked after this, with this environment: their os.tmpdir() is runDir.
  for (const name of ['TMPDIR', 'TMP', 'TEMP']) process.env[name] = runDir;

  const database: TestDatabase = { url: given, unavailable: null, runId };
  let guard: GuardedFolders;
  if (binaries && typeof binaries !== 'string') {
    // On failure its guard has removed runDir too.
    const server = await startPrivatePostgres(binaries, [runDir]);
    database.url = server.url;
    guard = server;
    console.log(`tests use a private PostgreSQL ${server.version} (${binaries.source}) at ${server.url}`);
  } else {
    if (given) {
      console.log(`tests use the PostgreSQL at ${hidePassword(given)} (TEST_DATABASE_URL), in schemas named sy_${runId}_*`);
    } else {
      database.unavailable = `${binaries}; or set TEST_DATABASE_URL`;
      console.warn(`the PostgreSQL tests are skipped: ${database.unavailable}`);
    }
    guard = await guardFolders([runDir]);
  }
  project.provide('testDatabase', database);

  return async function teardown() {
    try {
      if (given) await dropRunSchemas(given, runId);
    } finally {
      await guard.stop();
    }
  };
}
