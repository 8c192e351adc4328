// Picks the conversation store that lives in the same database as the rest of the storage.
import type { ConversationStore } from '../ports/conversation-store.js';
import type { Storage } from '../ports/storage.js';
import { PostgresConversationStore } from './postgres/postgres-conversation-store.js';
import type { PostgresHandle } from './postgres/postgres-storage.js';
import { SqliteConversationStore } from './sqlite/sqlite-conversation-store.js';
import type { SqliteHandle } from './sqlite/sqlite-storage.js';

/** The conversation store over `storage`'s own database (SQLite handle `db`, PostgreSQL handle `pool`). */
export function conversationStoreFor(storage: (Storage & SqliteHandle) | (Storage & PostgresHandle)): ConversationStore {
  if ('db' in storage) return new SqliteConversationStore(storage.db);
  if ('pool' in storage) return new PostgresConversationStore(storage.pool);
  throw new Error('conversations need SQLite or PostgreSQL storage');
}
