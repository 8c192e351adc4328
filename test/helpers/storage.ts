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

/** PostgreSQL storage on a fresh schema of `url`; dispose closes the pool and drops the schema. */
export async function openTempPostgres(url: string, options: PostgresStorageOptions = {}): Promise<StorageFixture<Storage & PostgresHandle> & { url: string }> {
  const schema = await createTestSchema(url);
  let storage: Storage & PostgresHandle;
  try {
    storage = await openPostgresStorage(schema.url, options);
  } catch (e) {
    await schema.drop();
    throw e;
  }
  return {
    storage,
    url: schema.url,
    async dispose() {
      await storage.close();
      await schema.drop();
    },
  };
}
