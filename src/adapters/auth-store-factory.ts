// Picks the auth store that lives in the same database as the rest of the storage.
import type { AuthStore } from '../ports/auth-store.js';
import type { Storage } from '../ports/storage.js';
import { sqliteAuthStore } from './sqlite/auth-store.js';
import type { SqliteHandle } from './sqlite/sqlite-storage.js';

/** The auth store over `storage`'s own database (SQLite handle `db`, PostgreSQL handle `pool`). */
export function authStoreFor(storage: Storage): AuthStore {
  if (storage.kind === 'sqlite' && 'db' in storage) return sqliteAuthStore((storage as Storage & SqliteHandle).db);
  throw new Error(`the auth capability has no store for ${storage.kind} storage`);
}
