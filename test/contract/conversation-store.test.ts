// The conversation store contract against SQLite (file and memory) and PostgreSQL (DATABASE_URL).
import { test } from 'node:test';
import { PostgresConversationStore } from '../../src/adapters/postgres/postgres-conversation-store.js';
import { SqliteConversationStore } from '../../src/adapters/sqlite/sqlite-conversation-store.js';
import { databaseUrl, openMemorySqlite, openTempPostgres, openTempSqlite, postgresSkip } from '../helpers/storage.js';
import { conversationStoreContract } from './conversation-store.contract.js';

conversationStoreContract('SQLite file', async () => {
  const fixture = await openTempSqlite();
  return { fixture, conversations: new SqliteConversationStore(fixture.storage.db) };
});
conversationStoreContract('SQLite :memory:', async () => {
  const fixture = await openMemorySqlite();
  return { fixture, conversations: new SqliteConversationStore(fixture.storage.db) };
});

if (!databaseUrl) {
  test('PostgreSQL conversation store contract', { skip: postgresSkip('PostgreSQL conversation store contract') }, () => {});
} else {
  const url = databaseUrl;
  conversationStoreContract('PostgreSQL', async () => {
    const fixture = await openTempPostgres(url, { max: 4 });
    return { fixture, conversations: new PostgresConversationStore(fixture.storage.pool) };
  });
}
