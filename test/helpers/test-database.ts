/**
 * The PostgreSQL the tests of this run use: the private one test/global-setup.ts
 * started, or the one TEST_DATABASE_URL names. Every schema a test makes is
 * named `sy_<run>_<kind>_<random>`, so runs sharing one server never touch each
 * other's; each test file drops its own (test/setup-file.ts), and the run drops
 * whatever of its own is left.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { hidePassword } from './postgres-server.js';

export interface TestDatabase {
  /** Null when there is none: then `unavailable` says why. */
  url: string | null;
  unavailable: string | null;
  /** Short random id of this vitest run, in every schema name it makes. */
  runId: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    testDatabase: TestDatabase;
  }
}

const provided = inject('testDatabase');
export const TEST_DATABASE_URL: string | null = provided.url;
export const RUN_ID = provided.runId;

/** The prefix of every schema this run makes. */
export function runSchemaPrefix(runId: string): string {
  return `sy_${runId}_`;
}

/** Null when PostgreSQL at `url` answers; else why not, for a skip or failure message. */
export async function probePostgres(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return `PostgreSQL at ${hidePassword(url)} is not reachable (${(err as Error).message || String(err)})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

let unavailable: Promise<string | null> | null = null;

/** Why the PostgreSQL suites cannot run here, or null (probed once per test file). */
export function postgresUnavailable(): Promise<string | null> {
  unavailable ??= TEST_DATABASE_URL ? probePostgres(TEST_DATABASE_URL) : Promise.resolve(provided.unavailable);
  return unavailable;
}

/** The test database, or a failure saying why there is none (a suite that should have skipped, or CI). */
export function requireTestDatabaseUrl(): string {
  if (!TEST_DATABASE_URL) throw new Error(`no PostgreSQL for the tests: ${provided.unavailable}`);
  return TEST_DATABASE_URL;
}

/** Schemas handed out in this test file and not dropped yet. */
const created = new Set<string>();

/** A DATABASE_URL on a fresh schema of the test database; the first store opened on it creates it. */
export function pgSchemaUrl(kind: string): { url: string; schema: string } {
  const base = requireTestDatabaseUrl();
  const schema = `${runSchemaPrefix(RUN_ID)}${kind}_${randomBytes(6).toString('hex')}`;
  created.add(schema);
  const url = new URL(base);
  url.searchParams.set('schema', schema);
  return { url: url.toString(), schema };
}

/** Drops `schemas` from the test database, a few per statement (each drop locks every table of its schema). */
export async function dropPgSchemas(schemas: Iterable<string>): Promise<void> {
  const list = [...schemas];
  for (const schema of list) created.delete(schema);
  if (list.length === 0 || !TEST_DATABASE_URL) return;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    for (let i = 0; i < list.length; i += 10) {
      await client.query(`DROP SCHEMA IF EXISTS ${list.slice(i, i + 10).map((s) => `"${s}"`).join(', ')} CASCADE`);
    }
  } finally {
    await client.end();
  }
}

/** Drops every schema this test file made and has not dropped (test/setup-file.ts, after all its tests). */
export function dropCreatedSchemas(): Promise<void> {
  return dropPgSchemas(created);
}
