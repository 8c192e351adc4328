// Picks the auth store that lives in the same database as the rest of the storage.
import type { AuthStore } from '../ports/auth-store.js';
import type { Storage } from '../ports/storage.js';
import { postgresAuthStore } from './postgres/auth-store.js';
import type { PostgresHandle } from './postgres/postgres-storage.js';
import { sqliteAuthStore } from './sqlite/auth-store.js';
import type { SqliteHandle } from './sqlite/sqlite-storage.js';

/** The auth store over `storage`'s own database (SQLite handle `db`, PostgreSQL handle `pool`). */
export function authStoreFor(storage: (Storage & SqliteHandle) | (Storage & PostgresHandle)): AuthStore {
  if ('db' in storage) return sqliteAuthStore(storage.db);
  if ('pool' in storage) return postgresAuthStore(storage.pool);
  throw new Error('the auth capability needs SQLite or PostgreSQL storage');
}
