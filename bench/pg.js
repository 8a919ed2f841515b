// PostgreSQL plumbing shared by the benchmarks: where the server is, a probe
// that fails early and clearly, and throwaway schemas. Every measured store
// lives in a fresh schema of that database (DATABASE_URL `?schema=`, created by
// Switchyard when missing), so a run never touches anyone else's tables and
// drops what it made.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The local server the README figures use; BENCH_DATABASE_URL or --postgres-url points elsewhere. */
export const DEFAULT_PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Schemas named by this process and not dropped yet, so an interrupted run can still clean up. */
const created = new Set();

export function redact(url) {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/** Throws a message that says how to skip, when the server does not answer. */
export async function assertPostgres(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new Error(
      `PostgreSQL at ${redact(url)} is not reachable (${err.message || err.code || err}). ` +
        'Start it (e.g. `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`), ' +
        'point --postgres-url / BENCH_DATABASE_URL at another server, or pass --no-postgres to skip the PostgreSQL figures.',
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A fresh schema name and the DATABASE_URL that makes Switchyard create and use it. */
export function freshSchema(baseUrl, purpose) {
  const schema = `sy_bench_${purpose}_${randomBytes(4).toString('hex')}`;
  created.add(`${baseUrl}\n${schema}`);
  return { schema, url: `${baseUrl}${baseUrl.includes('?') ? '&' : '?'}schema=${schema}` };
}

export async function dropSchema(baseUrl, schema) {
  const client = new pg.Client({ connectionString: baseUrl, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    // A straggling connection holding a lock must fail the drop, not hang the run.
    await client.query(`SET lock_timeout = '10s'`);
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    created.delete(`${baseUrl}\n${schema}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Drops every schema this process named and has not dropped (Ctrl-C, errors). Never throws. */
export async function dropAllSchemas() {
  for (const key of [...created]) {
    const [baseUrl, schema] = key.split('\n');
    await dropSchema(baseUrl, schema).catch((err) => console.error(`could not drop schema ${schema}: ${err.message}`));
  }
}

/** A pg client whose unqualified names resolve in `schema` (fixtures and checks, never measured). */
export async function schemaClient(baseUrl, schema) {
  const client = new pg.Client({ connectionString: baseUrl, options: `-c search_path="${schema}"`, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}
