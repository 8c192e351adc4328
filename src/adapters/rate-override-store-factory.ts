// Picks the rate-limit override store that lives in the same database as the rest of the storage.
import type { RateOverrideStore } from '../ports/rate-override-store.js';
import type { Storage } from '../ports/storage.js';
import { PostgresRateOverrideStore } from './postgres/postgres-rate-override-store.js';
import type { PostgresHandle } from './postgres/postgres-storage.js';
import { SqliteRateOverrideStore } from './sqlite/sqlite-rate-override-store.js';
import type { SqliteHandle } from './sqlite/sqlite-storage.js';

/** The override store over `storage`'s own database. */
export function rateOverrideStoreFor(storage: (Storage & SqliteHandle) | (Storage & PostgresHandle)): RateOverrideStore {
  if ('db' in storage) return new SqliteRateOverrideStore(storage.db);
  if ('pool' in storage) return new PostgresRateOverrideStore(storage.pool);
  throw new Error('rate-limit overrides need SQLite or PostgreSQL storage');
}
