/**
 * With TEST_STORE=postgres the HTTP suites leave one schema per service
 * behind (the servers are separate processes); drop them before and after.
 */
import pg from 'pg';
import { IT_SCHEMA_PREFIX, TEST_DATABASE_URL, TEST_STORE } from './helpers/service.js';

async function dropTestSchemas(): Promise<void> {
  if (TEST_STORE !== 'postgres') return;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace WHERE nspname LIKE $1`,
      [IT_SCHEMA_PREFIX + '%'],
    );
    for (const { nspname } of rows) await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
  } finally {
    await client.end();
  }
}

export async function setup(): Promise<void> {
  await dropTestSchemas();
}

export async function teardown(): Promise<void> {
  await dropTestSchemas();
}
