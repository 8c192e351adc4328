// The rate-limit override store contract against SQLite (file and memory) and PostgreSQL (DATABASE_URL).
import { test } from 'node:test';
import { PostgresRateOverrideStore } from '../../src/adapters/postgres/postgres-rate-override-store.js';
import { SqliteRateOverrideStore } from '../../src/adapters/sqlite/sqlite-rate-override-store.js';
import { databaseUrl, openMemorySqlite, openTempPostgres, openTempSqlite, postgresSkip } from '../helpers/storage.js';
import { rateOverrideStoreContract } from './rate-override-store.contract.js';

rateOverrideStoreContract('SQLite file', async () => {
  const fixture = await openTempSqlite();
  return { fixture, overrides: new SqliteRateOverrideStore(fixture.storage.db) };
});
rateOverrideStoreContract('SQLite :memory:', async () => {
  const fixture = await openMemorySqlite();
  return { fixture, overrides: new SqliteRateOverrideStore(fixture.storage.db) };
});

if (!databaseUrl) {
  test('PostgreSQL rate-limit override store contract', { skip: postgresSkip('PostgreSQL rate-limit override store contract') }, () => {});
} else {
  const url = databaseUrl;
  rateOverrideStoreContract('PostgreSQL', async () => {
    const fixture = await openTempPostgres(url, { max: 8 });
    return { fixture, overrides: new PostgresRateOverrideStore(fixture.storage.pool) };
  });
}
