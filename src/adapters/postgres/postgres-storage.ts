// PostgreSQL storage (selected by DATABASE_URL): every store of the Storage port on one pg.Pool,
// with the same semantics as the embedded SQLite store (both run test/contract/storage.contract.ts).
// Pending migrations are applied at open (postgres-migrate.ts). Capabilities with their own tables
// (OAuth, recognition jobs, ...) use the `pool` of the returned handle with withTransaction(), and
// add their migration steps to ALL_MIGRATIONS (docs/storage.md).
import pg from 'pg';
import type { Storage } from '../../ports/storage.js';
import { ALL_MIGRATIONS, type MigrationStep } from '../sql/migrations.js';
import { PostgresAccountStore, PostgresApiKeyStore } from './postgres-account-store.js';
import { PostgresActivityStore } from './postgres-activity-store.js';
import { PostgresCreditLedger } from './postgres-credit-ledger.js';
import { PostgresDocumentStore } from './postgres-document-store.js';
import { migratePostgres } from './postgres-migrate.js';
import { createPostgresPool, type PostgresPoolOptions } from './postgres-pool.js';

export { withTransaction, sqlState, type Tx } from './postgres-pool.js';

/** The PostgreSQL connection pool, for capabilities' own PostgreSQL stores (auth, recognition, ...). */
export interface PostgresHandle {
  readonly pool: pg.Pool;
}

export interface PostgresStorageOptions extends PostgresPoolOptions {
  /** Steps applied at open (default ALL_MIGRATIONS). */
  migrations?: readonly MigrationStep[];
}

/**
 * Connects to `url`, applies pending migrations and returns the stores. The schema is the
 * connection's `search_path` (e.g. `postgres://host/db?options=-c%20search_path%3Dlectern`); it must
 * exist. Rejects (and closes the pool) when the database cannot be reached or a migration fails.
 */
export async function openPostgresStorage(url: string, options: PostgresStorageOptions = {}): Promise<Storage & PostgresHandle> {
  const pool = createPostgresPool(url, options);
  try {
    await migratePostgres(pool, options.migrations ?? ALL_MIGRATIONS);
  } catch (e) {
    await pool.end();
    throw e;
  }
  let closed = false;
  // the API-key cache listens for key changes on a connection of its own (ADR 0185)
  const apiKeys = new PostgresApiKeyStore(pool, () => new pg.Client(pool.options));
  return {
    kind: 'postgres',
    pool,
    accounts: new PostgresAccountStore(pool),
    apiKeys,
    ledger: new PostgresCreditLedger(pool),
    documents: new PostgresDocumentStore(pool),
    activity: new PostgresActivityStore(pool),
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      // pool.end() rejects when called twice; close() is idempotent like SQLite's.
      if (closed) return;
      closed = true;
      await apiKeys.close();
      await pool.end();
    },
  };
}
