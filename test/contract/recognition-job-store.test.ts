// The recognition job store contract against SQLite (file and memory) and PostgreSQL (DATABASE_URL).
import { test } from 'node:test';
import { PostgresRecognitionJobStore } from '../../src/adapters/postgres/postgres-recognition-job-store.js';
import { SqliteRecognitionJobStore } from '../../src/adapters/sqlite/sqlite-recognition-job-store.js';
import { databaseUrl, openMemorySqlite, openTempPostgres, openTempSqlite, postgresSkip } from '../helpers/storage.js';
import { recognitionJobStoreContract } from './recognition-job-store.contract.js';

recognitionJobStoreContract('SQLite file', async () => {
  const fixture = await openTempSqlite();
  return { fixture, jobs: new SqliteRecognitionJobStore(fixture.storage.db) };
});
recognitionJobStoreContract('SQLite :memory:', async () => {
  const fixture = await openMemorySqlite();
  return { fixture, jobs: new SqliteRecognitionJobStore(fixture.storage.db) };
});

if (!databaseUrl) {
  test('PostgreSQL recognition job store contract', { skip: postgresSkip('PostgreSQL recognition job store contract') }, () => {});
} else {
  const url = databaseUrl;
  recognitionJobStoreContract('PostgreSQL', async () => {
    const fixture = await openTempPostgres(url, { max: 4 });
    return { fixture, jobs: new PostgresRecognitionJobStore(fixture.storage.pool) };
  });
}
