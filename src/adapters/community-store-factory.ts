// Picks the community store that lives in the same database as the rest of the storage.
import type { CommunityStore } from '../ports/community-store.js';
import { PostgresCommunityStore } from './postgres/postgres-community-store.js';
import type { PostgresHandle } from './postgres/postgres-storage.js';
import { SqliteCommunityStore } from './sqlite/sqlite-community-store.js';
import type { SqliteHandle } from './sqlite/sqlite-storage.js';
import type { Storage } from '../ports/storage.js';

/** The community store over `storage`'s own database. */
export function communityStoreFor(storage: (Storage & SqliteHandle) | (Storage & PostgresHandle)): CommunityStore {
  if ('db' in storage) return new SqliteCommunityStore(storage.db);
  if ('pool' in storage) return new PostgresCommunityStore(storage.pool);
  throw new Error('the community layer needs SQLite or PostgreSQL storage');
}
