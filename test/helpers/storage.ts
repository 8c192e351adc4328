// Opening fresh, empty stores for tests: SQLite in a temp directory or in memory, PostgreSQL in a
// uniquely named schema of DATABASE_URL (dropped afterwards), so tests never see each other's rows
// and can run in parallel against one database.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openPostgresStorage, type PostgresHandle, type PostgresStorageOptions } from '../../src/adapters/postgres/postgres-storage.js';
import { openSqliteStorage, type SqliteHandle } from '../../src/adapters/sqlite/sqlite-storage.js';
import type { Storage } from '../../src/ports/storage.js';

/** DATABASE_URL when the PostgreSQL suites should run, else undefined. */
export const databaseUrl: string | undefined = process.env.DATABASE_URL || undefined;
/** REDIS_URL when the Redis suites should run, else undefined. */
export const redisUrl: string | undefined = process.env.REDIS_URL || undefined;

/** The skip reason of a PostgreSQL test when DATABASE_URL is not set. */
export const postgresSkip = (what = 'PostgreSQL contract suite'): string => `DATABASE_URL not set: ${what} skipped`;
/** The skip reason of a Redis test when REDIS_URL is not set. */
export const redisSkip = (what = 'Redis rate limiter suite'): string => `REDIS_URL not set: ${what} skipped`;

/** A fresh, empty store and how to get rid of it (close, then delete its files or schema). */
export interface StorageFixture<S extends Storage = Storage> {
  storage: S;
  dispose(): Promise<void>;
}

export type StorageFactory = () => Promise<StorageFixture>;

/** A temp directory removed by the returned function. */
export function tempDir(prefix = 'lectern-test-'): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** SQLite in a new database file in a temp directory. */
export async function openTempSqlite(): Promise<StorageFixture<Storage & SqliteHandle> & { path: string }> {
  const tmp = tempDir();
  const path = join(tmp.dir, 'lectern.db');
  const storage = openSqliteStorage(path);
  return {
    storage,
    path,
    async dispose() {
      await storage.close();
      tmp.remove();
    },
  };
}

/** SQLite in a private in-memory database. */
export async function openMemorySqlite(): Promise<StorageFixture<Storage & SqliteHandle>> {
  const storage = openSqliteStorage(':memory:');
  return { storage, dispose: () => storage.close() };
}

/**
 * `url` with `search_path` set to `schema` through the libpq `options` startup parameter, and
 * `synchronous_commit` off: a test's commits do not wait for PostgreSQL to flush its WAL to disk (a
 * migration alone is some 60 commits; issue 25). What a commit makes visible is the same; only a crash
 * of the PostgreSQL server itself could lose the last commits, which no test does (kill -9 tests kill
 * Lectern processes and connections, never the database server).
 */
export function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema} -c synchronous_commit=off`);
  return u.toString();
}

/**
 * A new, uniquely named, empty schema in `url`'s database; `drop` removes it and everything in it, and the
 * pg-boss schema a job queue derives from it (`<schema>_pgboss`, ADR 0250) when there is one.
 */
export async function createTestSchema(url: string): Promise<{ schema: string; url: string; drop(): Promise<void> }> {
  const schema = `lectern_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE SCHEMA ${schema}`);
  return { schema, url: withSearchPath(url, schema), drop: () => admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE; DROP SCHEMA IF EXISTS ${schema}_pgboss CASCADE`) };
}

/** A unique pg-boss schema name for one test (ADR 0250): parallel tests never share a queue. Drop it with dropSchema. */
export const pgBossTestSchema = (): string => `pgboss_test_${process.pid}_${randomBytes(4).toString('hex')}`;

/** Drops `schema` of `url`'s database and everything in it (a test's pg-boss schema). */
export async function dropSchema(url: string, schema: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`not a schema name: ${schema}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * A migrated schema's state as a fresh one has it: what its catalog holds (tables, columns, defaults,
 * indexes, constraints, triggers, functions; the schema's name left out) and the rows the migrations
 * wrote. Read once per process from the first fresh schema.
 */
interface FreshState {
  catalog: string;
  rows: { table: string; json: string }[];
}
const CATALOG_SQL = `SELECT md5(string_agg(replace(x, current_schema() || '.', ''), E'\\n' ORDER BY x)) AS h FROM (
  SELECT 'c ' || c.relname || ' ' || c.relkind::text || ' ' || coalesce(a.attname, '') || ' ' || coalesce(format_type(a.atttypid, a.atttypmod), '') || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') AS x
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
   WHERE n.nspname = current_schema()
  UNION ALL SELECT 'i ' || indexdef FROM pg_indexes WHERE schemaname = current_schema()
  UNION ALL SELECT 't ' || pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND NOT t.tgisinternal
  UNION ALL SELECT 'f ' || p.proname || ' ' || md5(p.prosrc) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = current_schema()
  UNION ALL SELECT 'k ' || k.conname || ' ' || pg_get_constraintdef(k.oid) FROM pg_constraint k JOIN pg_namespace n ON n.oid = k.connamespace WHERE n.nspname = current_schema()
) q`;
const TABLES_SQL = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'schema_migrations' ORDER BY 1";
let freshState: Promise<FreshState> | null = null;
/** Used schemas of this process, emptied back to the fresh state, by database URL. */
const reusable = new Map<string, { schema: string; url: string; drop(): Promise<void> }[]>();
let dropAtExit = false;

async function readFreshState(schemaUrl: string): Promise<FreshState> {
  const client = new pg.Client({ connectionString: schemaUrl });
  await client.connect();
  try {
    const catalog = (await client.query<{ h: string }>(CATALOG_SQL)).rows[0]!.h;
    const rows: FreshState['rows'] = [];
    for (const { tablename } of (await client.query<{ tablename: string }>(TABLES_SQL)).rows) {
      const { rows: r } = await client.query<{ j: string | null }>(`SELECT json_agg(t)::text AS j FROM "${tablename}" t`);
      if (r[0]!.j !== null) rows.push({ table: tablename, json: r[0]!.j });
    }
    return { catalog, rows };
  } finally {
    await client.end();
  }
}

/**
 * Empties a used schema back to the fresh state (every table's rows deleted, the migrations' rows written
 * again, sequences restarted, its pg-boss schema dropped) when its catalog is still the fresh one; false
 * (and nothing changed) when a test changed the catalog, or the reset could not take its locks soon.
 * About 0.2 s of PostgreSQL work, where a new schema's migrations and the drop are about 1.5 s (issue 25).
 */
async function resetSchema(schemaUrl: string, schema: string, fresh: FreshState): Promise<boolean> {
  const client = new pg.Client({ connectionString: schemaUrl });
  await client.connect();
  try {
    if ((await client.query<{ h: string }>(CATALOG_SQL)).rows[0]!.h !== fresh.catalog) return false;
    await client.query('BEGIN');
    try {
      await client.query("SET LOCAL lock_timeout = '5s'");
      // no foreign-key or trigger work while emptying (needs a superuser; otherwise the schema is dropped)
      await client.query('SET LOCAL session_replication_role = replica');
      const tables = (await client.query<{ tablename: string }>(TABLES_SQL)).rows.map((r) => r.tablename);
      await client.query(tables.map((t) => `DELETE FROM "${t}"`).join('; '));
      for (const r of fresh.rows) await client.query(`INSERT INTO "${r.table}" SELECT * FROM json_populate_recordset(NULL::"${r.table}", $1::json)`, [r.json]);
      await client.query('SELECT setval(format(\'%I.%I\', schemaname, sequencename), start_value, false) FROM pg_sequences WHERE schemaname = current_schema()');
      await client.query(`DROP SCHEMA IF EXISTS ${schema}_pgboss CASCADE`);
      await client.query('COMMIT');
      return true;
    } catch {
      await client.query('ROLLBACK').catch(() => undefined);
      return false;
    }
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL storage on an empty, migrated schema of `url`; dispose closes the pool and gives the schema
 * back. With the default migrations the schema is one a test of this process used before, emptied back to
 * the fresh state (same catalog, the migrations' rows only, sequences restarted), or a new one; a schema
 * whose catalog a test changed is dropped, and the reusable ones are dropped when the process ends.
 */
export async function openTempPostgres(url: string, options: PostgresStorageOptions = {}): Promise<StorageFixture<Storage & PostgresHandle> & { url: string }> {
  const reuse = options.migrations === undefined;
  const schema = (reuse ? reusable.get(url)?.pop() : undefined) ?? (await createTestSchema(url));
  let storage: Storage & PostgresHandle;
  try {
    storage = await openPostgresStorage(schema.url, options);
    if (reuse) freshState ??= readFreshState(schema.url);
    if (reuse) await freshState;
  } catch (e) {
    await schema.drop();
    throw e;
  }
  return {
    storage,
    url: schema.url,
    async dispose() {
      await storage.close();
      if (reuse && freshState && (await resetSchema(schema.url, schema.schema, await freshState))) {
        reusable.set(url, [...(reusable.get(url) ?? []), schema]);
        if (!dropAtExit) {
          dropAtExit = true;
          // the reusable schemas go when the test file is done (the event loop waits for the drops)
          process.once('beforeExit', () => {
            for (const list of reusable.values()) for (const s of list.splice(0)) void s.drop().catch(() => undefined);
          });
        }
      } else {
        await schema.drop();
      }
    },
  };
}
