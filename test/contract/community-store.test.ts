// The community store contract against SQLite (file and memory) and PostgreSQL (DATABASE_URL).
import { test } from 'node:test';
import { PostgresCommunityStore } from '../../src/adapters/postgres/postgres-community-store.js';
import { SqliteCommunityStore } from '../../src/adapters/sqlite/sqlite-community-store.js';
import { databaseUrl, openMemorySqlite, openTempPostgres, openTempSqlite, postgresSkip } from '../helpers/storage.js';
import { communityStoreContract } from './community-store.contract.js';

communityStoreContract('SQLite file', async () => {
  const fixture = await openTempSqlite();
  return { fixture, community: new SqliteCommunityStore(fixture.storage.db) };
});
communityStoreContract('SQLite :memory:', async () => {
  const fixture = await openMemorySqlite();
  return { fixture, community: new SqliteCommunityStore(fixture.storage.db) };
});

if (!databaseUrl) {
  test('PostgreSQL community store contract', { skip: postgresSkip('PostgreSQL community store contract') }, () => {});
} else {
  const url = databaseUrl;
  communityStoreContract('PostgreSQL', async () => {
    const fixture = await openTempPostgres(url, { max: 8 });
    return { fixture, community: new PostgresCommunityStore(fixture.storage.pool) };
  });
}
