// The auth store contract against PostgreSQL (DATABASE_URL), each test in a fresh schema.
import { test } from 'node:test';
import { postgresAuthStore } from '../../src/adapters/postgres/auth-store.js';
import { databaseUrl, openTempPostgres, postgresSkip } from '../helpers/storage.js';
import { authStoreContract } from './auth-store.contract.js';

if (!databaseUrl) {
  test('PostgreSQL auth store contract', { skip: postgresSkip('PostgreSQL auth store contract') }, () => {});
} else {
  const url = databaseUrl;
  authStoreContract('PostgreSQL', async () => {
    const fixture = await openTempPostgres(url);
    return { fixture, store: postgresAuthStore(fixture.storage.pool) };
  });
}
